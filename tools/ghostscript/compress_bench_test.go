package ghostscript_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkCompress runs compress-pdf per preset on the image-heavy corpus
// files next to a raw `gs -dPDFSETTINGS=/ebook` run on the same file,
// reporting the output size (out-bytes) and output/input ratio; compare
// ns/op and out-bytes of a preset with the gs-ebook line of the same file.
func BenchmarkCompress(b *testing.B) {
	for _, f := range imageHeavy {
		path := corpusPDF(b, f)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, preset := range []string{"low", "recommended", "extreme"} {
			b.Run(f+"/"+preset, func(b *testing.B) {
				var size int64
				for b.Loop() {
					out, err := run(b, "compress-pdf", map[string]string{"preset": preset}, path)
					if err != nil {
						b.Fatal(err)
					}
					size = out.Meta["output_size"].(int64)
				}
				b.ReportMetric(float64(size), "out-bytes")
				b.ReportMetric(float64(size)/float64(st.Size()), "ratio")
			})
		}
		b.Run(f+"/gs-ebook", func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "ebook.pdf")
			for b.Loop() {
				cmd := exec.Command("gs", "-sDEVICE=pdfwrite", "-dPDFSETTINGS=/ebook", "-dSAFER", "-dBATCH",
					"-dNOPAUSE", "-dQUIET", "-sOutputFile="+out, path)
				if b, err := cmd.CombinedOutput(); err != nil {
					panic(string(b))
				}
			}
			st2, err := os.Stat(out)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st2.Size()), "out-bytes")
			b.ReportMetric(float64(st2.Size())/float64(st.Size()), "ratio")
		})
	}
}
