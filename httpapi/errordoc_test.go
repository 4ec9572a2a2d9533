package httpapi

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestErrorCodesDocumented: every error code error.go declares has a row
// in the table of codes of docs/api.md (its section Errors), with the status statusOf gives it, and
// the table names no code that does not exist.
func TestErrorCodesDocumented(t *testing.T) {
	codes := declaredCodes(t)
	doc, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, errorsSection, _ := strings.Cut(string(doc), "\n## Errors\n")
	errorsSection, _, _ = strings.Cut(errorsSection, "\n## ")
	rows := map[string]string{} // code -> its status cell
	for _, line := range strings.Split(errorsSection, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		if _, err := strconv.Atoi(strings.TrimSpace(cells[2])); err == nil {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = strings.TrimSpace(cells[2])
		}
	}
	for name, code := range codes {
		status, ok := rows[string(code)]
		if !ok {
			t.Errorf("docs/api.md's table of codes has no row for %s (docmill.%s)", code, name)
			continue
		}
		if want := strconv.Itoa(StatusOf(code)); status != want {
			t.Errorf("docs/api.md gives %s the status %s; the code answers %s", code, status, want)
		}
	}
	if len(rows) != len(codes) {
		t.Errorf("docs/api.md's table of codes has %d rows; error.go declares %d codes", len(rows), len(codes))
	}
}
