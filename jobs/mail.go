package jobs

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/docmill/docmill"
)

// MailSchedule is the default delays before the second, third, ...
// attempt to send a mail (Config.MailSchedule): quick at first, for a
// mail server restarting, then further apart; thirteen attempts over
// about a day, after which the mail is given up (the link it carries
// has expired by then).
var MailSchedule = []time.Duration{
	10 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 8 * time.Hour,
}

// mailQueue is the River queue of mail: its own, so that a mail waits
// neither for a job nor for a webhook delivery, nor they for it.
const mailQueue = "mail"

// mailWorkers is how many mails a node sends at once.
const mailWorkers = 4

// mailMaxAttempts is River's bound on a mail's attempts, above any
// schedule's: the sending node's MailSchedule says when to give up (Work),
// not the node that queued the mail, which may have another.
const mailMaxAttempts = 1000

// MailArgs is the River job that sends one mail.
type MailArgs struct {
	Mail docmill.Mail `json:"mail"`
}

// Kind names the River job kind.
func (MailArgs) Kind() string { return "docmill.mail" }

var _ docmill.Outbox = (*Queue[any])(nil)

// QueueMail queues m, to be sent by a node that works the mail queue
// (one with Config.Mail): retried on the sending node's MailSchedule until the mail server
// takes it. It works on any node, one that works no jobs (an API node)
// included; on SQLite the node's own mail workers are woken at once.
func (q *Queue[TTx]) QueueMail(ctx context.Context, m docmill.Mail) error {
	_, err := q.client.Insert(ctx, MailArgs{Mail: m}, &river.InsertOpts{Queue: mailQueue, MaxAttempts: mailMaxAttempts})
	if err != nil {
		return fmt.Errorf("jobs: queue mail: %w", err)
	}
	return nil
}

// sendsMail reports whether this node works the mail queue.
func (q *Queue[TTx]) sendsMail() bool { return q.works() && q.cfg.Mail != nil }

// mailPoll is how often idle mail workers look for mail: a new one wakes
// them (River's insert, PostgreSQL's NOTIFY), so the poll finds only
// retries falling due; a retry is sent at most that late.
func mailPoll(cfg Config) time.Duration {
	return min(5*time.Second, max(100*time.Millisecond, cfg.MailSchedule[0]))
}

type mailWorker[TTx any] struct {
	river.WorkerDefaults[MailArgs]
	q *Queue[TTx]
}

// Timeout bounds one attempt: connecting (30 s) and the SMTP exchange.
func (w *mailWorker[TTx]) Timeout(*river.Job[MailArgs]) time.Duration { return 2 * time.Minute }

// NextRetry is the schedule's delay after the attempt that failed.
func (w *mailWorker[TTx]) NextRetry(rj *river.Job[MailArgs]) time.Time {
	s := w.q.cfg.MailSchedule
	return time.Now().Add(s[min(max(rj.Attempt, 1), len(s))-1])
}

// Work sends the mail. A failure is retried on the schedule, except one
// that says sending again cannot help (an error with a Permanent method
// that says true: the server refused the recipient), which ends the job,
// as does a failure of the schedule's last attempt.
func (w *mailWorker[TTx]) Work(ctx context.Context, rj *river.Job[MailArgs]) error {
	q, m := w.q, rj.Args.Mail
	err := q.cfg.Mail.SendMail(ctx, m)
	if err == nil {
		q.metrics.mailAttempts.WithLabelValues("sent").Inc()
		q.cfg.Logger.Debug("mail sent", "kind", string(m.Kind), "attempt", rj.Attempt)
		return nil
	}
	if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
		return river.JobSnooze(time.Second) // shutdown: the same attempt again, on the next start
	}
	var p interface{ Permanent() bool }
	if errors.As(err, &p) && p.Permanent() {
		q.metrics.mailAttempts.WithLabelValues("refused").Inc()
		q.cfg.Logger.Warn("mail refused; not retried", "kind", string(m.Kind), "to", m.To, "err", err)
		return river.JobCancel(err)
	}
	if rj.Attempt > len(q.cfg.MailSchedule) {
		q.metrics.mailAttempts.WithLabelValues("given_up").Inc()
		q.cfg.Logger.Error("mail given up after its last attempt", "kind", string(m.Kind), "to", m.To, "attempts", rj.Attempt, "err", err)
		return river.JobCancel(err)
	}
	q.metrics.mailAttempts.WithLabelValues("retry").Inc()
	return err // River logs it, and retries at NextRetry
}

// endedMail are the states of a mail that will not be sent again: sent,
// refused, or given up.
var endedMail = []rivertype.JobState{rivertype.JobStateCompleted, rivertype.JobStateCancelled, rivertype.JobStateDiscarded}

// forgetEndedMail removes the queue entries of mail that has ended. A
// mail's args carry its link, whose token is otherwise stored only
// hashed (docmill.AuthToken): River would keep the entry, link readable,
// for a day. The janitor calls it each sweep, so an ended mail's link
// stays in the database until the next sweep at most.
func (q *Queue[TTx]) forgetEndedMail(ctx context.Context) error {
	for {
		res, err := q.client.JobDeleteMany(ctx, river.NewJobDeleteManyParams().
			Kinds(MailArgs{}.Kind()).States(endedMail...).First(forgetBatch))
		if err != nil {
			return fmt.Errorf("jobs: remove ended mail: %w", err)
		}
		if len(res.Jobs) < forgetBatch {
			return nil
		}
	}
}
