package toolstest

import (
	"bytes"
	"fmt"
)

// TablePage returns the page of the html-to-pdf benchmarks: a plain
// HTML table of rows rows and six columns of text, with no script, image
// or web font. 200 rows print on 7 A4 pages at html-to-pdf's default
// settings. The tool's package and the HTTP benchmarks print the same
// page.
func TablePage(rows int) []byte {
	names := []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth", "Frances Allen"}
	cities := []string{"London", "Arlington", "Manchester", "Rotterdam", "Los Angeles", "Milwaukee", "Peru, New York"}
	products := []string{"Ledger binder", "Fountain pen", "Desk lamp", "Paper, 500 sheets", "Stapler", "Archive box", "Notebook"}
	var buf bytes.Buffer
	buf.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Orders</title>
<style>body { font-family: sans-serif; font-size: 11pt; } table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #999; padding: 7px 6px; text-align: left; } th { background: #eee; }</style>
</head><body><h1>Orders, first half of 2026</h1>
<table><thead><tr><th>#</th><th>Customer</th><th>City</th><th>Product</th><th>Qty</th><th>Amount</th></tr></thead><tbody>
`)
	for i := range rows {
		fmt.Fprintf(&buf, "<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d.%02d EUR</td></tr>\n",
			i+1, names[i%len(names)], cities[i%len(cities)], products[(i*3)%len(products)], 1+i%9, 10+(i*37)%990, (i*13)%100)
	}
	buf.WriteString("</tbody></table></body></html>\n")
	return buf.Bytes()
}

// The targets for html-to-pdf on TablePage(200), and Gotenberg's figures
// for the same page (Gotenberg 8.36 on a 2-core machine), that the
// benchmarks print beside their own: a reference, not a measurement.
const (
	TableTargetDocsPerSec1 = 4.0 // documents per second, 1 client
	TableTargetDocsPerSec4 = 5.5 // documents per second, 4 clients
	TableGotenberg1        = 2.6 // Gotenberg, documents per second, 1 client
	TableGotenberg4        = 3.7 // Gotenberg, documents per second, 4 clients
	TableGotenbergKB       = 24  // Gotenberg's PDF, KB
)
