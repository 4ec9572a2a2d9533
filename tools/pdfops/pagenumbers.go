package pdfops

import (
	"context"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/color"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// Placeholders of the page-numbers format.
const (
	pageNumberPlaceholder = "{n}"
	pageTotalPlaceholder  = "{total}"
)

func pageNumbersTool() *docmill.Tool {
	return pagesTool(docmill.Tool{
		Slug:        "page-numbers",
		Title:       "Add page numbers",
		Description: "Print page numbers, such as \"3\" or \"3 / 12\", in the header or footer of all or some pages of a PDF.",
		Params: []docmill.Param{
			{
				Name:        positionParam,
				Type:        docmill.TypeString,
				Description: "Where the number goes, about 1 cm from the page edges.",
				Enum:        stampPositionNames(true),
				Default:     "bottom-center",
			},
			{
				Name: startParam,
				Type: docmill.TypeInteger,
				Description: "The number printed on the first numbered page. Later pages count on by their " +
					"position, so a page left out of pages keeps its place in the count.",
				Min:     docmill.Bound(0),
				Max:     docmill.Bound(docmill.MaxPageNumber),
				Default: "1",
			},
			{
				Name: formatParam,
				Type: docmill.TypeString,
				Description: "The text printed: {n} is the page's number, {total} the number of the last numbered " +
					"page; any other text is kept, as in \"Page {n} of {total}\". Latin, Greek or Cyrillic.",
				Max:     docmill.Bound(100),
				Default: pageNumberPlaceholder,
				Check:   func(v string) error { return checkStampParam("format", v, requirePageNumber) },
			},
			{
				Name:        fontSizeParam,
				Type:        docmill.TypeInteger,
				Description: "Font size in points.",
				Min:         docmill.Bound(6),
				Max:         docmill.Bound(72),
				Default:     "12",
			},
		},
		Available: stampFontAvailable,
	}, numbered, `Pages that get a number, such as "2-" to leave out a cover`, model.ADDWATERMARKS, runPageNumbers)
}

// pageNumbering is the validated settings of a page-numbers run.
type pageNumbering struct {
	stamp    textStamp // everything but the text
	format   string
	start    int
	fontSize int
}

// runPageNumbers prints a number on each selected page.
//
// Numbering follows page positions: the first selected page shows start,
// and page p shows start + (p - first selected page). Contiguous
// selections therefore count 1, 2, 3, ...; a page left out in the middle
// keeps its place in the count, as unnumbered plates do in a book. {total}
// is the number shown on the last selected page, so "{n} / {total}" ends
// on "12 / 12" whatever start and pages are.
func runPageNumbers(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	pn := pageNumberSettings(in.Params)
	job := stampJob{action: numbered, plan: pn.plan}
	return job.run(ctx, in, b, doc)
}

// requirePageNumber refuses a format without the {n} placeholder.
func requirePageNumber(format string) error {
	if !strings.Contains(format, pageNumberPlaceholder) {
		return docmill.ParamError(formatParam, "must contain %s where the page number goes, such as \"Page {n} of {total}\"", pageNumberPlaceholder)
	}
	return nil
}

// pageNumberSettings reads the validated params: the format's Check
// already ran the font and placeholder checks.
func pageNumberSettings(p docmill.Params) pageNumbering {
	pn := pageNumbering{start: p.Int(startParam), fontSize: p.Int(fontSizeParam), format: stampLineBreaks(p.String(formatParam))}
	pn.stamp.spot = stampSpotNamed(p.String(positionParam))
	pn.stamp.color = color.Black
	pn.stamp.opacity = 1
	pn.stamp.onTop = true
	return pn
}

// text returns what page p shows, first and last being the first and last
// selected pages.
func (pn pageNumbering) text(p, first, last int) string {
	return strings.NewReplacer(
		pageNumberPlaceholder, strconv.Itoa(pn.start+p-first),
		pageTotalPlaceholder, strconv.Itoa(pn.start+last-first),
	).Replace(pn.format)
}

// plan gives each selected page its own stamp, since each shows its own
// number.
func (pn pageNumbering) plan(pages []int, sizes []stampPage) (map[int]*model.Watermark, error) {
	m := make(map[int]*model.Watermark, len(pages))
	first, last := pages[0], pages[len(pages)-1]
	for _, p := range pages {
		st := pn.stamp
		st.text = pn.text(p, first, last)
		pl, err := st.place(pn.fontSize, sizes[p-1])
		if err != nil {
			return nil, err
		}
		m[p] = st.watermark(pl)
	}
	return m, nil
}
