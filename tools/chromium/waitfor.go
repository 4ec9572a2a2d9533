package chromium

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"

	docmill "github.com/docmill/docmill"
)

// Bounds of wait_for: bounds on a param, within the tool's timeout,
// not costs a node sets.
const (
	// maxWaitMillis bounds a wait given in milliseconds.
	maxWaitMillis = 30000
	// maxSelectorWait is how long a wait for a selector lasts at most;
	// past it the page is printed as it is, and meta.wait_timed_out says
	// so.
	maxSelectorWait = 30 * time.Second
	// maxSelectorLength bounds a wait_for selector.
	maxSelectorLength = 500
	// selectorPoll is how often the page is asked for the selector.
	selectorPoll = 100 * time.Millisecond
)

// waitParam is wait_for, which html-to-pdf, markdown-to-pdf, url-to-pdf
// and url-to-image share.
func waitParam() docmill.Param {
	return docmill.Param{Name: paramWaitFor, Type: docmill.TypeString, Max: docmill.Bound(maxSelectorLength), Check: checkWaitFor,
		Description: "Once the page loaded, wait for this before printing: a number of milliseconds (0 to " + strconv.Itoa(maxWaitMillis) +
			"), or a CSS selector that must match an element (waited for up to " + strconv.Itoa(int(maxSelectorWait/time.Second)) +
			" s; if it never does, the page is printed as it is and meta.wait_timed_out is true). For a page whose scripts add content after it loaded."}
}

// waitMeta declares the meta of the tools that take wait_for.
var waitMeta = docmill.MetaField{Name: "wait_timed_out", Type: docmill.MetaBoolean,
	Description: "true when wait_for's selector matched nothing within the wait, and the page was printed as it was."}

// waitSettings are a job's validated wait_for, and what its wait found.
type waitSettings struct {
	ms       int    // a fixed wait, in milliseconds
	selector string // a CSS selector to wait for
	// limit bounds the wait for selector (maxSelectorWait, or
	// Options.selectorWait in tests).
	limit time.Duration
	// timedOut is what run found: the selector did not appear in time.
	timedOut bool
}

// checkWaitFor validates wait_for: milliseconds within bounds, or a
// selector (whose syntax the page's browser judges, at run time).
func checkWaitFor(v string) error {
	if _, isNumber, ok := waitMillis(v); isNumber && !ok {
		return docmill.ParamError(paramWaitFor, "must be a number of milliseconds from 0 to %d, or a CSS selector", maxWaitMillis)
	}
	return nil
}

// waitMillis reads wait_for as milliseconds: isNumber when it is all
// digits, ok when it is within bounds.
func waitMillis(v string) (ms int, isNumber, ok bool) {
	if v == "" || strings.Trim(v, "0123456789") != "" {
		return 0, false, false
	}
	n, err := strconv.Atoi(v)
	return n, true, err == nil && n <= maxWaitMillis
}

// waitFrom reads a job's wait_for; the selector is waited for up to
// limit (0: maxSelectorWait).
func waitFrom(p docmill.Params, limit time.Duration) *waitSettings {
	if limit <= 0 {
		limit = maxSelectorWait
	}
	s := &waitSettings{limit: limit}
	if w := p.String(paramWaitFor); w != "" {
		if ms, isNumber, _ := waitMillis(w); isNumber {
			s.ms = ms
		} else {
			s.selector = w
		}
	}
	return s
}

// run waits, on the loaded page, for what wait_for asked. A selector
// the browser cannot parse is invalid_parameter. A job tried again on a
// new browser waits again, and timedOut says what the last wait found.
func (s *waitSettings) run(ctx context.Context) error {
	s.timedOut = false
	if s.ms > 0 {
		select {
		case <-time.After(time.Duration(s.ms) * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.selector == "" {
		return nil
	}
	query := "document.querySelector(" + jsString(s.selector) + ") !== null"
	deadline := time.Now().Add(s.limit)
	for {
		found, err := chromedp.Run(ctx, chromedp.Evaluate[bool](query))
		var exc *chromedp.ExceptionError
		switch {
		case errors.As(err, &exc):
			return docmill.ParamError(paramWaitFor, "is not a valid CSS selector")
		case err != nil && ctx.Err() != nil:
			return err
		case err != nil:
			// The page is between documents (a script navigated it):
			// it is asked again, until the deadline.
		case found:
			return nil
		}
		if time.Now().After(deadline) {
			s.timedOut = true
			return nil
		}
		select {
		case <-time.After(selectorPoll):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
