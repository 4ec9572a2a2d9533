package office

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ziplimit"
)

// Tools returns word-to-pdf, excel-to-pdf, powerpoint-to-pdf and
// convert-document, all served by p.
func (p *Pool) Tools() []*docmill.Tool {
	return []*docmill.Tool{
		p.tool(text, "word-to-pdf", "Word to PDF", "Convert Word, OpenDocument text, RTF and plain-text documents (doc, docx, odt, rtf, txt) to PDF.", "writer_pdf_Export"),
		p.tool(spreadsheet, "excel-to-pdf", "Excel to PDF", "Convert spreadsheets (xls, xlsx, ods, csv) to PDF.", "calc_pdf_Export"),
		p.tool(presentation, "powerpoint-to-pdf", "PowerPoint to PDF", "Convert presentations (ppt, pptx, odp) to PDF.", "impress_pdf_Export"),
		p.ConvertTool(),
	}
}

func (p *Pool) tool(f family, slug, title, desc, export string) *docmill.Tool {
	return &docmill.Tool{
		Slug: slug, Title: title, Description: desc,
		Lane:     docmill.LaneOffice,
		Meta:     []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the PDF made."}, {Name: "engine", Type: docmill.MetaString, Description: "The engine that converted it."}, {Name: "engine_version", Type: docmill.MetaString, Description: "The engine's version."}, {Name: "input_format", Type: docmill.MetaString, Description: "The input's format, by its extension (docx, odt, ...)."}},
		Accepts:  accepts(f),
		Outputs:  []string{"application/pdf"},
		MinFiles: 1, MaxFiles: 1,
		Params: []docmill.Param{{
			Name: paramPages, Type: docmill.TypePages,
			Description: `Pages of the PDF to keep, such as "1-3,5,8-" (default: all).`,
		}},
		Engine: engineName,
		// The wait for a free worker plus one conversion.
		Timeout:   2*p.opts.Timeout + startTimeout,
		Rates:     rates(p.opts),
		Available: p.Available,
		Engines:   p.Status,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return p.run(ctx, in, f, export)
		},
	}
}

// run converts the single input of in.
func (p *Pool) run(ctx context.Context, in *docmill.RunInput, f family, export string) (*docmill.RunOutput, error) {
	if !p.ok {
		return nil, unavailable(p.whyNot)
	}
	file := in.Files[0]
	k, err := detect(file.Path, f, p.opts.Limits)
	if err != nil {
		return nil, err
	}
	if err := checkArchive(file.Path, p.opts.Limits); err != nil {
		return nil, err
	}
	out, err := p.stageAndConvert(ctx, in.WorkDir, file.Path, k, p.cellBound(k, job{Export: export, Fresh: in.FreshEngines}), "pdf")
	if err != nil {
		return nil, err
	}
	out, pages, err := p.selectPages(ctx, in.WorkDir, out, in.Params.String(paramPages))
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path: out, Filename: docmill.ResultName(file.Filename, "", ".pdf"), ContentType: "application/pdf",
		Meta: map[string]any{"pages": pages, "engine": engineName, "engine_version": p.soffice.Version(), "input_format": k.ext},
	}, nil
}

// cellBound returns j bounded to the pool's Limits.SheetCells when k is
// a spreadsheet (counted over all its sheets, as a PDF shows them all).
func (p *Pool) cellBound(k kind, j job) job {
	if k.fam == spreadsheet {
		j.MaxCells = p.opts.Limits.SheetCells
	}
	return j
}

// checkArchive refuses an OOXML or ODF document (a zip archive: the
// files detect sends to detectZip) that breaks l's archive limits, before
// any worker is taken or started: LibreOffice inflates a document's parts
// in memory, so a bomb would grow soffice by gigabytes. Other inputs pass.
func checkArchive(path string, l docmill.Limits) error {
	f, err := os.Open(path)
	if err != nil {
		return docmill.Internal(err)
	}
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if !bytes.Equal(head[:n], []byte("PK\x03\x04")) {
		return nil
	}
	return ziplimit.CheckFile(path, l)
}

// convert takes a free worker (waiting for one within ctx), runs j on it
// under the conversion deadline, and gives the worker back, replacing it
// when it broke, overran or served its MaxConversions. For j.Fresh, the
// worker is started again first unless it has not converted yet: the
// document goes to a cold soffice with a fresh profile, jailed as every
// worker, and the pool still runs no more soffice than its Workers.
//
// A worker that died converting is an engine failure: soffice's death by
// a signal is Classify's (docmill.EngineFailure, for the crash rule), any
// other death internal.
func (p *Pool) convert(ctx context.Context, j job) error {
	w, err := p.acquire(ctx)
	if err != nil {
		return err
	}
	if j.Fresh && w.uses > 0 {
		w.kill()
		if err := w.start(p); err != nil {
			w.broken = true
			p.idle <- w
			return docmill.Internal(err)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	err = w.convert(cctx, j, p.soffice.Jail())
	if w.broken || w.uses >= p.opts.MaxConversions {
		go p.restart(w)
	} else {
		p.idle <- w
	}
	var le *loadError
	var ce *cellsError
	var x *sandbox.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &le):
		return docmill.InvalidDocument(err, "LibreOffice could not open the document: it is damaged, password-protected or not the format it claims to be.")
	case errors.As(err, &ce):
		e := docmill.LimitExceeded(fmt.Sprintf("The spreadsheet spans more than %d cells (a sheet of %d rows by %d columns, counted from A1 whether used or not)", j.MaxCells, ce.rows, ce.cols))
		e.Err = err
		return e
	case ctx.Err() != nil:
		return ctx.Err() // the job's own cancel or deadline
	case errors.Is(err, context.DeadlineExceeded):
		e := docmill.Errorf(docmill.CodeProcessingTimeout, "The conversion took longer than %s.", p.opts.Timeout)
		e.Err = err
		return e
	case errors.As(err, &x) && x.KilledBy() != "":
		return sandbox.Classify(err, sofficeCauses)
	default:
		return docmill.Internal(err)
	}
}

// acquire returns a running worker, starting it again if it died while
// idle (or failed to start).
func (p *Pool) acquire(ctx context.Context) (*worker, error) {
	select {
	case w := <-p.idle:
		select {
		case <-p.closed:
			p.idle <- w
			return nil, unavailable(errClosed.Error())
		default:
		}
		if w.alive() {
			return w, nil
		}
		return p.startFor(ctx, w)
	case <-p.closed:
		return nil, unavailable(errClosed.Error())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// startFor starts w for a job. A job canceled meanwhile returns at once;
// the start goes on in the background, and the worker then waits, warm,
// for the next job.
func (p *Pool) startFor(ctx context.Context, w *worker) (*worker, error) {
	w.kill()
	started := make(chan error, 1)
	go func() { started <- w.start(p) }()
	select {
	case err := <-started:
		if err != nil {
			w.broken = true
			p.idle <- w
			return nil, docmill.Internal(err)
		}
		return w, nil
	case <-ctx.Done():
		go func() {
			if <-started != nil {
				w.broken = true
			}
			p.idle <- w
		}()
		return nil, ctx.Err()
	}
}

// sofficeCauses are what soffice's deaths mean to Classify: an abort for
// memory refused by the jail's cap is a processing limit.
var sofficeCauses = sandbox.Causes{
	Engine:  "The LibreOffice engine",
	Refused: "LibreOffice could not convert the document within this server's memory limit (a processing limit was exceeded).",
}

func unavailable(why string) error {
	e := docmill.Errorf(docmill.CodeEngineUnavailable, "The LibreOffice engine is not available on this server; please retry later.")
	e.Err = errors.New(why)
	return e
}

// selectPages counts the PDF's pages and, when pages selects some, keeps
// only those (in the order given), in the PDF helper. Selecting after
// export keeps one code path for all three families and gives the client
// the document's real page count when a range runs past it. It returns the
// path of the result.
func (p *Pool) selectPages(ctx context.Context, workDir, path, pages string) (string, int, error) {
	if p.opts.SelectPages == nil {
		return path, 0, nil
	}
	params := docmill.Params{}
	if pages != "" {
		params["pages"] = pages
	}
	out, err := p.opts.SelectPages(ctx, &docmill.RunInput{
		Files:   []docmill.LocalFile{{Path: path, Filename: filepath.Base(path), ContentType: "application/pdf"}},
		Params:  params,
		WorkDir: workDir,
		Limits:  p.opts.Limits,
	})
	if err != nil {
		return "", 0, err
	}
	n, _ := strconv.Atoi(fmt.Sprint(out.Meta["pages"]))
	return out.Path, n, nil
}

// rates size a run's time to its document (docmill.WorkBudget): its base
// is the wait for a free worker, which may have to start (o.Timeout plus
// startTimeout), and the conversion is allowed a minute a MiB on top,
// within the tools' timeout.
func rates(o Options) docmill.WorkRates {
	return docmill.WorkRates{Base: o.Timeout + startTimeout, PerMB: time.Minute}
}
