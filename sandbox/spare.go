package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Spares keeps runs of an engine started ahead of their jobs, for a
// program whose start-up is a large share of a short job: Ghostscript
// sets up its interpreter and output device before it reads a page. A
// spare is started (Start) in a directory of its own, does that work
// while no job waits, and then blocks reading its standard input; a job
// puts its files in the spare's directory and sends the rest of its
// instructions there (Spare.Run).
//
// A spare serves exactly one run and ends with it, as a Run does: a
// document never meets a process that has seen another, and its jail,
// limits and view are the engine's, with only its own directory
// writable. What changes is when the jail and the program's start-up are
// paid, not what confines the job. Spares are kept per key (one command
// line), one ready at a time: taking it starts the next, in the
// background, so that the job that took it does not wait for the jail.
type Spares struct {
	engine *Engine
	dir    string
	mu     sync.Mutex
	ready  map[string]*Spare
	// starting holds the keys whose next spare is being started.
	starting map[string]bool
	// failed counts spares of a key that were dead when taken or failed
	// to start, in a row; at maxSpareFailures the key gets no more spares
	// (every run cold).
	failed map[string]int
	closed bool
	// starts counts the starts in progress, which Close waits for.
	starts sync.WaitGroup
}

// maxSpareFailures is how many spares of one key may die before their
// job, in a row, before the key stops getting spares: a program that
// cannot wait (a broken installation, a jail refusing it) would otherwise
// be started again for every job and never used.
const maxSpareFailures = 3

// NewSpares keeps spares of e in directories made in dir ("" for the
// system's temporary directory).
func NewSpares(e *Engine, dir string) *Spares {
	return &Spares{engine: e, dir: dir, ready: map[string]*Spare{}, starting: map[string]bool{}, failed: map[string]int{}}
}

// Spare is one started run of an engine waiting for its job.
type Spare struct {
	engine *Engine
	proc   *Process
	dir    string
	stdout *tailBuffer
	close  sync.Once
}

// Take returns the spare started for key and starts the next one in the
// background, so that the next job with key finds it ready. It returns
// nil, the caller then running the program the ordinary way, when there
// is none yet (the first job of a key, or one taken a moment ago whose
// successor is still starting), when it died before its job, or when s
// is nil or closed. args(dir) is the command line of a spare whose
// directory is dir, in host paths.
func (s *Spares) Take(key string, args func(dir string) []string) *Spare {
	if s == nil || !s.engine.Available() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.failed[key] >= maxSpareFailures {
		return nil
	}
	sp := s.ready[key]
	delete(s.ready, key)
	if sp != nil && !sp.proc.Running() {
		s.failed[key]++
		sp.Close()
		sp = nil
	} else if sp != nil {
		s.failed[key] = 0
	}
	if !s.starting[key] {
		s.starting[key] = true
		s.starts.Add(1)
		go s.refill(key, args)
	}
	return sp
}

// refill starts key's next spare and makes it the ready one, unless s
// was closed meanwhile.
func (s *Spares) refill(key string, args func(dir string) []string) {
	defer s.starts.Done()
	next, err := s.start(args)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.starting, key)
	switch {
	case err != nil:
		s.failed[key]++
	case s.closed:
		next.Close()
	default:
		s.ready[key] = next
	}
}

// start starts one spare with the command line args gives for its
// directory.
func (s *Spares) start(args func(dir string) []string) (*Spare, error) {
	dir, err := os.MkdirTemp(s.dir, "spare-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: spare directory: %w", err)
	}
	sp := &Spare{engine: s.engine, dir: dir, stdout: &tailBuffer{max: maxStderr}}
	sp.proc, err = s.engine.Start(Cmd{Dir: dir, Args: args(dir), Stdout: sp.stdout})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return sp, nil
}

// Close stops the spares waiting for a job, and those still starting,
// and starts no more.
func (s *Spares) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	for key, sp := range s.ready {
		sp.Close()
		delete(s.ready, key)
	}
	s.mu.Unlock()
	s.starts.Wait()
}

// Dir is the spare's directory, seen by its program at a path of the
// jail (Paths); a job puts its files here before Run.
func (sp *Spare) Dir() string { return sp.dir }

// Paths maps the spare's host paths to the paths its program sees.
func (sp *Spare) Paths() Paths { return sp.proc.Paths() }

// ErrSpareGone is the error of a spare whose program had ended before its
// job was handed over: nothing of the job ran, and the caller runs it the
// ordinary way.
var ErrSpareGone = errors.New("sandbox: spare ended before its job")

// Run hands the job to the spare and waits for its program to end, as
// Engine.Run waits for a run: within one of the engine's slots (waited
// for, or ctx), killed at ctx's end (whose error it returns), reported to
// Observe, a non-zero exit an ExitError. The files the job put in Dir are
// handed to the jail's uid, then stdin, the rest of the job's
// instructions, is written to the program's standard input, which is
// closed. Result.Stdout is the end of standard output (as much as is kept
// of standard error). ErrSpareGone means nothing ran. The spare is spent
// either way: the caller moves its outputs out of Dir, then calls Close.
func (sp *Spare) Run(ctx context.Context, stdin []byte) (*Result, error) {
	select {
	case sp.engine.slots <- struct{}{}:
		defer func() { <-sp.engine.slots }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if !sp.proc.Running() {
		return nil, ErrSpareGone
	}
	if err := sp.engine.opts.Jail.grant(sp.dir); err != nil {
		return nil, fmt.Errorf("sandbox: grant: %w", err)
	}
	start := time.Now()
	res, err := sp.finish(ctx, stdin, start)
	if sp.engine.opts.Observe != nil {
		sp.engine.opts.Observe(RunReport{Engine: sp.engine.Name, Outcome: outcome(err), Duration: time.Since(start)})
	}
	return res, err
}

// finish writes stdin and waits for the program's end or ctx's.
func (sp *Spare) finish(ctx context.Context, stdin []byte, start time.Time) (*Result, error) {
	w := sp.proc.Stdin()
	_, werr := w.Write(stdin)
	w.Close()
	if werr != nil && !sp.proc.Running() {
		return nil, ErrSpareGone
	}
	select {
	case <-sp.proc.Done():
	case <-ctx.Done():
		sp.proc.Kill()
		return nil, ctx.Err()
	}
	res := &Result{Stdout: sp.stdout.Bytes(), Stderr: []byte(sp.proc.Stderr()), Duration: time.Since(start)}
	err := sp.proc.Err()
	if x := exitError(sp.engine.Name, err, string(res.Stderr)); x != nil {
		return res, x
	}
	if err != nil {
		return res, fmt.Errorf("sandbox: %s: %w", sp.engine.Name, err)
	}
	return res, nil
}

// Close kills the spare's program if it still runs and removes its
// directory. It is safe to call more than once.
func (sp *Spare) Close() {
	sp.close.Do(func() {
		sp.proc.Kill()
		os.RemoveAll(sp.dir)
	})
}
