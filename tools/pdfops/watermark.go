package pdfops

import (
	"context"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

func watermarkTool() *docmill.Tool {
	return pagesTool(docmill.Tool{
		Slug:        "watermark-pdf",
		Title:       "Watermark PDF",
		Description: "Stamp text over or under the content of all or some pages of a PDF, as real, searchable text.",
		Params: []docmill.Param{
			{
				Name: textParam,
				Type: docmill.TypeString,
				Description: "The watermark text: Latin, Greek or Cyrillic. A line break, or the two characters \\n, " +
					"starts a new line.",
				Required: true,
				Min:      docmill.Bound(1),
				Max:      docmill.Bound(200),
				Example:  "DRAFT",
				Check:    func(v string) error { return checkStampParam("text", v, requireInk) },
			},
			{
				Name:        opacityParam,
				Type:        docmill.TypeNumber,
				Description: "From 0 (invisible) to 1 (opaque).",
				Min:         docmill.Bound(0),
				Max:         docmill.Bound(1),
				Default:     "0.3",
			},
			{
				Name:        rotationParam,
				Type:        docmill.TypeNumber,
				Description: "Angle of the text in degrees, counter-clockwise; 45 runs from bottom left to top right.",
				Min:         docmill.Bound(-180),
				Max:         docmill.Bound(180),
				Default:     "45",
			},
			{
				Name: fontSizeParam,
				Type: docmill.TypeInteger,
				Description: "Font size in points. By default the text is sized to each page: " +
					"three quarters of it (at most 144 pt) when centered, 30% (at most 72 pt) elsewhere.",
				Min: docmill.Bound(6),
				Max: docmill.Bound(300),
			},
			{
				Name:        colorParam,
				Type:        docmill.TypeColor,
				Description: "Text colour as #rrggbb.",
				Default:     "#808080",
			},
			{
				Name:        positionParam,
				Type:        docmill.TypeString,
				Description: "Where on the page the text goes; away from the center it keeps a margin of about 1 cm.",
				Enum:        stampPositionNames(false),
				Default:     "center",
			},
			{
				Name:        layerParam,
				Type:        docmill.TypeString,
				Description: "over: on top of the page content (visible on scanned pages); under: behind it.",
				Enum:        []string{"over", "under"},
				Default:     "over",
			},
		},
		Available: stampFontAvailable,
	}, watermarked, `Pages to watermark, such as "1-3,5,8-"`, model.ADDWATERMARKS, runWatermark)
}

// runWatermark stamps the text on each selected page. With font_size the
// text has that size everywhere; without it, each page gets the size that
// fits it (see textStamp.autoFontSize).
func runWatermark(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	st := watermarkSettings(in.Params)
	fontSize := in.Params.Int(fontSizeParam) // 0: automatic
	job := stampJob{
		action: watermarked,
		plan: func(pages []int, sizes []stampPage) (map[int]*model.Watermark, error) {
			return planWatermark(st, fontSize, pages, sizes)
		},
	}
	return job.run(ctx, in, b, doc)
}

// requireInk refuses a text whose every line is blank.
func requireInk(text string) error {
	if strings.TrimSpace(strings.Join(textStamp{text: text}.lines(), "")) == "" {
		return docmill.ParamError(textParam, "has nothing to draw")
	}
	return nil
}

// watermarkSettings reads the validated params: the declaration's Checks
// already ran the font and ink checks.
func watermarkSettings(p docmill.Params) textStamp {
	return textStamp{
		text:     stampLineBreaks(p.String(textParam)),
		color:    stampColor(p.Color(colorParam)),
		spot:     stampSpotNamed(p.String(positionParam)),
		opacity:  p.Float(opacityParam),
		rotation: p.Float(rotationParam),
		onTop:    p.String(layerParam) != "under",
	}
}

// planWatermark gives each page its stamp. Pages on which it is placed
// alike share one *model.Watermark, and so one drawing.
func planWatermark(st textStamp, fontSize int, pages []int, sizes []stampPage) (map[int]*model.Watermark, error) {
	shared := map[stampPlacement]*model.Watermark{}
	m := make(map[int]*model.Watermark, len(pages))
	for _, p := range pages {
		page := sizes[p-1]
		size := fontSize
		if size == 0 {
			var err error
			if size, err = st.autoFontSize(page); err != nil {
				return nil, err
			}
		}
		pl, err := st.place(size, page)
		if err != nil {
			return nil, err
		}
		if shared[pl] == nil {
			shared[pl] = st.watermark(pl)
		}
		m[p] = shared[pl]
	}
	return m, nil
}
