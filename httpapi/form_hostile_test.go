package httpapi

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// endless is a body of a prefix, then n bytes of filler, then a suffix,
// made as it is read: the test holds none of it.
func endless(prefix string, n int64, suffix string) io.Reader {
	return io.MultiReader(strings.NewReader(prefix), io.LimitReader(repeatByte('a'), n), strings.NewReader(suffix))
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// TestHostileFormsBounded: what the server reads of a form besides its
// files is bounded: a 256 MB field, a 256 MB part header and 10,000
// fields are each refused as invalid_request, and reading them costs
// this process (the server) under 16 MB.
func TestHostileFormsBounded(t *testing.T) {
	const b = formBoundary
	many := strings.Builder{}
	for i := 0; i < 10_000; i++ {
		many.WriteString("--" + b + "\r\nContent-Disposition: form-data; name=\"f" + strconv.Itoa(i) + "\"\r\n\r\nv\r\n")
	}
	many.WriteString("--" + b + "--\r\n")
	cases := map[string]io.Reader{
		"long field":  endless("--"+b+"\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\n", 256<<20, "\r\n--"+b+"--\r\n"),
		"long header": endless("--"+b+"\r\nContent-Disposition: form-data; name=\"", 256<<20, "\"\r\n\r\nv\r\n--"+b+"--\r\n"),
		"many fields": strings.NewReader(many.String()),
	}
	s := &Server{}
	for name, body := range cases {
		resetOwnPeakRSS(t)
		before := toolstest.PeakRSS(t, 0)
		_, err := s.readParts(context.Background(), body, b, &docmill.Tool{Slug: "x"}, "job", sizeLimit{}, discard{}, false)
		grew := toolstest.PeakRSS(t, 0) - before
		e := docmill.AsError(err)
		if err == nil || e.Code != docmill.CodeInvalidRequest {
			t.Errorf("%s: %v, want invalid_request", name, err)
		}
		t.Logf("%s: %v; peak RSS grew by %d KB", name, err, grew>>10)
		if grew > 16<<20 {
			t.Errorf("%s: peak RSS grew by %d MB, want under 16 MB", name, grew>>20)
		}
	}
}

// resetOwnPeakRSS resets this process's VmHWM to its current RSS.
func resetOwnPeakRSS(t testing.TB) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
}
