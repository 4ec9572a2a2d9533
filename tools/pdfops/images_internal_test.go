package pdfops

import (
	"math"
	"testing"

	docmill "github.com/docmill/docmill"
)

func TestDisplaySize(t *testing.T) {
	tests := []struct {
		name string
		w, h int
		meta imageMeta
		want [2]float64
	}{
		{"no density: 72 dpi", 300, 200, imageMeta{orientation: 1}, [2]float64{300, 200}},
		{"300 dpi", 300, 600, imageMeta{orientation: 1, xDPI: 300, yDPI: 300}, [2]float64{72, 144}},
		{"non-square pixels", 100, 100, imageMeta{orientation: 1, xDPI: 144, yDPI: 72}, [2]float64{50, 100}},
		{"one axis only: ignored", 100, 100, imageMeta{orientation: 1, xDPI: 300}, [2]float64{100, 100}},
		{"placeholder 1 dpi: 72", 100, 100, imageMeta{orientation: 1, xDPI: 1, yDPI: 1}, [2]float64{100, 100}},
		{"5000 dpi: 1200", 1200, 2400, imageMeta{orientation: 1, xDPI: 5000, yDPI: 5000}, [2]float64{72, 144}},
		{"infinite", 100, 100, imageMeta{orientation: 1, xDPI: math.Inf(1), yDPI: 300}, [2]float64{100, 100}},
		{"orientation 6 swaps", 300, 200, imageMeta{orientation: 6}, [2]float64{200, 300}},
		{"orientation 5 swaps axes with their densities", 144, 100, imageMeta{orientation: 5, xDPI: 144, yDPI: 72}, [2]float64{100, 72}},
		{"orientation 3 keeps", 300, 200, imageMeta{orientation: 3}, [2]float64{300, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := displaySize(tt.w, tt.h, tt.meta)
			if math.Abs(w-tt.want[0]) > 1e-9 || math.Abs(h-tt.want[1]) > 1e-9 {
				t.Errorf("displaySize = %g x %g, want %v", w, h, tt.want)
			}
		})
	}
}

func TestImageLayoutPlace(t *testing.T) {
	tests := []struct {
		name string
		lay  imageLayout
		w, h float64
		want imagePlacement
	}{
		{"fit", imageLayout{"fit", "auto", 0}, 300, 200, imagePlacement{300, 200, 0, 0, 300, 200}},
		{"fit ignores orientation", imageLayout{"fit", "portrait", 20}, 300, 200, imagePlacement{340, 240, 20, 20, 300, 200}},
		{"fit too wide: scaled to 200 inches", imageLayout{"fit", "auto", 0}, 28800, 100, imagePlacement{14400, 50, 0, 0, 14400, 50}},
		{"fit too tall with margins", imageLayout{"fit", "auto", 50}, 100, 28600, imagePlacement{150, 14400, 50, 50, 50, 14300}},
		{"fit tiny: padded to 3 pt", imageLayout{"fit", "auto", 0}, 1, 2, imagePlacement{3, 3, 1, 0.5, 1, 2}},
		{"a4 scales up, centred", imageLayout{"a4", "auto", 0}, 100, 100, imagePlacement{595.28, 841.89, 0, (841.89 - 595.28) / 2, 595.28, 595.28}},
		{"letter landscape, wide image", imageLayout{"letter", "auto", 20}, 200, 100, imagePlacement{792, 612, 20, 306 - 188, 752, 376}},
		{"letter portrait forced", imageLayout{"letter", "portrait", 0}, 200, 100, imagePlacement{612, 792, 0, 396 - 153, 612, 306}},
		{"square image is portrait", imageLayout{"a4", "auto", 0}, 50, 50, imagePlacement{595.28, 841.89, 0, (841.89 - 595.28) / 2, 595.28, 595.28}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.lay.place(tt.w, tt.h)
			g := []float64{got.pageW, got.pageH, got.x, got.y, got.w, got.h}
			w := []float64{tt.want.pageW, tt.want.pageH, tt.want.x, tt.want.y, tt.want.w, tt.want.h}
			for i := range g {
				if math.Abs(g[i]-w[i]) > 1e-6 {
					t.Fatalf("place = %+v, want %+v", got, tt.want)
				}
			}
		})
	}
}

func TestImagesOutputName(t *testing.T) {
	tests := []struct {
		names []string
		want  string
	}{
		{[]string{"photo.jpg"}, "photo.pdf"},
		{[]string{"IMG_0001.JPEG"}, "IMG_0001.pdf"},
		{[]string{"scan.tiff"}, "scan.pdf"},
		{[]string{"scan.pdf.png"}, "scan.pdf"},
		{[]string{"notes.v2"}, "notes.v2.pdf"},
		{[]string{`C:\Users\me\cat.webp`}, "cat.pdf"},
		{[]string{".jpg"}, "document.pdf"},
		{[]string{"a.jpg", "b.png"}, "images.pdf"},
	}
	for _, tt := range tests {
		var files []docmill.LocalFile
		for _, n := range tt.names {
			files = append(files, docmill.LocalFile{Filename: n})
		}
		if got := imagesOutputName(files); got != tt.want {
			t.Errorf("imagesOutputName(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestImageContent(t *testing.T) {
	p := imagePlacement{pageW: 100, pageH: 100, x: 10, y: 20, w: 30, h: 40}
	tests := map[int]string{
		0: "q 30 0 0 40 10 20 cm /Im0 Do Q", // absent: as 1
		1: "q 30 0 0 40 10 20 cm /Im0 Do Q",
		3: "q -30 0 0 -40 40 60 cm /Im0 Do Q",
		6: "q 0 -40 30 0 10 60 cm /Im0 Do Q",
		8: "q 0 40 -30 0 40 20 cm /Im0 Do Q",
	}
	for o, want := range tests {
		if got := string(imageContent(p, o)); got != want {
			t.Errorf("orientation %d: %q, want %q", o, got, want)
		}
	}
}
