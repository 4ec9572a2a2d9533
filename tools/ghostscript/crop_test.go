package ghostscript

import (
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestCropParams(t *testing.T) {
	tool := (&engines{}).cropTool()
	for _, tc := range []struct {
		raw   map[string]string
		field string
	}{
		{map[string]string{"margins": "10"}, ""},
		{map[string]string{"margins": "10, 0,5.5,0"}, ""},
		{map[string]string{"box": "20,20,190,277", "pages": "1-2"}, ""},
		{map[string]string{"auto": "true", "padding": "0"}, ""},
		{map[string]string{}, "margins"},
		{map[string]string{"margins": "10", "box": "0,0,1,1"}, "auto"},
		{map[string]string{"box": "0,0,1,1", "auto": "true"}, "auto"},
		{map[string]string{"margins": "10", "padding": "3"}, "padding"},
		{map[string]string{"margins": "1,2,3"}, "margins"},
		{map[string]string{"margins": "-1"}, "margins"},
		{map[string]string{"margins": "NaN"}, "margins"},
		{map[string]string{"box": "50,20,40,100"}, "box"},
		{map[string]string{"box": "0,0,1e9,100"}, "box"},
		{map[string]string{"auto": "true", "padding": "500"}, "padding"},
	} {
		_, err := tool.ParseParams(tc.raw)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.raw, err)
			}
			continue
		}
		toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tc.field)
	}
}

func TestPoints(t *testing.T) {
	if got := points([]float64{0, 25.4, 10}); got != "0.000,72.000,28.346" {
		t.Fatalf("points %q", got)
	}
}
