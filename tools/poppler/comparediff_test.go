package poppler

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLength is the textbook quadratic LCS, the reference diffWords'
// scripts are measured against on small inputs.
func lcsLength(a, b []string) int {
	prev := make([]int, len(b)+1)
	for i := range a {
		cur := make([]int, len(b)+1)
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev = cur
	}
	return prev[len(b)]
}

// checkScript fails unless script turns a into b, keeping equal words
// only, and takes exactly edits deletions and insertions.
func checkScript(t *testing.T, a, b []string, script []edit, edits int) {
	t.Helper()
	var gotA, gotB []string
	n := 0
	for _, e := range script {
		switch e.kind {
		case editKeep:
			if a[e.a] != b[e.b] {
				t.Fatalf("keeps %q as %q", a[e.a], b[e.b])
			}
			gotA, gotB = append(gotA, a[e.a]), append(gotB, b[e.b])
		case editDelete:
			gotA, n = append(gotA, a[e.a]), n+1
		case editInsert:
			gotB, n = append(gotB, b[e.b]), n+1
		}
	}
	if strings.Join(gotA, " ") != strings.Join(a, " ") || strings.Join(gotB, " ") != strings.Join(b, " ") {
		t.Fatalf("script %v does not spell %v and %v", script, a, b)
	}
	if n != edits {
		t.Fatalf("script of %d edits, want %d", n, edits)
	}
}

func TestDiffWordsShortest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := func() []string {
		out := make([]string, r.IntN(30))
		for i := range out {
			out[i] = string(rune('a' + r.IntN(4)))
		}
		return out
	}
	for range 500 {
		a, b := words(), words()
		script, ok := diffWords(a, b, 100)
		if !ok {
			t.Fatalf("%v -> %v: no script", a, b)
		}
		checkScript(t, a, b, script, len(a)+len(b)-2*lcsLength(a, b))
	}
}

func TestDiffWordsBounded(t *testing.T) {
	a := strings.Fields("one two three four five six")
	b := strings.Fields("uno dos tres cuatro cinco seis")
	if _, ok := diffWords(a, b, 11); ok {
		t.Fatal("a script of 12 edits within 11")
	}
	script, ok := diffWords(a, b, 12)
	if !ok {
		t.Fatal("no script within 12")
	}
	checkScript(t, a, b, script, 12)
}

func TestCompareTextPageByPage(t *testing.T) {
	// Past the edit bound the documents are diffed page by page: page 1
	// differs by one word, page 2 is wholly rewritten.
	var a, b []pageWord
	for i := range maxEditDistance {
		a = append(a, pageWord{page: 2, text: "old" + string(rune('a'+i%26))})
		b = append(b, pageWord{page: 2, text: "new" + string(rune('a'+i%26))})
	}
	a = append([]pageWord{{page: 1, text: "same"}, {page: 1, text: "quick"}}, a...)
	b = append([]pageWord{{page: 1, text: "same"}, {page: 1, text: "slow"}}, b...)
	c := compareText(a, b).counts()
	if c != (wordCounts{changed: 1 + maxEditDistance}) {
		t.Fatalf("counts %+v", c)
	}
}
