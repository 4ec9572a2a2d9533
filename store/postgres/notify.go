package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen reports the jobs that reach a final status in any process using
// this database, until ctx is done. It holds one connection of its own
// (outside the pool) that LISTENs on ChannelJobDone, and calls done with
// each job's id. state is called with nil each time the connection is
// listening, and with the error each time it is lost; Listen then
// reconnects with a growing delay (100 ms to 10 s). Notifications sent
// while it is disconnected are lost, so a caller must look again at what it
// waits for after state(nil). done and state are called from one goroutine,
// Listen's, and must not block for long.
func (s *Store) Listen(ctx context.Context, done func(jobID string), state func(err error)) {
	const minDelay, maxDelay = 100 * time.Millisecond, 10 * time.Second
	delay := minDelay
	for ctx.Err() == nil {
		listened, err := s.listenOnce(ctx, done, state)
		if ctx.Err() != nil {
			return
		}
		state(err)
		if listened {
			delay = minDelay
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(delay*2, maxDelay)
	}
}

// listenOnce connects, listens and delivers notifications until the
// connection fails; listened reports whether it got as far as listening.
func (s *Store) listenOnce(ctx context.Context, done func(string), state func(error)) (listened bool, err error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(cctx, s.pool.Config().ConnConfig.Copy())
	cancel()
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, qListenJobDone); err != nil {
		return false, err
	}
	state(nil)
	for {
		// A connection cut without a reset (a partition, a failover) is
		// silent; a ping after each quiet period finds it out.
		wctx, cancel := context.WithTimeout(ctx, listenPing)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			done(n.Payload)
		case ctx.Err() != nil:
			return true, ctx.Err()
		case wctx.Err() != nil: // quiet period over
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return true, err
			}
		default:
			return true, err
		}
	}
}

// listenPing is how long the listening connection may stay quiet before
// Listen checks that it is still alive.
const listenPing = 30 * time.Second
