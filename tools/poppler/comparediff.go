package poppler

// editKind is what an edit script does with a word.
type editKind int8

const (
	editKeep   editKind = iota // the word is in both documents
	editDelete                 // only in the original
	editInsert                 // only in the changed document
)

// edit is one step of an edit script: a word of the original (a) or of
// the changed document (b), by index, or both for editKeep.
type edit struct {
	kind editKind
	a, b int
}

// diffWords returns an edit script turning a into b: one of the shortest
// (Myers' greedy algorithm) when it takes at most maxEdits deletions and
// insertions, and false otherwise. Common leading and trailing words are
// matched first, at no cost. Memory is O(len(a)+len(b)+maxEdits²), time
// O((len(a)+len(b))·maxEdits).
func diffWords(a, b []string, maxEdits int) ([]edit, bool) {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	mid, ok := myers(a[pre:len(a)-suf], b[pre:len(b)-suf], maxEdits)
	if !ok {
		return nil, false
	}
	script := make([]edit, 0, pre+len(mid)+suf)
	for i := range pre {
		script = append(script, edit{editKeep, i, i})
	}
	for _, e := range mid {
		script = append(script, edit{e.kind, e.a + pre, e.b + pre})
	}
	for i := range suf {
		script = append(script, edit{editKeep, len(a) - suf + i, len(b) - suf + i})
	}
	return script, true
}

// myers finds a shortest edit script of at most maxEdits steps from a
// to b. It keeps, for every edit count d, the furthest point reached on
// each diagonal k (x - y = k) in v[d], and walks back through them.
func myers(a, b []string, maxEdits int) ([]edit, bool) {
	n, m := len(a), len(b)
	if n+m > maxEdits && (n == 0 || m == 0) {
		return nil, false
	}
	var trace [][]int32 // trace[d][k+d]: furthest x on diagonal k after d edits
	prev := []int32{0}
	for d := 0; d <= min(n+m, maxEdits); d++ {
		v := make([]int32, 2*d+1)
		for k := -d; k <= d; k += 2 {
			var x int
			switch {
			case d == 0:
			case k == -d || (k != d && at(prev, d-1, k-1) < at(prev, d-1, k+1)):
				x = at(prev, d-1, k+1) // down: an insertion
			default:
				x = at(prev, d-1, k-1) + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[k+d] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, v)
				return backtrack(trace, n, m), true
			}
		}
		trace = append(trace, v)
		prev = v
	}
	return nil, false
}

// at returns v's entry for diagonal k after d edits, or -1 off its range.
func at(v []int32, d, k int) int {
	if d < 0 || k < -d || k > d {
		return -1
	}
	return int(v[k+d])
}

// backtrack reads the edit script out of myers' trace, from the end.
func backtrack(trace [][]int32, n, m int) []edit {
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		k := x - y
		if d == 0 {
			for x > 0 && y > 0 {
				x, y = x-1, y-1
				rev = append(rev, edit{editKeep, x, y})
			}
			break
		}
		prev := trace[d-1]
		var pk int
		if k == -d || (k != d && at(prev, d-1, k-1) < at(prev, d-1, k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(prev, d-1, pk)
		py := px - pk
		snakeFrom := px // where the snake after the edit starts
		if pk == k-1 {
			snakeFrom++
		}
		for x > snakeFrom {
			x, y = x-1, y-1
			rev = append(rev, edit{editKeep, x, y})
		}
		if pk == k+1 {
			rev = append(rev, edit{editInsert, x, y - 1})
		} else {
			rev = append(rev, edit{editDelete, x - 1, y})
		}
		x, y = px, py
	}
	out := make([]edit, len(rev))
	for i, e := range rev {
		out[len(rev)-1-i] = e
	}
	return out
}
