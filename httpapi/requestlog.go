package httpapi

import (
	"context"
	"io"
	"log/slog"
	"sync"

	"github.com/docmill/docmill"
)

// requestLog is what a request's log line says beyond its route, status,
// size and time: the account, tool, job and error code, which only the
// handlers learn. observe makes one per request and writes the line when
// the handler returns; the handlers fill it in (noteAccount, noteJob,
// noteTool, noteCode) and need not know about logging otherwise. Its
// methods are safe on a nil *requestLog (a handler called without
// observe, as in unit tests) and from several goroutines.
type requestLog struct {
	mu                           sync.Mutex
	accountID, tool, jobID, code string
}

func requestLogOf(ctx context.Context) *requestLog {
	l, _ := ctx.Value(ctxRequestLog).(*requestLog)
	return l
}

func (l *requestLog) set(f func(l *requestLog)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	f(l)
	l.mu.Unlock()
}

// noteAccount records the authenticated account of the request.
func noteAccount(ctx context.Context, id string) {
	requestLogOf(ctx).set(func(l *requestLog) { l.accountID = id })
}

// noteTool records the tool the request names.
func noteTool(ctx context.Context, slug string) {
	requestLogOf(ctx).set(func(l *requestLog) { l.tool = slug })
}

// noteJob records the job the request made or answers with.
func noteJob(ctx context.Context, j *docmill.Job) {
	requestLogOf(ctx).set(func(l *requestLog) { l.jobID, l.tool = j.ID, j.Tool })
}

// noteCode records the error code of a problem answer.
func noteCode(ctx context.Context, code docmill.Code) {
	requestLogOf(ctx).set(func(l *requestLog) { l.code = string(code) })
}

// attrs returns the attributes learnt, leaving out those never set.
func (l *requestLog) attrs() []slog.Attr {
	l.mu.Lock()
	defer l.mu.Unlock()
	var a []slog.Attr
	for _, f := range []struct{ key, value string }{
		{"account_id", l.accountID}, {"tool", l.tool}, {"job_id", l.jobID}, {"code", l.code},
	} {
		if f.value != "" {
			a = append(a, slog.String(f.key, f.value))
		}
	}
	return a
}

// countingBody counts the bytes a handler reads of a request body.
type countingBody struct {
	io.ReadCloser
	n int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	return n, err
}
