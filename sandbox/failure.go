package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/docmill/docmill"
)

// Causes is what one engine's failures mean, for Classify: the public
// message of a refused input, and the exit codes or messages that mean
// something more precise.
type Causes struct {
	// Engine names the engine in public messages ("The PDF engine").
	Engine string
	// Refused is the public message of an input the engine refused (a
	// non-zero exit): "The file could not be read as a PDF: ...".
	Refused string
	// Exit, when set, gives the error of an exit with a meaning of its
	// own (a password, a permission, a missing dependency), or nil to let
	// Classify decide.
	Exit func(x *ExitError) *docmill.Error
}

// Classify is the one classifier of engine failures, by cause. What the
// input causes is a client error, failed at once, never retried and never
// charged:
//   - a non-zero exit: the engine refused the input (invalid_document with
//     c.Refused, or c.Exit's error);
//   - killed for the CPU time limit: processing_timeout;
//   - killed for the file size limit, or for writing too much output: a
//     processing limit (invalid_document);
//   - an abort for memory refused by the jail's memory cap (bad_alloc,
//     "out of memory" on standard error): the input needs more than this
//     server gives an engine (invalid_document).
//
// What the input does not cause stays internal, and the job is retried: a
// jail that failed to start (bubblewrap, setpriv or prlimit complaining,
// a program or library missing: exits 126 and 127), any other error, and
// an engine that died by any other signal -- killed from outside (SIGKILL:
// the OOM killer, an operator) or crashed (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT). Such a death is a *docmill.EngineFailure in the
// internal error's chain, which the job runner counts, and on which it
// applies the crash rule (jobs): a crash repeated on a second run is the
// input's (unprocessable_document), a kill is retried. A missing engine is
// engine_unavailable, and the context's own errors (cancel, the tool's
// deadline) pass through for the job runner, which fails a deadline as
// processing_timeout.
func Classify(err error, c Causes) error {
	var x *ExitError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, ErrUnavailable):
		e := docmill.Errorf(docmill.CodeEngineUnavailable, "%s is not available on this server; please retry later.", c.Engine)
		e.Err = err
		return e
	case errors.Is(err, ErrOutputTooLarge):
		return wrap(docmill.LimitExceeded("The result is larger than this server's limit for it"), err)
	case !errors.As(err, &x):
		return docmill.Internal(err)
	case jailFailed(x):
		return docmill.Internal(fmt.Errorf("sandbox: the jail of %s failed: %w", x.Engine, err))
	}
	switch sig := x.KilledBy(); sig {
	case "":
		if c.Exit != nil {
			if e := c.Exit(x); e != nil {
				return wrap(e, err)
			}
		}
		return wrap(docmill.Errorf(docmill.CodeInvalidDocument, "%s", c.Refused), err)
	case "CPU time limit exceeded":
		return wrap(docmill.Errorf(docmill.CodeProcessingTimeout, "Processing this file takes longer than this server allows."), err)
	case "file size limit exceeded":
		return wrap(docmill.LimitExceeded("The result is larger than this server's limit for it"), err)
	case "aborted":
		if refusedMemory(x.Stderr) {
			return wrap(docmill.Errorf(docmill.CodeInvalidDocument, "%s", c.Refused), err)
		}
		fallthrough
	default:
		return docmill.Internal(&docmill.EngineFailure{Engine: x.Engine, Signal: sig, Err: err})
	}
}

// refusedMemory reports whether an aborted engine said it was refused
// memory: the jail's cap (RLIMIT_DATA) makes allocations fail, which C++
// programs answer with std::bad_alloc, and others with the words
// outOfMemory knows.
func refusedMemory(stderr string) bool {
	return strings.Contains(stderr, "bad_alloc") || outOfMemory(strings.ToLower(stderr))
}

// KilledBy is the signal that ended the engine, as Go names it ("killed",
// "segmentation fault"), or "" when it exited. Bubblewrap, whose child the
// engine is, reports a child killed by signal N as exit status 128+N, as
// shells do; that counts as the signal.
func (x *ExitError) KilledBy() string { return signalOf(x) }

// signalOf is the signal that ended the engine: bubblewrap, whose child
// it is, reports a child killed by signal N as exit status 128+N, as
// shells do.
func signalOf(x *ExitError) string {
	if x.Signal != "" {
		return x.Signal
	}
	if x.Code > 128 && x.Code < 128+65 {
		return syscall.Signal(x.Code - 128).String()
	}
	return ""
}

// jailFailed reports an exit of the jail's own programs rather than the
// engine's: they name themselves on standard error, and a program or
// library that cannot be found exits 126 or 127.
func jailFailed(x *ExitError) bool {
	if x.Code == 126 || x.Code == 127 {
		return true
	}
	for _, p := range []string{"bwrap: ", "setpriv: ", "prlimit: ", "unshare: "} {
		if strings.HasPrefix(x.Stderr, p) || strings.Contains(x.Stderr, "\n"+p) {
			return true
		}
	}
	return false
}

func wrap(e *docmill.Error, err error) *docmill.Error {
	e.Err = err
	return e
}

// Exit is how the warm process ended, described as a run's *ExitError
// (its exit status or signal, and the end of its standard error), for
// Classify; nil while it runs, or when it exited 0.
func (p *Process) Exit() *ExitError {
	return exitError(p.engine, p.Err(), p.Stderr())
}
