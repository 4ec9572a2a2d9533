package poppler

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Exit statuses of qpdf: 2 errors (the file could not be read), 3
// warnings only (it was read, with recovery).
const (
	qpdfExitErrors   = 2
	qpdfExitWarnings = 3
)

// columns returns the [start, end) byte ranges of the columns of a table
// whose header is underlined by dash runs ("---- -----").
func columns(dashes string) [][2]int {
	var cols [][2]int
	start := -1
	for i := 0; i <= len(dashes); i++ {
		dash := i < len(dashes) && dashes[i] == '-'
		switch {
		case dash && start < 0:
			start = i
		case !dash && start >= 0:
			cols = append(cols, [2]int{start, i})
			start = -1
		}
	}
	return cols
}

// addFonts reads pdffonts' table: name, type, encoding, emb, sub, uni,
// object ID. Its columns are fixed-width (a name or type may hold
// spaces), given by the dashes under the header.
func (r *report) addFonts(out []byte) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxInfoOutput)
	var cols [][2]int
	for sc.Scan() {
		line := sc.Text()
		if cols == nil {
			if strings.HasPrefix(line, "---") {
				cols = columns(line)
			}
			continue
		}
		if len(cols) < 6 {
			return
		}
		cell := func(i int) string {
			a, b := min(cols[i][0], len(line)), len(line)
			if i+1 < len(cols) {
				b = min(cols[i+1][0], len(line))
			}
			return strings.TrimSpace(line[a:b])
		}
		if len(r.Fonts) >= maxReportFonts {
			r.FontsOmitted++
			continue
		}
		r.Fonts = append(r.Fonts, reportFont{Name: cell(0), Type: cell(1), Encoding: cell(2),
			Embedded: cell(3) == "yes", Subset: cell(4) == "yes", Unicode: cell(5) == "yes"})
	}
}

// addImages reads pdfimages -list: page, num, type, width, height, color,
// comp, bpc, enc, interp, object, ID, x-ppi, y-ppi, size, ratio. Masks
// (smask, stencil) are not counted as images.
func (r *report) addImages(out []byte) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxInfoOutput)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 14 || f[2] != "image" {
			continue
		}
		n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		img := reportImage{Page: n(0), Width: n(3), Height: n(4), Color: f[5], Encoding: f[8], XPPI: n(12), YPPI: n(13)}
		if img.Page < 1 {
			continue // a header line
		}
		ppi := min(img.XPPI, img.YPPI)
		if r.Images.Count == 0 || ppi < r.Images.MinPPI {
			r.Images.MinPPI = ppi
		}
		r.Images.MaxPPI = max(r.Images.MaxPPI, max(img.XPPI, img.YPPI))
		r.Images.Count++
		if len(r.Images.List) >= maxReportImages {
			r.Images.Omitted++
			continue
		}
		r.Images.List = append(r.Images.List, img)
	}
}

// addQPDF runs qpdf --check, whose messages are the problems qpdf sees,
// and qpdf --json for the encryption and permissions. ok is whether qpdf
// could read the file.
func (r *report) addQPDF(ctx context.Context, qpdf *sandbox.Engine, src, dir string) (ok bool, err error) {
	res, err := qpdf.Run(ctx, sandbox.Cmd{Args: []string{"--check", src}, Dir: dir, MaxOutput: maxInfoOutput})
	var x *sandbox.ExitError
	switch {
	case err == nil:
		ok = true
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.As(err, &x) && x.Signal == "" && (x.Code == qpdfExitErrors || x.Code == qpdfExitWarnings):
		ok = x.Code == qpdfExitWarnings
		if strings.Contains(x.Stderr, "invalid password") {
			r.Encryption.Encrypted, r.Encryption.PasswordRequired = true, true
			return false, nil
		}
	default:
		return false, qpdfRunError(err, r)
	}
	if res != nil {
		for line := range strings.Lines(string(res.Stderr) + "\n" + string(res.Stdout)) {
			if strings.HasPrefix(line, "WARNING:") || strings.HasPrefix(line, "ERROR:") || strings.HasPrefix(line, "qpdf:") {
				r.problem("qpdf", line)
			}
		}
	}
	if !ok {
		return false, nil
	}
	res, err = qpdf.Run(ctx, sandbox.Cmd{Args: []string{"--json", "--json-key=encrypt", src}, Dir: dir, MaxOutput: maxInfoOutput})
	if err != nil && !(errors.As(err, &x) && x.Code == qpdfExitWarnings) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return true, qpdfRunError(err, r)
	}
	r.addEncryption(res.Stdout)
	return true, nil
}

// qpdfRunError is a qpdf run that ended neither with a reading nor with a
// refusal of the file: limits and timeouts are the file's problems, the
// rest is returned.
func qpdfRunError(err error, r *report) error {
	classified := sandbox.Classify(err, sandbox.Causes{Engine: "The qpdf engine", Refused: "qpdf could not read the file."})
	var e *docmill.Error
	if errors.As(classified, &e) && e.Code != docmill.CodeInternal && e.Code != docmill.CodeEngineUnavailable {
		r.problem("qpdf", e.Message)
		return nil
	}
	return classified
}

// addEncryption reads qpdf's JSON "encrypt" key.
func (r *report) addEncryption(out []byte) {
	var doc struct {
		Encrypt struct {
			Encrypted    bool            `json:"encrypted"`
			Capabilities map[string]bool `json:"capabilities"`
			Parameters   struct {
				Method string `json:"method"`
				Bits   int    `json:"bits"`
			} `json:"parameters"`
		} `json:"encrypt"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		r.problem("qpdf", "qpdf's report of the encryption could not be read")
		return
	}
	e := doc.Encrypt
	r.Encryption.Encrypted = e.Encrypted
	if !e.Encrypted {
		return
	}
	// qpdf names the methods by their handlers: AESv3 is AES-256 (PDF 2.0,
	// R6), AESv2 AES-128, RC4 of 40 to 128 bits.
	switch m := e.Parameters.Method; m {
	case "AESv3":
		r.Encryption.Method = "AES-256"
	case "AESv2":
		r.Encryption.Method = "AES-128"
	default:
		r.Encryption.Method = m + "-" + strconv.Itoa(e.Parameters.Bits)
	}
	r.Encryption.Permissions = map[string]bool{}
	for qpdfName, name := range map[string]string{
		"printhigh": "print_high_quality", "printlow": "print", "extract": "copy", "accessibility": "accessibility",
		"modify": "modify", "modifyannotations": "annotate", "modifyforms": "fill_forms", "modifyassembly": "assemble",
	} {
		r.Encryption.Permissions[name] = e.Capabilities[qpdfName]
	}
}
