package jobs

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"
)

// TestSettle: a removal that meets a directory filled again ("directory
// not empty", as when a killed node's browser still writes its profile)
// is tried again until it passes or the wait is over; any other error
// is returned at once.
func TestSettle(t *testing.T) {
	t.Parallel()
	notEmpty := &fs.PathError{Op: "unlinkat", Path: "profile", Err: syscall.ENOTEMPTY}
	for _, c := range []struct {
		name  string
		errs  []error // what each call returns; past the end, nil
		wait  time.Duration
		calls int
		want  error
	}{
		{"passes at once", nil, time.Second, 1, nil},
		{"settles", []error{notEmpty, notEmpty}, time.Second, 3, nil},
		{"never settles", []error{notEmpty, notEmpty, notEmpty, notEmpty, notEmpty, notEmpty, notEmpty, notEmpty}, 120 * time.Millisecond, 0, syscall.ENOTEMPTY},
		{"other error", []error{fs.ErrPermission, nil}, time.Second, 1, fs.ErrPermission},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			err := settle(func() error {
				calls++
				if calls <= len(c.errs) {
					return c.errs[calls-1]
				}
				return nil
			}, c.wait)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Errorf("err %v, want %v", err, c.want)
			}
			if c.calls > 0 && calls != c.calls {
				t.Errorf("%d calls, want %d", calls, c.calls)
			}
			if c.calls == 0 && calls < 2 {
				t.Errorf("%d calls: not tried again within the wait", calls)
			}
		})
	}
}
