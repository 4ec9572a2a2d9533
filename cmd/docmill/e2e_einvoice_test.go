package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// einvoiceRefusal runs tool and returns its refusal, which must be a 4xx
// problem+json of code; params as for the tool.
func einvoiceRefusal(t *testing.T, c *client.Client, tool string, files []client.File, params map[string]string, code string) *client.Problem {
	t.Helper()
	_, _, err := c.Process(context.Background(), tool, files, client.ProcessOptions{Params: params, Prefer: "wait=60"})
	var p *client.Problem
	if !errors.As(err, &p) {
		t.Fatalf("%s: %v, want a problem", tool, err)
	}
	if string(p.Code) != code || p.StatusCode < 400 || p.StatusCode > 499 ||
		!strings.HasPrefix(p.Header.Get("Content-Type"), "application/problem+json") {
		t.Fatalf("%s: %d %s (%s) %q, want a 4xx problem+json %s", tool, p.StatusCode, p.Code, p.Header.Get("Content-Type"), p.Detail, code)
	}
	return p
}

// TestEInvoiceE2E makes an EN 16931 e-invoice over HTTP and reads it with
// qpdf and pdfdetach, takes its XML back with extract-einvoice byte for
// byte, runs both in one pipeline on a MINIMUM invoice (one with a byte
// order mark, sniffed as text/plain), and has each bad
// input refused with its code.
func TestEInvoiceE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	page := toolstest.TextPDF("Invoice INV-2026-0042")
	en := toolstest.CIIInvoice(toolstest.GuidelineEN16931, 3)

	j, made := runTool(t, c, "einvoice-pdf", []client.File{pdfFile("invoice.pdf", page), pdfFile("invoice.xml", en)}, map[string]string{"level": "EN 16931"})
	if j.Result.ContentType != "application/pdf" || j.Result.Filename != "invoice-einvoice.pdf" ||
		j.Meta["level"] != "EN 16931" || j.Meta["relationship"] != "Alternative" || j.Meta["pages"] != float64(1) {
		t.Fatalf("einvoice-pdf: result %+v, meta %v", j.Result, j.Meta)
	}
	inv := toolstest.ReadEInvoice(t, toolstest.WriteTemp(t, "invoice-einvoice.pdf", made))
	if inv.Relationship != "/Alternative" || inv.Name != "factur-x.xml" || !bytes.Equal(inv.Saved, en) ||
		!strings.Contains(inv.XMP, "<pdfaid:part>3</pdfaid:part>") || !strings.Contains(inv.XMP, "<pdfaid:conformance>B</pdfaid:conformance>") ||
		!strings.Contains(inv.XMP, "<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>") {
		t.Errorf("read back: relationship %q, name %q, %d bytes saved, XMP:\n%s", inv.Relationship, inv.Name, len(inv.Saved), inv.XMP)
	}

	j, xml := runTool(t, c, "extract-einvoice", []client.File{pdfFile("invoice-einvoice.pdf", made)}, nil)
	if !bytes.Equal(xml, en) || j.Result.Filename != "invoice-einvoice-factur-x.xml" || j.Meta["level"] != "EN 16931" || j.Meta["attachment"] != "factur-x.xml" {
		t.Errorf("extract-einvoice: %d bytes (embedded %d), result %+v, meta %v", len(xml), len(en), j.Result, j.Meta)
	}

	t.Run("pipeline", func(t *testing.T) {
		// With a byte order mark, the XML sniffs as text/plain.
		min := append([]byte("\ufeff"), toolstest.CIIInvoice(toolstest.GuidelineMinimum, 0)...)
		j, _, err := pipeline(c, `[{"tool": "einvoice-pdf"}, {"tool": "extract-einvoice"}]`,
			[]client.File{pdfFile("invoice.pdf", page), pdfFile("minimum.xml", min)}, client.ProcessOptions{Prefer: "wait=120"})
		if err != nil || j.Status != "done" {
			t.Fatalf("pipeline: %v %+v", err, j)
		}
		if got := download(t, j.Result.URL); !bytes.Equal(got, min) {
			t.Errorf("pipeline gave %d bytes, not the %d sent", len(got), len(min))
		}
	})

	t.Run("refusals", func(t *testing.T) {
		files := func(a, b []byte) []client.File { return []client.File{pdfFile("a", a), pdfFile("b", b)} }
		p := einvoiceRefusal(t, c, "einvoice-pdf", files(en, page), nil, "unsupported_file_type")
		if !strings.Contains(p.Detail, "PDF first") {
			t.Errorf("XML first: %q", p.Detail)
		}
		ubl := []byte(`<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`)
		if p := einvoiceRefusal(t, c, "einvoice-pdf", files(page, ubl), nil, "invalid_document"); !strings.Contains(p.Detail, "not a CII invoice") {
			t.Errorf("UBL: %q", p.Detail)
		}
		laughs := []byte(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>`)
		einvoiceRefusal(t, c, "einvoice-pdf", files(page, laughs), nil, "invalid_document")
		p = einvoiceRefusal(t, c, "einvoice-pdf", files(page, en), map[string]string{"level": "MINIMUM"}, "invalid_parameter")
		if len(p.Fields) != 1 || p.Fields[0].Field != "level" || !strings.Contains(p.Fields[0].Message, "EN 16931") || !strings.Contains(p.Fields[0].Message, "MINIMUM") {
			t.Errorf("level mismatch: %+v", p.Fields)
		}
		einvoiceRefusal(t, c, "einvoice-pdf", files(append([]byte("%PDF-1.7\n"), toolstest.Noise(2000)...), en), nil, "invalid_document")
		if p := einvoiceRefusal(t, c, "extract-einvoice", []client.File{pdfFile("plain.pdf", page)}, nil, "invalid_document"); !strings.Contains(p.Detail, "holds no e-invoice") {
			t.Errorf("no invoice: %q", p.Detail)
		}
	})
}
