package sqlstore

import "sync/atomic"

// Hook holds a function that is set after the store is built and may be
// replaced while it is in use: the queue's enqueue function, which needs
// the store's connection pool before it can exist (River's driver is built
// on the pool, and the queue on River), so it cannot be passed to Open.
type Hook[F any] struct{ f atomic.Pointer[F] }

// Set replaces the function; a nil one means none.
func (h *Hook[F]) Set(f F) { h.f.Store(&f) }

// Load returns the function, or F's zero value (nil) if none was set.
func (h *Hook[F]) Load() F {
	if p := h.f.Load(); p != nil {
		return *p
	}
	var none F
	return none
}
