package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/docmill/docmill/client"
)

// progress shows a client command's way through a job on stderr: the
// upload, the job's wait in the queue and its work, and the download.
// Every method may be called from several goroutines (batches).
type progress interface {
	// upload begins sending name (size bytes; -1 unknown) and returns the
	// callback of client.ProcessOptions.Progress.
	upload(name string, size int64) func(sent, total int64)
	// job shows the job as a process call or a poll returned it: created,
	// queued, processing, finished.
	job(name string, j *client.Job)
	// download wraps w, the result's file, to show the download of size
	// bytes; done ends the display.
	download(name string, size int64, w io.Writer) (wrapped io.Writer, done func())
	// retry says why nothing happens for a while.
	retry(e client.RetryEvent)
	// finish ends the display.
	finish()
}

// newProgress returns, when stderr is a terminal, bars for one job, or
// for a batch of jobs (files > 1) their lines under a spinner counting
// them; else plain lines (a log, a pipe).
func newProgress(stderr io.Writer, files int) progress {
	if !isTerminal(stderr) {
		return &lineProgress{w: stderr, seen: map[string]string{}}
	}
	f := stderr.(*os.File)
	if files == 1 {
		return &barProgress{w: f}
	}
	b := &batchProgress{total: files, finished: map[string]bool{}}
	b.spinner = startSpinner(f, b.describe())
	b.lineProgress = lineProgress{w: lineAbove{b.spinner}, seen: map[string]string{}}
	return b
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// lineProgress writes one line per step: what a log or a pipe wants.
type lineProgress struct {
	mu   sync.Mutex
	w    io.Writer
	seen map[string]string // job id -> last status shown
}

func (p *lineProgress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *lineProgress) upload(name string, size int64) func(sent, total int64) {
	if size >= 0 {
		p.printf("uploading %s (%s)", name, humanBytes(size))
	} else {
		p.printf("uploading %s", name)
	}
	return nil
}

func (p *lineProgress) job(name string, j *client.Job) {
	p.mu.Lock()
	if p.seen[j.JobID] == string(j.Status) {
		p.mu.Unlock()
		return
	}
	p.seen[j.JobID] = string(j.Status)
	p.mu.Unlock()
	p.printf("%s", jobLine(name, j))
}

func (p *lineProgress) download(name string, size int64, w io.Writer) (io.Writer, func()) {
	return w, func() {}
}

func (p *lineProgress) retry(e client.RetryEvent) {
	p.printf("%v; trying again in %s", e.Err, e.Wait.Round(time.Millisecond))
}

func (p *lineProgress) finish() {}

// batchProgress shows a batch's jobs as lines, above a spinner that
// counts the finished ones, on a terminal.
type batchProgress struct {
	lineProgress
	spinner *spinner

	mu       sync.Mutex
	total    int
	finished map[string]bool // job ids
}

func (p *batchProgress) job(name string, j *client.Job) {
	p.lineProgress.job(name, j)
	if j.Finished() {
		p.mu.Lock()
		p.finished[j.JobID] = true
		p.mu.Unlock()
		p.spinner.describe(p.describe())
	}
}

func (p *batchProgress) describe() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprintf("%d of %d files done", len(p.finished), p.total)
}

func (p *batchProgress) finish() { p.spinner.stop() }

// lineAbove writes whole lines above a spinner's line.
type lineAbove struct{ s *spinner }

func (l lineAbove) Write(b []byte) (int, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if _, err := fmt.Fprint(l.s.w, "\r\x1b[K"); err != nil {
		return 0, err
	}
	return l.s.w.Write(b)
}

// jobLine says where a job stands, for a person.
func jobLine(name string, j *client.Job) string {
	line := fmt.Sprintf("%s: job %s %s", name, j.JobID, j.Status)
	switch {
	case j.Error != nil:
		line += fmt.Sprintf(": %s: %s", j.Error.Code, j.Error.Message)
	case j.Finished():
		if ms, ok := j.Meta.Int("duration_ms"); ok {
			line += " in " + (time.Duration(ms) * time.Millisecond).String()
		}
	}
	return line
}

// barProgress draws a bar for the upload and the download, and a
// spinner line with the job's status and the time it has waited while the
// job is queued or processing, on a terminal.
type barProgress struct {
	w *os.File

	mu      sync.Mutex
	upBar   *progressbar.ProgressBar // the upload's, until the job is known
	spinner *spinner
}

func (p *barProgress) newBar(size int64, desc string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(65*time.Millisecond),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish(),
	)
}

func (p *barProgress) upload(name string, size int64) func(sent, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := p.newBar(size, "uploading "+name)
	p.upBar = bar
	return func(sent, _ int64) { _ = bar.Set64(sent) }
}

func (p *barProgress) job(name string, j *client.Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.upBar != nil { // the upload is over
		_ = p.upBar.Finish()
		p.upBar = nil
	}
	if j.Finished() {
		if p.spinner != nil {
			p.spinner.stop()
			p.spinner = nil
		}
		fmt.Fprintln(p.w, jobLine(name, j))
		return
	}
	desc := fmt.Sprintf("%s: job %s %s", name, j.JobID, j.Status)
	if p.spinner == nil {
		p.spinner = startSpinner(p.w, desc)
	} else {
		p.spinner.describe(desc)
	}
}

// spinner redraws one line, "⠙ DESCRIPTION [ELAPSED]", ten times a
// second until stopped, which erases it.
type spinner struct {
	w     io.Writer
	mu    sync.Mutex
	desc  string
	begin time.Time
	quit  chan struct{}
	done  chan struct{}
}

func startSpinner(w io.Writer, desc string) *spinner {
	s := &spinner{w: w, desc: desc, begin: time.Now(), quit: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *spinner) run() {
	defer close(s.done)
	frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		s.mu.Lock()
		fmt.Fprintf(s.w, "\r\x1b[K%c %s [%s]", frames[i%len(frames)], s.desc, time.Since(s.begin).Truncate(time.Second))
		s.mu.Unlock()
		select {
		case <-s.quit:
			fmt.Fprint(s.w, "\r\x1b[K")
			return
		case <-t.C:
		}
	}
}

func (s *spinner) describe(desc string) {
	s.mu.Lock()
	s.desc = desc
	s.mu.Unlock()
}

func (s *spinner) stop() {
	close(s.quit)
	<-s.done
}

func (p *barProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.spinner != nil {
		p.spinner.stop()
		p.spinner = nil
	}
}

func (p *barProgress) download(name string, size int64, w io.Writer) (io.Writer, func()) {
	bar := p.newBar(size, "downloading "+name)
	return io.MultiWriter(w, bar), func() { _ = bar.Finish() }
}

func (p *barProgress) retry(e client.RetryEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.upBar != nil {
		_ = p.upBar.Clear()
	}
	fmt.Fprintf(p.w, "%v; trying again in %s\n", e.Err, e.Wait.Round(time.Millisecond))
}

// humanBytes is n in B, KB, MB or GB (powers of 1000, one decimal).
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, units := float64(n), []string{"KB", "MB", "GB", "TB"}
	i := -1
	for f >= unit && i < len(units)-1 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
