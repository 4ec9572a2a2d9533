package replica

import (
	"context"
	"time"

	"github.com/superfly/ltx"
)

// run stages and ships until ctx ends, in two loops so that a target that
// is slow to fail never holds up staging: the WAL stays checkpointed and
// the backlog waits in local LTX files.
func (r *Replicator) run(ctx context.Context) {
	defer close(r.done)
	staged := make(chan ltx.TXID, 1)
	shipped := make(chan struct{})
	go func() {
		defer close(shipped)
		r.shipLoop(ctx, staged)
	}()
	tick := time.NewTicker(r.opts.SyncInterval)
	defer tick.Stop()
	for {
		if local, ok := r.stage(ctx); ok && local > 0 {
			select { // the latest position replaces one not yet taken
			case <-staged:
			default:
			}
			staged <- local
		}
		select {
		case <-ctx.Done():
			<-shipped
			return
		case <-tick.C:
		}
	}
}

// shipLoop ships up to the last staged position, once per staging pass
// and at least every SyncInterval. A failed shipment is retried after a
// wait that doubles from SyncInterval up to RetryMax.
func (r *Replicator) shipLoop(ctx context.Context, staged <-chan ltx.TXID) {
	var local ltx.TXID
	backoff := r.opts.SyncInterval
	for {
		select {
		case <-ctx.Done():
			return
		case local = <-staged:
		}
		if r.ship(ctx, local) {
			backoff = r.opts.SyncInterval
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, r.opts.RetryMax)
	}
}

// stage copies the transactions the WAL holds into local LTX files and
// returns the last one staged.
func (r *Replicator) stage(ctx context.Context) (ltx.TXID, bool) {
	begun := time.Now()
	sctx, cancel := context.WithTimeout(ctx, r.opts.ShipTimeout)
	defer cancel()
	err := r.db.Sync(sctx)
	var local ltx.Pos
	if err == nil {
		local, err = r.db.Pos()
	}
	r.noteStaged(begun, local.TXID, err == nil)
	if err != nil {
		if ctx.Err() == nil { // not Stop's doing
			r.record(time.Now(), err, 0)
		}
		return 0, false
	}
	return local.TXID, true
}

// ship sends the staged transactions up to local to the target.
func (r *Replicator) ship(ctx context.Context, local ltx.TXID) bool {
	sctx, cancel := context.WithTimeout(ctx, r.opts.ShipTimeout)
	defer cancel()
	err := r.rep.Sync(sctx)
	if ctx.Err() == nil { // not Stop's doing
		r.record(time.Now(), err, local)
	}
	return err == nil
}

// noteStaged dates the changes a staging pass that began at begun found:
// they were committed after the previous pass began. A pass that failed
// may have left changes unstaged, so they are counted as pending too.
func (r *Replicator) noteStaged(begun time.Time, local ltx.TXID, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	since := r.lastStageAt
	if since.IsZero() {
		since = begun
	}
	r.lastStageAt = begun
	if ok {
		r.st.LocalTXID = uint64(local)
		r.st.StagedAt = begun
	}
	if r.pendingSince.IsZero() && (!ok || r.st.LocalTXID > r.st.ShippedTXID) {
		r.pendingSince = since
	}
}

// record notes the outcome of a shipment at at: on success, that the
// target holds every transaction up to local (if the replica's position
// says so).
func (r *Replicator) record(at time.Time, err error, local ltx.TXID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.st.Failing = true
		r.st.LastError = err.Error()
		r.st.LastErrorAt = at
		return
	}
	r.st.Failing = false
	r.st.LastSuccess = at
	if shipped := uint64(r.rep.Pos().TXID); shipped > 0 {
		r.st.ShippedTXID = shipped
	}
	if local == 0 { // Stop's flush: everything committed is shipped
		if pos, err := r.db.Pos(); err == nil {
			r.st.LocalTXID = uint64(pos.TXID)
		}
		r.st.ShippedTXID = max(r.st.ShippedTXID, r.st.LocalTXID)
	}
	if r.st.ShippedTXID >= r.st.LocalTXID {
		r.pendingSince = time.Time{}
	}
}
