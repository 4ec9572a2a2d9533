package ocr_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/pdfops"
)

// TestMain lets this test binary serve as the PDF helper that counts the
// output's pages, as docmill's own binary does in the server (`docmill
// engine pdf`).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "engine" {
		reg := docmill.NewRegistry(pdfops.SelectPagesTool(), ocr.PrepareImageTool())
		if err := sandbox.ServeHelper(context.Background(), os.Stdin, os.Stdout, reg); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// selectPages is SelectPagesTool run in real helper processes of this
// test binary, as cmd/docmill gives it to ocr.Tools.
var selectPages = sync.OnceValue(func() docmill.RunFunc {
	return helpers().Tool(pdfops.SelectPagesTool()).Run
})

// prepareImage is ocr.PrepareImageTool run in the same helpers.
var prepareImage = sync.OnceValue(func() docmill.RunFunc {
	return helpers().Tool(ocr.PrepareImageTool()).Run
})

var helpers = sync.OnceValue(func() *sandbox.Helpers {
	h, err := sandbox.NewHelpers(sandbox.SelfEngine("docmill-pdf", sandbox.Options{}), []string{"engine", "pdf"}, sandbox.HelperOptions{})
	if err != nil {
		panic(err)
	}
	return h
})
