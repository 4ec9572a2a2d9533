package sqlstore

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/docmill/docmill"
)

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

// NativeTx is a driver's Tx that can hand over the driver's own
// transaction T underneath it (pgx.Tx, *sql.Tx), as River's drivers are
// generic over theirs; ok is false outside a transaction (DB.Read).
type NativeTx[T any] interface {
	Tx
	Native() (tx T, ok bool)
}

// TxHooks are a driver's transaction hooks, written against its own
// transaction type T so that the queue (River, whose client is generic
// over the same T) writes in the store's transaction: the enqueue of a new
// job in CreateJob's, the webhook deliveries of a finished job in
// FinishJob's and CancelJob's. Its Enqueue and Deliver are Config's, and
// they require the Tx they are given to be a NativeTx[T]. The zero value
// has no hooks.
type TxHooks[T any] struct {
	enqueue Hook[func(ctx context.Context, tx T, j *docmill.Job) error]
	deliver Hook[func(ctx context.Context, tx T, ds []docmill.WebhookDelivery) error]
}

// SetEnqueue sets the function Enqueue calls; nil means none.
func (h *TxHooks[T]) SetEnqueue(f func(ctx context.Context, tx T, j *docmill.Job) error) {
	h.enqueue.Set(f)
}

// SetDeliver sets the function Deliver calls; nil means none.
func (h *TxHooks[T]) SetDeliver(f func(ctx context.Context, tx T, ds []docmill.WebhookDelivery) error) {
	h.deliver.Set(f)
}

// Enqueue calls the enqueue function, if any, with the T of tx.
func (h *TxHooks[T]) Enqueue(ctx context.Context, tx Tx, j *docmill.Job) error {
	if enqueue := h.enqueue.Load(); enqueue != nil {
		return withNative(tx, func(t T) error { return enqueue(ctx, t, j) })
	}
	return nil
}

// Deliver calls the delivery function, if any, with the T of tx.
func (h *TxHooks[T]) Deliver(ctx context.Context, tx Tx, ds []docmill.WebhookDelivery) error {
	if deliver := h.deliver.Load(); deliver != nil {
		return withNative(tx, func(t T) error { return deliver(ctx, t, ds) })
	}
	return nil
}

// withNative calls fn with the driver's transaction under tx.
func withNative[T any](tx Tx, fn func(tx T) error) error {
	if n, ok := tx.(NativeTx[T]); ok {
		if t, ok := n.Native(); ok {
			return fn(t)
		}
	}
	return errors.New("not in a transaction")
}
