package jobs

import (
	"context"

	"github.com/docmill/docmill"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivershared/baseservice"
	"github.com/riverqueue/river/rivershared/riverpilot"
	"github.com/riverqueue/river/rivertype"
)

// A job inserted in a transaction (InsertTx, as CreateJob does) wakes no
// worker by itself: River cannot know when the caller commits. With
// PostgreSQL its insert sends a NOTIFY, which PostgreSQL delivers to every
// node's producer at commit. SQLite cannot notify, so River polls it; it
// wakes its own producer only after its non-transactional Insert, through
// the function it hands its pilot as PilotInitParams.NotifyNonTxJobInsert
// ("invoked when a client knows that a job has become available and the
// transaction that committed it has finished", meant for poll-only
// clients). Enqueued calls that function after the store's commit, so a
// job sent to an embedded server is picked up at once rather than at the
// next poll, and the poll can be slow: a safety net, not the pickup path.
//
// River hands a pilot that function only if the driver supplies the pilot
// (a driver plugin: PluginInit and PluginPilot, which River looks for with
// a type assertion). That interface is River's internal one; should a
// River upgrade change it, this driver's pilot goes unused and jobs wait
// for the poll: TestEnqueuedWakesWorkers fails then.

// wakeDriver is a River driver whose pilot, River's standard one, keeps
// the producer wake-up River gives it.
type wakeDriver[TTx any] struct {
	riverdriver.Driver[TTx]
	pilot *wakePilot
}

// PluginInit is River's driver plugin hook; there is nothing to set up.
func (d *wakeDriver[TTx]) PluginInit(*baseservice.Archetype) {}

// PluginPilot returns the pilot River uses instead of its standard one.
func (d *wakeDriver[TTx]) PluginPilot() riverpilot.Pilot { return d.pilot }

// wakePilot is River's standard pilot, keeping NotifyNonTxJobInsert.
type wakePilot struct {
	riverpilot.StandardPilot
	notify func(ctx context.Context, res []*rivertype.JobInsertResult)
}

// PilotInit is called once, by river.NewClient, before the client is
// returned; notify is set before any use.
func (p *wakePilot) PilotInit(a *baseservice.Archetype, params *riverpilot.PilotInitParams) {
	p.StandardPilot.PilotInit(a, params)
	p.notify = params.NotifyNonTxJobInsert
}

// wakeQueue asks this node's workers of one River queue to look for jobs
// now. It is a no-op on an insert-only queue and with a driver that
// notifies workers itself (River checks both), and cheap: River debounces
// fetches (FetchCooldown).
func (q *Queue[TTx]) wakeQueue(queue string) {
	if q.wake.notify == nil {
		return
	}
	q.wake.notify(context.Background(), []*rivertype.JobInsertResult{{Job: &rivertype.JobRow{Queue: queue}}})
}

// Enqueued is told that the transaction that inserted j's queue entry
// (InsertTx) has committed: the entry is now visible to workers. It wakes
// this node's workers of j's lane where the driver does not (SQLite); it
// must not be called before the commit, when a worker would not see the
// entry yet.
func (q *Queue[TTx]) Enqueued(j *docmill.Job) { q.wakeQueue(q.queueOf(j)) }
