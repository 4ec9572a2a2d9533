package docmill

import (
	"reflect"
	"testing"
)

// TestLimitsWithDefaults: every field has a default above zero, a zero
// field takes it, and a field set is kept.
func TestLimitsWithDefaults(t *testing.T) {
	d := DefaultLimits()
	if got := (Limits{}).WithDefaults(); got != d {
		t.Errorf("zero limits with defaults\n got %+v\nwant %+v", got, d)
	}
	dv := reflect.ValueOf(d)
	for i := range dv.NumField() {
		name := dv.Type().Field(i).Name
		if dv.Field(i).Int() <= 0 {
			t.Errorf("%s has no default", name)
		}
		var l Limits
		reflect.ValueOf(&l).Elem().Field(i).SetInt(3)
		if got := reflect.ValueOf(l.WithDefaults()).Field(i).Int(); got != 3 {
			t.Errorf("%s set to 3 became %d", name, got)
		}
	}
}
