package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/sandbox"
)

// instance is one browser process. Jobs hold a reference while they use
// it; a retired instance (too many jobs, or dead) is shut down when its
// last job lets go, so a restart never cuts a healthy job short.
type instance struct {
	ctx         context.Context // the browser's chromedp context; done when it dies
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	dir         string        // profile, HOME and TMPDIR; removed at shutdown
	paths       sandbox.Paths // host paths as the jailed browser sees them (zero outside the jail)
	pid         int           // leader of the browser's process group
	jail        *sandbox.Jail // the jail the browser runs in; nil outside one

	// Guarded by Browser.mu.
	jobs    int // jobs started on it
	active  int // jobs running on it
	retired bool

	// Guarded by tabsMu: the tabs open (printing, resetting or idle),
	// those being reset, the idle ones, and a channel closed (and
	// replaced) when a reset ends.
	tabsMu    sync.Mutex
	tabs      int
	resetting int
	idle      []*tab
	resetDone chan struct{}
	opened    atomic.Int64 // tabs ever opened, so tests can see reuse

	once sync.Once
}

// startTimeout bounds a browser start.
const startTimeout = 30 * time.Second

// flags are Chromium's switches: headless, no background traffic, no
// first-run or component updates, and every frame in the page's own
// process (site isolation off), so that the tab's request interception
// sees the requests of cross-site iframes too. The back-forward cache is
// off: a reused tab must never bring an earlier job's page back.
var flags = map[string]any{
	"headless":                               true,
	"no-sandbox":                             true, // runs as root in containers; the walls are the netns and interception
	"disable-gpu":                            true,
	"disable-background-networking":          true,
	"no-first-run":                           true,
	"no-default-browser-check":               true,
	"disable-component-update":               true,
	"disable-sync":                           true,
	"disable-quic":                           true,
	"disable-extensions":                     true,
	"disable-default-apps":                   true,
	"disable-breakpad":                       true,
	"disable-crash-reporter":                 true,
	"disable-dev-shm-usage":                  true,
	"disable-domain-reliability":             true,
	"disable-client-side-phishing-detection": true,
	"safebrowsing-disable-auto-update":       true,
	"metrics-recording-only":                 true,
	"mute-audio":                             true,
	"hide-scrollbars":                        true,
	"password-store":                         "basic",
	"disable-site-isolation-trials":          true,
	"disable-features":                       "IsolateOrigins,site-per-process,Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,BackForwardCache",
	"webrtc-ip-handling-policy":              "disable_non_proxied_udp",
	"force-webrtc-ip-handling-policy":        true,
	"dns-prefetch-disable":                   true,
	"font-render-hinting":                    "none",
	// A job's page is a file:// page (serveRequests): this lets its
	// scripts fetch its own files, as an http page could; the
	// interception still refuses every file outside the job's.
	"allow-file-access-from-files": true,
}

// view is what Chromium sees beyond the jail's base: its configuration.
// Its binary, resources and libraries are under /usr/lib.
var view = sandbox.View{ReadOnly: []string{"/etc/chromium", "/etc/chromium.d", "/usr/share/chromium"}}

// limits bound each Chromium process: no file of more than 1 GiB, and the
// processes and threads a browser and its renderers need.
var limits = sandbox.Limits{FileSize: 1 << 30, Processes: 2048, OpenFiles: 4096}

// deadProxy is a proxy nobody listens on: with it, a request that escaped
// interception (a WebSocket, a bug) fails instead of leaving the machine.
const deadProxy = "http://127.0.0.1:9"

// start launches a browser process: its own process group (killed whole
// at shutdown, and by the kernel if docmill dies: Pdeathsig), a cleared
// environment whose HOME is a fresh directory, and, where unshare works,
// an empty network namespace (DevTools talks over a pipe, not a port).
func (b *Browser) start() (*instance, error) {
	dir, err := os.MkdirTemp(b.opts.Dir, "docmill-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium: profile dir: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(b.path),
		chromedp.UserDataDir(dir),
		chromedp.NoInheritEnv,
	}
	for name, v := range flags {
		opts = append(opts, chromedp.Flag(name, v))
	}
	if !b.opts.noOSIsolation {
		opts = append(opts, chromedp.ProxyServer(deadProxy), chromedp.Flag("proxy-bypass-list", "<-loopback>"))
	}
	var cmd *exec.Cmd
	var jailErr error
	var jailPaths sandbox.Paths
	opts = append(opts, chromedp.ModifyCmdFunc(func(c *exec.Cmd) {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		// Set here, not with chromedp.Env (applied after this function):
		// in the jail, the profile directory has a path of the jail's.
		c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir,
			"XDG_CONFIG_HOME=" + dir + "/.config", "XDG_CACHE_HOME=" + dir + "/.cache", "LANG=C.UTF-8"}
		if !b.opts.noOSIsolation {
			argv, paths, err := b.opts.Jail.Command(append([]string{c.Path}, c.Args[1:]...), view, limits, dir, dir)
			if err != nil {
				jailErr = err
				argv = []string{"/bin/false"}
			}
			c.Path, c.Args, jailPaths = argv[0], argv, paths
			for i, v := range c.Env {
				c.Env[i] = paths.InJail(v)
			}
		}
		cmd = c
	}))
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	inst := &instance{ctx: ctx, cancel: cancel, allocCancel: allocCancel, dir: dir, resetDone: make(chan struct{})}
	// The first Run starts the browser and binds its life to ctx, which
	// has no deadline; the start itself is bounded from outside.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	select {
	case err = <-started:
	case <-time.After(startTimeout):
		err = errors.New("start timed out")
	}
	if cmd != nil && cmd.Process != nil {
		inst.pid = cmd.Process.Pid
	}
	inst.paths = jailPaths
	if !b.opts.noOSIsolation {
		inst.jail = b.opts.Jail
	}
	if err == nil {
		err = jailErr
	}
	if err != nil {
		inst.shutdown()
		return nil, fmt.Errorf("chromium: start: %w", err)
	}
	return inst, nil
}

// dead reports whether the browser process is gone.
func (i *instance) dead() bool { return i.ctx.Err() != nil }

// probeTimeout bounds the check of a browser after a job that failed.
const probeTimeout = 2 * time.Second

// healthy is the check of a browser after a job failed in it, before the
// next job gets it: the browser answers a cheap command (the list of its
// targets) within probeTimeout, and holds no more pages than its open
// tabs and its first blank one (a window a page opened outlived its
// tab's browser context).
func (i *instance) healthy() bool {
	if i.dead() {
		return false
	}
	ctx, cancel := context.WithTimeout(i.ctx, probeTimeout)
	defer cancel()
	res, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return false
	}
	pages := 0
	for _, info := range res.TargetInfos {
		if info.Type == "page" {
			pages++
		}
	}
	i.tabsMu.Lock()
	tabs := i.tabs
	i.tabsMu.Unlock()
	return pages <= tabs+1
}

// shutdown kills the browser's process group with SIGKILL (renderers, the
// zygote and the crash handler too; a graceful close can hang), then lets
// chromedp reap it and removes the profile. It is idempotent.
func (i *instance) shutdown() {
	i.once.Do(func() {
		switch {
		case i.pid > 0 && i.jail != nil:
			i.jail.Kill(i.pid)
		case i.pid > 0:
			_ = syscall.Kill(-i.pid, syscall.SIGKILL)
		}
		i.cancel()
		i.allocCancel()
		_ = os.RemoveAll(i.dir)
	})
}

// acquire returns the instance a new job should use, starting one if
// there is none, the current one is dead, or it has served RestartAfter
// jobs. The caller must release it.
func (b *Browser) acquire() (*instance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.New("chromium: browser closed")
	}
	if cur := b.cur; cur != nil && (cur.dead() || cur.jobs >= b.opts.RestartAfter) {
		b.retireLocked(cur)
	}
	if b.cur == nil {
		inst, err := b.start()
		if err != nil {
			return nil, err
		}
		b.cur = inst
	}
	b.cur.jobs++
	b.cur.active++
	return b.cur, nil
}

// acquireFor is acquire for a job under ctx: a job canceled while the
// browser starts returns ctx's error at once, and the start goes on for
// the next job.
func (b *Browser) acquireFor(ctx context.Context) (*instance, error) {
	return unlessDone(ctx, b.acquire, b.release)
}

// unlessDone returns start's result, or ctx's error as soon as ctx ends,
// whichever comes first. start runs in its own goroutine and goes on
// after ctx ends; a value it then returns without error is handed to
// late, which lets go of it.
func unlessDone[T any](ctx context.Context, start func() (T, error), late func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := start()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil {
				late(r.v)
			}
		}()
		var none T
		return none, ctx.Err()
	}
}

// release ends a job's use of inst; a retired instance is shut down when
// its last job lets go.
func (b *Browser) release(inst *instance) {
	b.mu.Lock()
	inst.active--
	last := inst.retired && inst.active == 0
	b.mu.Unlock()
	if last {
		go inst.shutdown()
	}
}

// retire takes inst out of service (after a crash seen by a job).
func (b *Browser) retire(inst *instance) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.retireLocked(inst)
}

func (b *Browser) retireLocked(inst *instance) {
	if inst.retired {
		return
	}
	inst.retired = true
	if b.cur == inst {
		b.cur = nil
	}
	if inst.active == 0 {
		go inst.shutdown()
	}
}

// killForTest kills the current browser's process group, as a crash or
// the OOM killer would, and returns its pid (0 when none runs).
func (b *Browser) killForTest() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil || b.cur.pid == 0 {
		return 0
	}
	_ = syscall.Kill(-b.cur.pid, syscall.SIGKILL)
	return b.cur.pid
}
