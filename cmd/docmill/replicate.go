package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/docmill/docmill/replica"
)

// replicaLagging is the lag past which /readyz says the replica is
// lagging: an operator's cue, never a reason to stop serving.
const replicaLagging = time.Minute

// startReplica starts shipping the embedded database's changes to
// --replicate-to, if it is set. existed says whether the database file
// was there before the store opened it: a new, empty database refuses a
// target that already holds a replica (another database's, or this one's
// before its disk was lost), which is restored, not overwritten.
func (f *serveFlags) startReplica(ctx context.Context, existed bool, log *slog.Logger) (*replica.Replicator, error) {
	if f.replicateTo == "" {
		return nil, nil
	}
	if !existed {
		has, err := replica.HasReplica(ctx, f.replicateTo)
		if err != nil {
			return nil, fmt.Errorf("--replicate-to: %w", err)
		}
		if has {
			return nil, fmt.Errorf("--replicate-to %s holds a replica and %s is a new database: restore it first (docmill restore --data-dir %s --from %s), or give another target",
				f.replicateTo, f.data.dbPath(), f.data.dataDir, f.replicateTo)
		}
	}
	rep, err := replica.New(f.data.dbPath(), f.replicateTo, replica.Options{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--replicate-to: %w", err)
	}
	if err := rep.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("--replicate-to: %w", err)
	}
	log.Info("replicating the database", "to", f.replicateTo)
	return rep, nil
}

// stopReplica flushes and stops rep after the store has closed; a target
// that cannot be reached then costs at most the replica's stop timeout,
// and the error is only logged: the database on disk is whole.
func stopReplica(rep *replica.Replicator, log *slog.Logger) func() {
	return func() {
		if err := rep.Stop(context.Background()); err != nil {
			log.Warn("replica: final flush failed; the target lags until the next start", "err", err)
		}
	}
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// replicaReport is the replica's line in /readyz: ok, lagging (behind by
// more than replicaLagging) or failing (its last attempt failed), with
// the figures behind it. It never makes the node not ready: the service
// goes on while the target is down.
func replicaReport(rep *replica.Replicator) func() (string, any) {
	return func() (string, any) {
		st := rep.Status()
		state := "ok"
		switch {
		case st.Failing:
			state = "failing"
		case st.Lag > replicaLagging:
			state = "lagging"
		}
		detail := map[string]any{"state": state, "lag_seconds": st.Lag.Seconds()}
		if !st.LastSuccess.IsZero() {
			detail["last_success"] = st.LastSuccess.UTC().Format(time.RFC3339)
		}
		if st.LastError != "" {
			detail["last_error"] = st.LastError
			detail["last_error_at"] = st.LastErrorAt.UTC().Format(time.RFC3339)
		}
		return state, detail
	}
}

// registerReplicaMetrics adds the replica's gauges to reg.
func registerReplicaMetrics(reg prometheus.Registerer, rep *replica.Replicator) {
	unix := func(t time.Time) float64 {
		if t.IsZero() {
			return 0
		}
		return float64(t.UnixNano()) / 1e9
	}
	boolean := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_replica_lag_seconds",
			Help: "Age of the oldest committed change of the database not yet on the --replicate-to target; 0 when it holds everything."},
			func() float64 { return rep.Status().Lag.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_replica_failing",
			Help: "1 while the last attempt to ship to the --replicate-to target failed."},
			func() float64 { return boolean(rep.Status().Failing) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_replica_last_success_timestamp_seconds",
			Help: "When the target last took what was shipped (Unix time; 0: never)."},
			func() float64 { return unix(rep.Status().LastSuccess) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "docmill_replica_last_error_timestamp_seconds",
			Help: "When an attempt to stage or ship last failed (Unix time; 0: never)."},
			func() float64 { return unix(rep.Status().LastErrorAt) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "docmill_replica_shipped_bytes_total",
			Help: "Bytes written to the --replicate-to target."},
			func() float64 { return float64(rep.Status().BytesShipped) }),
	)
}
