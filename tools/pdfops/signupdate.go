package pdfops

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// This file writes an incremental update (ISO 32000-1, 7.5.6): objects
// appended after a document's bytes, which stay as they were, with a
// cross-reference section of the same kind as the document's last one
// (a classic table, or a cross-reference stream) that points back at it.

// incrementalUpdate is the bytes appended to a document of base bytes:
// new and rewritten objects, then the cross-reference section.
type incrementalUpdate struct {
	base    int64 // the offset of buf's first byte in the signed file
	buf     bytes.Buffer
	next    int           // number of the next new object
	offsets map[int]int64 // object number: its offset in the file
	gens    map[int]int   // object number: its generation
}

// newIncrementalUpdate starts an update of a document of size bytes whose
// trailer /Size is objects; lead is written first (a line break if the
// document does not end with one).
func newIncrementalUpdate(size int64, objects int, lead string) *incrementalUpdate {
	u := &incrementalUpdate{base: size, next: objects, offsets: map[int]int64{}, gens: map[int]int{}}
	u.buf.WriteString(lead)
	return u
}

// reserve returns the number of a new object, to be written later.
func (u *incrementalUpdate) reserve() int {
	n := u.next
	u.next++
	return n
}

// offset is the file offset of what is written next.
func (u *incrementalUpdate) offset() int64 { return u.base + int64(u.buf.Len()) }

// writeObject writes object nr, generation gen, whose body is body (a PDF
// object in its text form).
func (u *incrementalUpdate) writeObject(nr, gen int, body string) {
	u.offsets[nr], u.gens[nr] = u.offset(), gen
	fmt.Fprintf(&u.buf, "%d %d obj\n%s\nendobj\n", nr, gen, body)
}

// writeStream writes stream object nr (generation 0): dict, completed
// with the /Length of data, and data, which is already encoded as dict's
// /Filter says.
func (u *incrementalUpdate) writeStream(nr int, dict types.Dict, data []byte) {
	d := dict.Clone().(types.Dict)
	d["Length"] = types.Integer(len(data))
	u.offsets[nr], u.gens[nr] = u.offset(), 0
	fmt.Fprintf(&u.buf, "%d 0 obj\n%s\nstream\n", nr, d.PDFString())
	u.buf.Write(data)
	u.buf.WriteString("\nendstream\nendobj\n")
}

// trailerEntries are what the update's trailer repeats of the document's.
type trailerEntries struct {
	root, info *types.IndirectRef
	id         types.Array
	prev       int64 // the offset of the document's last cross-reference section
}

// finish writes the cross-reference section, as a stream when stream is
// set, and the trailer, and returns the update's bytes.
func (u *incrementalUpdate) finish(t trailerEntries, stream bool) []byte {
	entries := func(d types.Dict) {
		// /Size is one more than the highest object number in use. The
		// update's objects are numbered from the document's /Size up, but
		// it also rewrites objects of the document, whose numbers a hostile
		// file chooses: the count covers every object written.
		size := u.next
		for nr := range u.offsets {
			size = max(size, nr+1)
		}
		d["Size"] = types.Integer(size)
		d["Root"] = *t.root
		if t.info != nil {
			d["Info"] = *t.info
		}
		if len(t.id) == 2 {
			d["ID"] = t.id
		}
		d["Prev"] = types.Integer(t.prev)
	}
	if stream {
		nr := u.reserve()
		at := u.offset()
		u.offsets[nr], u.gens[nr] = at, 0
		// Fields are 4 bytes for offsets and 2 for generations, wider when
		// a value needs it: a document's object keeps the generation the
		// document gave it, which its own cross-reference stream may have
		// held in more than 2 bytes.
		offW, genW := 4, 2
		for n, off := range u.offsets {
			offW, genW = max(offW, byteWidth(uint64(off))), max(genW, byteWidth(uint64(u.gens[n])))
		}
		var data []byte
		var index types.Array
		for _, run := range u.runs() {
			index = append(index, types.Integer(run[0]), types.Integer(run[1]))
			for n := run[0]; n < run[0]+run[1]; n++ {
				data = append(data, 1)
				data = appendBigEndian(data, uint64(u.offsets[n]), offW)
				data = appendBigEndian(data, uint64(u.gens[n]), genW)
			}
		}
		d := types.Dict{"Type": types.Name("XRef"), "W": types.Array{types.Integer(1), types.Integer(offW), types.Integer(genW)}, "Index": index}
		entries(d)
		u.writeStream(nr, d, data)
		fmt.Fprintf(&u.buf, "startxref\n%d\n%%%%EOF\n", at)
		return u.buf.Bytes()
	}
	at := u.offset()
	u.buf.WriteString("xref\n")
	for _, run := range u.runs() {
		fmt.Fprintf(&u.buf, "%d %d\n", run[0], run[1])
		for n := run[0]; n < run[0]+run[1]; n++ {
			fmt.Fprintf(&u.buf, "%010d %05d n \n", u.offsets[n], u.gens[n])
		}
	}
	d := types.Dict{}
	entries(d)
	fmt.Fprintf(&u.buf, "trailer\n%s\nstartxref\n%d\n%%%%EOF\n", d.PDFString(), at)
	return u.buf.Bytes()
}

// byteWidth returns the bytes n takes, big-endian, without leading zero
// bytes.
func byteWidth(n uint64) int {
	w := 1
	for n > 0xff {
		n >>= 8
		w++
	}
	return w
}

// appendBigEndian appends n to b in width bytes, most significant first.
func appendBigEndian(b []byte, n uint64, width int) []byte {
	for i := width - 1; i >= 0; i-- {
		b = append(b, byte(n>>(8*i)))
	}
	return b
}

// runs returns the written objects' numbers as runs of consecutive
// numbers: first number, count.
func (u *incrementalUpdate) runs() [][2]int {
	nrs := make([]int, 0, len(u.offsets))
	for n := range u.offsets {
		nrs = append(nrs, n)
	}
	slices.Sort(nrs)
	var out [][2]int
	for _, n := range nrs {
		if len(out) > 0 && out[len(out)-1][0]+out[len(out)-1][1] == n {
			out[len(out)-1][1]++
			continue
		}
		out = append(out, [2]int{n, 1})
	}
	return out
}

// lastXRef is where a document's last cross-reference section is, and
// its kind.
type lastXRef struct {
	offset int64
	stream bool
	nr     int // the stream's object number
}

// startXRefPattern finds the last startxref keyword and its offset.
var startXRefPattern = regexp.MustCompile(`startxref\s+(\d+)`)

// objectHeaderPattern is an indirect object's header, "12 0 obj".
var objectHeaderPattern = regexp.MustCompile(`^\s*(\d+)\s+\d+\s+obj\b`)

// errXRefDamaged is a document whose last startxref does not point at a
// cross-reference section; the document must be repaired (rewritten)
// before anything can be appended to it.
var errXRefDamaged = errors.New("pdfops: the last startxref does not point at a cross-reference section")

// findLastXRef reads the tail of the file f of size bytes for its last
// startxref and checks that it points at a cross-reference table or
// stream.
func findLastXRef(f io.ReaderAt, size int64) (lastXRef, error) {
	const tail = 2048
	start := max(0, size-tail)
	buf := make([]byte, size-start)
	if _, err := f.ReadAt(buf, start); err != nil && err != io.EOF {
		return lastXRef{}, err
	}
	all := startXRefPattern.FindAllSubmatch(buf, -1)
	if len(all) == 0 {
		return lastXRef{}, errXRefDamaged
	}
	off, err := strconv.ParseInt(string(all[len(all)-1][1]), 10, 64)
	if err != nil || off <= 0 || off >= size {
		return lastXRef{}, errXRefDamaged
	}
	head := make([]byte, min(1024, size-off))
	if _, err := f.ReadAt(head, off); err != nil && err != io.EOF {
		return lastXRef{}, err
	}
	switch {
	case bytes.HasPrefix(bytes.TrimLeft(head, " \t\r\n\f\x00"), []byte("xref")):
		return lastXRef{offset: off}, nil
	case bytes.Contains(head, []byte("/XRef")):
		if m := objectHeaderPattern.FindSubmatch(head); m != nil {
			if nr, err := strconv.Atoi(string(m[1])); err == nil {
				return lastXRef{offset: off, stream: true, nr: nr}, nil
			}
		}
	}
	return lastXRef{}, errXRefDamaged
}

// maxXRefFieldBytes bounds a field of a cross-reference stream entry:
// offsets and numbers past 8 bytes are past what a reader holds.
const maxXRefFieldBytes = 8

// checkXRefStream checks that the cross-reference stream object nr of
// doc, the one its last startxref points at, can be read as ISO 32000-1
// (7.5.8) says: /W three widths of 0 to 8 bytes, not all 0; /Index pairs
// of a first number and a count, within /Size; and data enough for the
// entries. pdfcpu reads a document whose stream is not so by scanning the
// file for its objects, and says nothing; but an update points back at
// that stream (/Prev), which readers follow, and they would find the
// signed file damaged (poppler finds no page tree). Such a document is
// damaged (errXRefDamaged): it must be repaired before it is signed.
func checkXRefStream(doc *model.Context, nr int) error {
	e, ok := doc.Find(nr)
	if !ok || e == nil || e.Free {
		return errXRefDamaged
	}
	var sd types.StreamDict
	switch o := e.Object.(type) {
	case types.XRefStreamDict: // read as the cross-reference stream
		sd = o.StreamDict
	case types.StreamDict: // found by scanning the file
		sd = o
	default:
		return errXRefDamaged
	}
	size, ok := sd.Dict["Size"].(types.Integer)
	if !ok || size < 0 {
		return errXRefDamaged
	}
	w, ok := sd.Dict["W"].(types.Array)
	if !ok || len(w) != 3 {
		return errXRefDamaged
	}
	width := 0
	for _, o := range w {
		n, ok := o.(types.Integer)
		if !ok || n < 0 || n > maxXRefFieldBytes {
			return errXRefDamaged
		}
		width += n.Value()
	}
	index := types.Array{types.Integer(0), size}
	if o, ok := sd.Dict["Index"]; ok {
		if index, ok = o.(types.Array); !ok || len(index)%2 != 0 {
			return errXRefDamaged
		}
	}
	entries := int64(0)
	for i := 0; i < len(index); i += 2 {
		first, ok1 := index[i].(types.Integer)
		count, ok2 := index[i+1].(types.Integer)
		if !ok1 || !ok2 || first < 0 || count < 0 || int64(first)+int64(count) > int64(size) {
			return errXRefDamaged
		}
		entries += int64(count)
	}
	if width == 0 {
		return errXRefDamaged
	}
	// The entries are within /Size, so their data is bounded too; it is
	// decoded within the run's budget for one stream.
	if err := sd.Decode(); err != nil || int64(len(sd.Content)) < entries*int64(width) {
		return errXRefDamaged
	}
	return nil
}

// sigText returns s as a PDF text string: a literal string when it is
// printable ASCII, else UTF-16BE with a byte order mark, in hex.
func sigText(s string) string {
	ascii := true
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			ascii = false
			break
		}
	}
	if ascii {
		r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
		return "(" + r.Replace(s) + ")"
	}
	var b strings.Builder
	b.WriteString("<feff")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04x", u)
	}
	b.WriteString(">")
	return b.String()
}

// copyFileTo appends the file at path to w.
func copyFileTo(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("pdfops: open input: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("pdfops: copy input: %w", err)
	}
	return nil
}

// damagedXRef is the error of a document whose cross-reference data is
// damaged: unreadable, so that the server repairs it (rewrites it, which
// loses the signatures it may hold) and signs the repair.
func damagedXRef(err error) error {
	return docmill.InvalidDocument(fmt.Errorf("%w: %w", docmill.ErrUnreadable, err),
		"The PDF's cross-reference data is damaged, so a signature cannot be appended to it; repair it (repair-pdf) and try again.")
}
