package office

import (
	"syscall"
	"time"
)

// CrashSoffice kills the soffice of an idle worker from outside, as a crash
// would, and waits until it is gone.
func CrashSoffice(p *Pool) {
	w := <-p.idle
	defer func() { p.idle <- w }()
	if w.soffice == nil {
		return
	}
	_ = syscall.Kill(-w.soffice.Pid(), syscall.SIGKILL)
	<-w.soffice.Done()
}

// SetTimeout changes the per-conversion deadline.
func SetTimeout(p *Pool, d time.Duration) { p.opts.Timeout = d }
