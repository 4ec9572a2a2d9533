package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/mail"
	"github.com/docmill/docmill/mail/mailpittest"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/store/sqlite"
)

// mailSchedule retries every second or two, for tests: more than 30 s of
// attempts in all.
var mailSchedule = []time.Duration{time.Second, time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second,
	2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second,
	2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second, 2 * time.Second}

// mailQueues starts, on one database, a queue that sends mail to pit
// (its metrics in reg) and an insert-only queue (an API node). Mail
// queued on either is sent by the former.
func mailQueues[TTx any](t *testing.T, st docmill.Store, driver func() riverdriver.Driver[TTx], pit *mailpittest.Server,
	schedule ...time.Duration) (sender, api *jobs.Queue[TTx], reg *prometheus.Registry) {
	t.Helper()
	if schedule == nil {
		schedule = mailSchedule
	}
	reg = prometheus.NewRegistry()
	ms, err := mail.NewSMTP(pit.SMTPURL, "docmill <noreply@docmill.example>")
	if err != nil {
		t.Fatal(err)
	}
	sender, err = jobs.New(driver(), jobs.Config{
		Store: st, Registry: docmill.NewRegistry(), Workers: 1, SoleWorker: true,
		PollInterval: 50 * time.Millisecond, ScratchDir: t.TempDir(), Mail: ms, MailSchedule: schedule,
		Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := sender.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sender.Stop(context.Background()) })
	api, err = jobs.New(driver(), jobs.Config{Store: st, Registry: docmill.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	return sender, api, reg
}

func testMail(to string) docmill.Mail {
	return docmill.Mail{To: to, Kind: docmill.MailSignIn, Lang: "en",
		Link: "https://docmill.example/#/verify/" + to, Expires: time.Now().Add(docmill.AuthTokenTTL)}
}

// TestMailQueued: mail queued by an API node, and by the sending node,
// arrives, on SQLite and on PostgreSQL.
func TestMailQueued(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, sender, api docmill.Outbox, pit *mailpittest.Server) {
		for i, o := range []docmill.Outbox{api, sender} {
			m := testMail(fmt.Sprintf("queued%d@example.com", i))
			if err := o.QueueMail(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			got := pit.WaitFor(t, m.To, 1, 15*time.Second)
			if len(got) != 1 || got[0].Subject != "Your docmill sign-in link" {
				t.Fatalf("%d messages, subject %q", len(got), got[0].Subject)
			}
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		pit := mailpittest.Start(t)
		st, _ := openData(t)
		migrateRiver(t, riversqlite.New(st.WriteDB()))
		sender, api, _ := mailQueues(t, st, func() riverdriver.Driver[*sqlTx] { return riversqlite.New(st.WriteDB()) }, pit)
		check(t, sender, api, pit)
	})
	t.Run("postgres", func(t *testing.T) {
		pit := mailpittest.Start(t)
		st := openPostgres(t, pgtestSchema(t))
		migrateRiver(t, riverpgxv5.New(st.Pool()))
		sender, api, _ := mailQueues(t, st, func() riverdriver.Driver[pgxTx] { return riverpgxv5.New(st.Pool()) }, pit)
		check(t, sender, api, pit)
	})
}

// TestMailSurvivesOutage: with the mail server down for 30 s, every mail
// queued meanwhile arrives once it is back, each exactly once. The mails
// are spread over the outage: each is queued once the one before it has
// failed an attempt.
func TestMailSurvivesOutage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out a 30 s mail server outage")
	}
	pit := mailpittest.Start(t)
	st, _ := openData(t)
	migrateRiver(t, riversqlite.New(st.WriteDB()))
	_, api, _ := mailQueues(t, st, func() riverdriver.Driver[*sqlTx] { return riversqlite.New(st.WriteDB()) }, pit)
	before := testMail("before@example.com")
	if err := api.QueueMail(t.Context(), before); err != nil {
		t.Fatal(err)
	}
	pit.WaitFor(t, before.To, 1, 15*time.Second)

	pit.Stop()
	down := time.Now()
	var queued []string
	for i := 0; time.Since(down) < 30*time.Second; i++ {
		m := testMail(fmt.Sprintf("outage%d@example.com", i))
		if err := api.QueueMail(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		queued = append(queued, m.To)
		failedOnce(t, st, m.To) // the next mail is queued once this one waits for a retry
	}
	pit.Restart()
	for _, to := range queued {
		pit.WaitFor(t, to, 1, 30*time.Second)
	}
	riverSettled(t, st, (jobs.MailArgs{}).Kind()) // no attempt, so no duplicate, can come after
	list, err := pit.Messages()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, m := range list {
		for _, a := range m.To {
			seen[a.Address]++
		}
	}
	if len(list) != len(queued)+1 || seen[before.To] != 1 {
		t.Fatalf("%d messages for %d mails queued: %v", len(list), len(queued)+1, seen)
	}
	for _, to := range queued {
		if seen[to] != 1 {
			t.Fatalf("%s got %d messages: %v", to, seen[to], seen)
		}
	}
}

// TestMailRefusedNotRetried: a recipient the server refuses for good is
// not tried again.
func TestMailRefusedNotRetried(t *testing.T) {
	t.Parallel()
	pit := mailpittest.Start(t, mailpittest.WithAllowedRecipients(`^ok@`))
	st, _ := openData(t)
	migrateRiver(t, riversqlite.New(st.WriteDB()))
	_, api, reg := mailQueues(t, st, func() riverdriver.Driver[*sqlTx] { return riversqlite.New(st.WriteDB()) }, pit)
	for _, to := range []string{"refused@example.com", "ok@example.com"} {
		if err := api.QueueMail(t.Context(), testMail(to)); err != nil {
			t.Fatal(err)
		}
	}
	pit.WaitFor(t, "ok@example.com", 1, 15*time.Second)
	waitMailEnded(t, st.WriteDB(), "refused@example.com", 1)
	// The server has the mail before its sender hears so and counts it
	// sent: the count may come a moment after the message.
	poll.Until(t, 15*time.Second, func() (bool, string) {
		s, r := gauge(t, reg, "docmill_mail_attempts_total", "sent"), gauge(t, reg, "docmill_mail_attempts_total", "refused")
		return s == 1 && r == 1, fmt.Sprintf("docmill_mail_attempts_total: sent %v, refused %v; want 1 and 1", s, r)
	})
}

// TestMailGivesUp: a mail the server never takes is given up after the
// sending node's schedule, whatever the queuing node's.
func TestMailGivesUp(t *testing.T) {
	t.Parallel()
	pit := mailpittest.Start(t)
	st, _ := openData(t)
	migrateRiver(t, riversqlite.New(st.WriteDB()))
	_, api, reg := mailQueues(t, st, func() riverdriver.Driver[*sqlTx] { return riversqlite.New(st.WriteDB()) }, pit,
		100*time.Millisecond, 100*time.Millisecond)
	pit.Stop()
	if err := api.QueueMail(t.Context(), testMail("never@example.com")); err != nil {
		t.Fatal(err)
	}
	waitMailEnded(t, st.WriteDB(), "never@example.com", 3)
	if r, g := gauge(t, reg, "docmill_mail_attempts_total", "retry"), gauge(t, reg, "docmill_mail_attempts_total", "given_up"); r != 2 || g != 1 {
		t.Fatalf("docmill_mail_attempts_total: retry %v, given_up %v; want 2 and 1", r, g)
	}
}

// waitMailEnded waits until the mail to "to" has ended (River's state
// cancelled) after the given number of attempts, and fails t otherwise.
func waitMailEnded(t *testing.T, db *sql.DB, to string, attempts int) {
	t.Helper()
	poll.Until(t, 15*time.Second, func() (bool, string) {
		var state string
		var attempt int
		err := db.QueryRowContext(t.Context(), `SELECT state, attempt FROM river_job WHERE kind = 'docmill.mail'
AND json_extract(json(args), '$.mail.to') = ?`, to).Scan(&state, &attempt)
		if errors.Is(err, sql.ErrNoRows) {
			// Ended, and removed by the janitor's sweep (forgetEndedMail)
			// before it was seen: the callers' metrics still count its attempts.
			return true, ""
		}
		if err != nil {
			t.Fatal(err)
		}
		why := fmt.Sprintf("mail to %s: state %s after %d attempts, want cancelled after %d", to, state, attempt, attempts)
		if attempt > attempts {
			t.Fatal(why)
		}
		return state == "cancelled" && attempt == attempts, why
	})
}

func migrateRiver[TTx any](t *testing.T, driver riverdriver.Driver[TTx]) {
	t.Helper()
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
}

type (
	sqlTx = sql.Tx
	pgxTx = pgx.Tx
)

func pgtestSchema(t *testing.T) string { return pgtest.SchemaURL(t) }

// TestSweepForgetsEndedMail: the janitor removes the queue entries of
// sent mail (their args hold the link) and keeps those still to be sent.
func TestSweepForgetsEndedMail(t *testing.T) {
	t.Parallel()
	pit := mailpittest.Start(t)
	st, _ := openData(t)
	migrateRiver(t, riversqlite.New(st.WriteDB()))
	sender, _, _ := mailQueues(t, st, func() riverdriver.Driver[*sqlTx] { return riversqlite.New(st.WriteDB()) }, pit)
	sent := testMail("sent@example.com")
	if err := sender.QueueMail(t.Context(), sent); err != nil {
		t.Fatal(err)
	}
	pit.WaitFor(t, sent.To, 1, 15*time.Second)
	entries := func(to string) (n int) {
		t.Helper()
		err := st.WriteDB().QueryRowContext(t.Context(), `SELECT count(*) FROM river_job WHERE kind = 'docmill.mail'
AND json_extract(json(args), '$.mail.to') = ?`, to).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// River marks the entry completed just after the mail server took it.
	poll.Until(t, 5*time.Second, func() (bool, string) {
		var state string
		if err := st.WriteDB().QueryRowContext(t.Context(), `SELECT state FROM river_job WHERE kind = 'docmill.mail'`).Scan(&state); err != nil {
			t.Fatal(err)
		}
		return state == "completed", "sent mail's entry is " + state
	})
	pit.Stop()
	waiting := testMail("waiting@example.com")
	if err := sender.QueueMail(t.Context(), waiting); err != nil {
		t.Fatal(err)
	}
	if err := sender.Sweep(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := entries(sent.To); n != 0 {
		t.Errorf("the sent mail's entry, link included, is still queued after a sweep (%d)", n)
	}
	if n := entries(waiting.To); n != 1 {
		t.Errorf("the mail still to send has %d entries after a sweep, want 1", n)
	}
}

// failedOnce waits until the mail to addr has failed an attempt: its
// River job waits for a retry, or has been tried again.
func failedOnce(t *testing.T, st *sqlite.Store, addr string) {
	t.Helper()
	poll.Until(t, 30*time.Second, func() (bool, string) {
		var n int
		err := st.WriteDB().QueryRowContext(t.Context(), `SELECT count(*) FROM river_job
WHERE kind = ? AND instr(CAST(args AS TEXT), ?) > 0 AND (state = 'retryable' OR attempt >= 2)`, (jobs.MailArgs{}).Kind(), addr).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n == 1, "no failed attempt yet of the mail to " + addr
	})
}
