package sqlstore

import (
	"context"
	"time"

	"github.com/docmill/docmill/store/internal/sqltext"
)

// Heartbeat records that node id is alive at now, registering it on its
// first beat.
func (s *Store) Heartbeat(ctx context.Context, id string, now time.Time) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.NodeHeartbeat, id, millis(now))
		return err
	})
	if err != nil {
		return s.errorf("heartbeat: %w", err)
	}
	return nil
}

// ClaimDeadNodes removes the nodes whose last heartbeat is before t and
// returns their ids. Each is returned to one caller only, so that one
// node, not every node, hands back a dead node's jobs.
func (s *Store) ClaimDeadNodes(ctx context.Context, t time.Time) ([]string, error) {
	var ids []string
	err := s.db.InTx(ctx, func(tx Tx) error {
		rows, err := tx.Query(ctx, sqltext.ClaimDeadNodes, millis(t))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.errorf("claim dead nodes: %w", err)
	}
	return ids, nil
}

// ForgetNode removes node id, as a node that stops cleanly does.
func (s *Store) ForgetNode(ctx context.Context, id string) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.ForgetNode, id)
		return err
	})
	if err != nil {
		return s.errorf("forget node: %w", err)
	}
	return nil
}
