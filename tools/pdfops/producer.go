package pdfops

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// pdfcpuProducer is the Producer pdfcpu writes into every Info dictionary.
var pdfcpuProducer = "pdfcpu " + model.VersionStr

// useXRefTable makes pdfcpu write doc with a cross-reference table and
// no object streams, so that appendProducer can add an update of the same
// kind (a table after an xref stream would make a hybrid file that
// strict readers refuse).
func useXRefTable(doc *model.Context) {
	doc.Configuration.WriteXRefStream = false
	doc.Configuration.WriteObjectStream = false
}

// appendProducer appends to the PDF at path, which doc was just written
// to (after useXRefTable), an incremental update replacing its Info
// dictionary by the same one with Producer set to producer. pdfcpu has
// no option to keep a Producer: it overwrites it on every write, so it
// is set afterwards, as any editor's incremental save would. A document
// without an Info dictionary (PDF 2.0 deprecates it) is left as it is:
// its XMP states the producer. doc must not be encrypted, since the
// update is written in the clear.
func appendProducer(path string, doc *model.Context, producer string) error {
	s, err := types.EscapedUTF16String(producer)
	if err != nil {
		return err
	}
	return appendInfo(path, doc, types.Dict{"Producer": types.StringLiteral(*s)})
}

// appendInfo is appendProducer's update with the entries of set put in
// the Info dictionary: pdfcpu also sets CreationDate and ModDate to the
// moment it writes, which an XMP packet written before cannot know.
func appendInfo(path string, doc *model.Context, set types.Dict) error {
	if doc.Info == nil {
		return nil
	}
	info, err := doc.DereferenceDict(*doc.Info)
	if err != nil || info == nil {
		return fmt.Errorf("pdfops: the written Info dictionary: %v", err)
	}
	for k, v := range set {
		info[k] = v
	}

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("pdfops: open output: %w", err)
	}
	defer f.Close()
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("pdfops: output size: %w", err)
	}
	prev, err := lastStartXRef(f, end)
	if err != nil {
		return err
	}
	if doc.Size == nil || doc.Root == nil {
		return fmt.Errorf("pdfops: no trailer written")
	}
	ref := *doc.Info
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %d obj\n%s\nendobj\n", ref.ObjectNumber, ref.GenerationNumber, info.PDFString())
	xref := end + int64(b.Len())
	fmt.Fprintf(&b, "xref\n%d 1\n%010d %05d n \n", ref.ObjectNumber, end, ref.GenerationNumber)
	trailer := types.Dict{"Size": types.Integer(*doc.Size), "Root": *doc.Root, "Info": ref, "Prev": types.Integer(prev)}
	if doc.ID != nil {
		trailer["ID"] = doc.ID
	}
	fmt.Fprintf(&b, "trailer\n%s\nstartxref\n%d\n%%%%EOF\n", trailer.PDFString(), xref)
	if _, err := f.Write(b.Bytes()); err != nil {
		return fmt.Errorf("pdfops: append Info update: %w", err)
	}
	return f.Close()
}

// lastStartXRef returns the offset the last startxref of the file of size
// end names: pdfcpu's own, in the file's last bytes.
func lastStartXRef(f *os.File, end int64) (int64, error) {
	tail := make([]byte, min(end, 1024))
	if _, err := f.ReadAt(tail, end-int64(len(tail))); err != nil {
		return 0, fmt.Errorf("pdfops: read output tail: %w", err)
	}
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return 0, fmt.Errorf("pdfops: no startxref in the written file")
	}
	fields := bytes.Fields(tail[i+len("startxref"):])
	if len(fields) == 0 {
		return 0, fmt.Errorf("pdfops: no offset after startxref")
	}
	return strconv.ParseInt(string(fields[0]), 10, 64)
}
