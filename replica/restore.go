package replica

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/litestream"
)

// ErrNothingToRestore means that the target holds no replica, or none old
// enough for the time asked.
var ErrNothingToRestore = errors.New("replica: nothing to restore")

// Restore writes to dstPath, which must not exist, the database replicated
// to targetURL (as New takes it): its latest state when at is zero, else
// its state at at: every transaction batch staged before at, to the
// granularity of the files the target still holds (see the package doc);
// an at past the last shipment is the latest state. The
// result passes SQLite's integrity check, or is removed. The database is
// written to dstPath.tmp first and renamed into place, so a failed or
// interrupted restore leaves no database at dstPath.
func Restore(ctx context.Context, targetURL, dstPath string, at time.Time) error {
	t, err := ParseTarget(targetURL)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(dstPath); err == nil {
		return fmt.Errorf("replica: restore: %s exists", dstPath)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("replica: restore: %w", err)
	}
	client, err := t.open(ctx, new(atomic.Int64))
	if err != nil {
		return err
	}
	defer client.b.Close()
	rep := litestream.NewReplicaWithClient(nil, client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = dstPath
	opt.IntegrityCheck = litestream.IntegrityCheckFull
	opt.Timestamp = at // zero: the latest
	if err := rep.Restore(ctx, opt); err != nil {
		if errors.Is(err, litestream.ErrTxNotAvailable) || errors.Is(err, litestream.ErrNoSnapshots) {
			if at.IsZero() {
				return fmt.Errorf("%w: %s holds no replica", ErrNothingToRestore, t)
			}
			return fmt.Errorf("%w: %s holds nothing as old as %s", ErrNothingToRestore, t, at.UTC().Format(time.RFC3339Nano))
		}
		return fmt.Errorf("replica: restore from %s: %w", t, err)
	}
	return nil
}

// HasReplica reports whether targetURL holds a replica. A server that
// starts on a new, empty database must not replicate to a target that
// holds another database's replica: Litestream would take the new file
// for one behind the replica and continue its transactions, mixing the
// two. Restore first, or give another target.
func HasReplica(ctx context.Context, targetURL string) (bool, error) {
	t, err := ParseTarget(targetURL)
	if err != nil {
		return false, err
	}
	client, err := t.open(ctx, new(atomic.Int64))
	if err != nil {
		return false, err
	}
	defer client.b.Close()
	for level := 0; level <= litestream.SnapshotLevel; level++ {
		it, err := client.LTXFiles(ctx, level, 0, false)
		if err != nil {
			return false, fmt.Errorf("replica: list %s: %w", t, err)
		}
		found := it.Next()
		if err := it.Close(); err != nil {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}
