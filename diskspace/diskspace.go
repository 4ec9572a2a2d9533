// Package diskspace measures the free space of the local file systems a
// docmill node writes to (the embedded file store, the jobs' scratch
// directory) and holds them to a minimum: /readyz reports them, and
// uploads that would leave less than the minimum are refused before their
// body is read. Remote stores (S3) have no free space to measure and are
// never watched.
package diskspace

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
)

// Threshold is the free space a file system must keep: Bytes, Percent of
// the file system's size, or the smaller of the two when both are set. The
// zero Threshold asks for nothing.
type Threshold struct {
	Bytes   int64
	Percent float64
}

// DefaultThreshold is the default of --min-free-space: 1 GB or 5% of the
// file system, whichever is smaller, so that a small disk (a 10 GB volume
// keeps 512 MB) is not declared full while half empty and a large one
// keeps room for a few big uploads and their results.
var DefaultThreshold = Threshold{Bytes: 1 << 30, Percent: 5}

// units are the size suffixes Parse accepts, binary as everywhere in
// docmill (--max-upload-mb: MB is 2^20 bytes).
var units = []struct {
	suffix string
	shift  uint
}{
	{"TIB", 40}, {"GIB", 30}, {"MIB", 20}, {"KIB", 10},
	{"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10},
	{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}, {"B", 0},
}

// Parse reads a threshold: a size ("1GB", "512MB", "64KiB", "1048576",
// "0"), a percentage of the file system ("5%"), or both separated by a
// comma ("1GB,5%": whichever is smaller on each file system). Sizes are
// binary: 1 GB is 2^30 bytes.
func Parse(s string) (Threshold, error) {
	var t Threshold
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return Threshold{}, fmt.Errorf("%q: want a size (1GB, 512MB), a percentage (5%%) or both (1GB,5%%)", s)
	}
	var haveBytes, havePercent bool
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if strings.HasSuffix(p, "%") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(p, "%")), 64)
			if err != nil || havePercent || math.IsNaN(v) || v < 0 || v > 100 {
				return Threshold{}, fmt.Errorf("%q: a percentage is a number from 0 to 100, such as 5%%", s)
			}
			t.Percent, havePercent = v, true
			continue
		}
		n, err := parseSize(p)
		if err != nil || haveBytes {
			return Threshold{}, fmt.Errorf("%q: want a size (1GB, 512MB), a percentage (5%%) or both (1GB,5%%)", s)
		}
		t.Bytes, haveBytes = n, true
	}
	return t, nil
}

// parseSize reads a whole or decimal number of bytes with an optional
// binary unit.
func parseSize(s string) (int64, error) {
	num, shift := strings.ToUpper(s), uint(0)
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, shift = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.shift
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" || math.IsNaN(v) || v < 0 {
		return 0, errors.New("not a size")
	}
	b := v * float64(uint64(1)<<shift)
	if b >= math.MaxInt64 {
		return 0, errors.New("size too large")
	}
	return int64(b), nil
}

// String formats t as Parse reads it.
func (t Threshold) String() string {
	var parts []string
	if t.Bytes > 0 || t.Percent == 0 {
		parts = append(parts, formatSize(t.Bytes))
	}
	if t.Percent > 0 {
		parts = append(parts, strconv.FormatFloat(t.Percent, 'f', -1, 64)+"%")
	}
	return strings.Join(parts, ",")
}

func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// Set parses s into t, so that a *Threshold is a flag.Value.
func (t *Threshold) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// Of is the free space, in bytes, that t asks of a file system of total
// bytes.
func (t Threshold) Of(total int64) int64 {
	pct := int64(-1)
	if t.Percent > 0 {
		pct = int64(t.Percent / 100 * float64(total))
	}
	switch {
	case t.Bytes > 0 && pct >= 0:
		return min(t.Bytes, pct)
	case pct >= 0:
		return pct
	}
	return t.Bytes
}

// Usage is the size of a file system and the space left on it.
type Usage struct {
	// Free is what an unprivileged writer may still use (statfs f_bavail):
	// the engines' uid is not root, and root's reserve is not ours.
	Free  int64
	Total int64
}

// Stat returns the usage of the file system that holds path.
func Stat(path string) (Usage, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return Usage{}, fmt.Errorf("diskspace: statfs %s: %w", path, err)
	}
	bs := int64(st.Bsize)
	return Usage{Free: int64(st.Bavail) * bs, Total: int64(st.Blocks) * bs}, nil
}
