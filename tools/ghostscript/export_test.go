package ghostscript

import "time"

// SetLegacyFloor lowers the legacy retry's minimum budget for a test and
// puts it back when the test ends.
func SetLegacyFloor(d time.Duration) (restore func()) {
	old := legacyFloor
	legacyFloor = d
	return func() { legacyFloor = old }
}
