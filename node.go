package docmill

import (
	"context"
	"time"
)

// Nodes keeps the worker nodes' heartbeats, so that the jobs of a node
// that died are handed back to the queue by one of the living.
type Nodes interface {
	// Heartbeat records that worker node id is alive at now.
	Heartbeat(ctx context.Context, id string, now time.Time) error
	// ClaimDeadNodes removes the nodes whose last heartbeat is before t and
	// returns their ids; each dead node is returned to one caller only.
	ClaimDeadNodes(ctx context.Context, t time.Time) ([]string, error)
	// ForgetNode removes node id (a node that stops cleanly).
	ForgetNode(ctx context.Context, id string) error
}
