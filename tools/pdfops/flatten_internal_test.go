package pdfops

import "testing"

func TestAppearanceMatrix(t *testing.T) {
	identity := [6]float64{1, 0, 0, 1, 0, 0}
	for _, tt := range []struct {
		name   string
		bbox   [4]float64
		m      [6]float64
		rect   [4]float64
		want   [6]float64
		wantOK bool
	}{
		{"same size", [4]float64{0, 0, 20, 10}, identity, [4]float64{100, 200, 120, 210}, [6]float64{1, 0, 0, 1, 100, 200}, true},
		{"scaled", [4]float64{0, 0, 10, 10}, identity, [4]float64{0, 0, 30, 20}, [6]float64{3, 0, 0, 2, 0, 0}, true},
		{"box not at the origin", [4]float64{5, 5, 15, 25}, identity, [4]float64{50, 50, 60, 70}, [6]float64{1, 0, 0, 1, 45, 45}, true},
		{"rect given right to left", [4]float64{0, 0, 10, 10}, identity, [4]float64{20, 20, 10, 10}, [6]float64{1, 0, 0, 1, 10, 10}, true},
		// Turned a quarter by its matrix, the box spans x -10..0, y 0..20.
		{"turned by its matrix", [4]float64{0, 0, 20, 10}, [6]float64{0, 1, -1, 0, 0, 0}, [4]float64{0, 0, 10, 20}, [6]float64{1, 0, 0, 1, 10, 0}, true},
		{"empty box", [4]float64{0, 0, 0, 10}, identity, [4]float64{0, 0, 10, 10}, [6]float64{}, false},
		{"empty rect", [4]float64{0, 0, 10, 10}, identity, [4]float64{5, 5, 5, 9}, [6]float64{}, false},
		{"matrix flattening the box", [4]float64{0, 0, 10, 10}, [6]float64{1, 0, 0, 0, 0, 0}, [4]float64{0, 0, 10, 10}, [6]float64{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appearanceMatrix(tt.bbox, tt.m, tt.rect)
			if ok != tt.wantOK || got != tt.want {
				t.Errorf("appearanceMatrix = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
