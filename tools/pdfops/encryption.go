package pdfops

import (
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/docmill/docmill"
)

// An encrypted file that opens without a password (one whose owner only
// restricts printing, copying or changes) is processed like any other by
// the tools that copy or merge pages, as qpdf does: what they make keeps
// the source's encryption (the same key, owner password and permissions),
// so the author's restrictions are neither lost silently nor lifted.
// unlock-pdf removes them openly; protect-pdf replaces them with the
// caller's. A file that needs a password to open is refused.

// encrypted reports whether doc was read from an encrypted file.
func encrypted(doc *model.Context) bool {
	return doc.Encrypt != nil && doc.EncKey != nil && doc.E != nil
}

// carryEncryption makes to, a document built from from's pages, be
// written encrypted as from was: with a copy of its encryption dictionary,
// its key and its file identifier (from which keys of the older security
// handlers are derived). A from that was not encrypted changes nothing.
func carryEncryption(from, to *model.Context) error {
	if !encrypted(from) {
		return nil
	}
	d, err := from.EncryptDict()
	if err != nil {
		return docmill.InvalidDocument(err, "The file's encryption could not be read: it is damaged.")
	}
	ref, err := to.IndRefForNewObject(d.Clone())
	if err != nil {
		return docmill.InvalidDocument(err, "The file's encryption could not be kept.")
	}
	e := *from.E
	to.Encrypt = ref
	to.E = &e
	to.EncKey = slices.Clone(from.EncKey)
	to.AES4Strings = from.AES4Strings
	to.AES4Streams = from.AES4Streams
	to.AES4EmbeddedStreams = from.AES4EmbeddedStreams
	if id, ok := from.ID.Clone().(types.Array); ok {
		to.ID = id
	}
	if to.Read == nil {
		// A document built in memory has no read context, which the writer
		// of an encrypted document asks whether to keep cross-reference
		// streams; with one, it also logs statistics it keeps in Optimize.
		to.Read = &model.ReadContext{}
		if to.Optimize == nil {
			to.Optimize = &model.OptimizationContext{}
		}
	}
	return nil
}

// mergedEncryption picks, of the documents being merged, the one whose
// encryption the merged document keeps: the first encrypted one, or nil
// when none is. Encrypted documents whose permissions differ are refused,
// since the merged document can carry only one set.
func mergedEncryption(docs []*model.Context) (*model.Context, error) {
	var first *model.Context
	for _, d := range docs {
		if !encrypted(d) {
			continue
		}
		if first == nil {
			first = d
			continue
		}
		if d.E.P != first.E.P {
			return nil, docmill.InvalidDocument(nil, "The files restrict printing, copying or changes differently, and one merged document can keep only one set of restrictions. Remove them (unlock-pdf) from the files first.")
		}
	}
	return first, nil
}
