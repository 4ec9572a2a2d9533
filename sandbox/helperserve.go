package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/docmill/docmill"
)

// ServeHelper is the helper's side of Helpers: it reads requests from r,
// runs each with the tool of that slug in tools, or else the step of that
// name in steps, and writes the reply to w, until r ends. A panic in a
// tool or step becomes the job's invalid_document failure, not the
// helper's death.
func ServeHelper(ctx context.Context, r io.Reader, w io.Writer, tools *docmill.Registry, steps ...*docmill.EngineStep) error {
	named := make(map[string]*docmill.EngineStep, len(steps))
	for _, s := range steps {
		named[s.Name] = s
	}
	memCap, _ := strconv.ParseInt(os.Getenv(helperMemoryEnv), 10, 64)
	in := json.NewDecoder(bufio.NewReader(r))
	enc := json.NewEncoder(w)
	for {
		var req helperRequest
		if err := in.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		stopWatch := watchMemory(memCap, os.Stderr, exitProcess)
		out, err := serveOne(ctx, tools, named, &req)
		stopWatch()
		reply := helperReply{Output: out}
		if err != nil {
			e := docmill.AsError(err)
			reply = helperReply{Error: &helperError{Code: e.Code, Message: e.Message, Fields: e.Fields, Unreadable: errors.Is(err, docmill.ErrUnreadable)}}
			if e.Err != nil {
				reply.Error.Cause = e.Err.Error()
			}
		}
		if err := enc.Encode(reply); err != nil {
			return err
		}
		// Give memory back after a large job: a helper holds a whole
		// document while it works, and is idle most of the time. Small jobs
		// skip it, since a forced collection costs the next job time.
		if inputBytes(req.Files) > 32<<20 {
			debug.FreeOSMemory()
		}
	}
}

func serveOne(ctx context.Context, tools *docmill.Registry, steps map[string]*docmill.EngineStep, req *helperRequest) (out *docmill.RunOutput, err error) {
	var invoke docmill.RunFunc
	if t, ok := tools.Lookup(req.Tool); ok {
		invoke = t.Invoke
	} else if s, ok := steps[req.Tool]; ok {
		invoke = s.Invoke
	} else {
		return nil, docmill.Internal(fmt.Errorf("sandbox: helper has no tool or step %q", req.Tool))
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, docmill.InvalidDocument(fmt.Errorf("panic in %s: %v\n%s", req.Tool, r, debug.Stack()), "The document could not be processed: it is damaged or uses a structure this tool does not support.")
		}
	}()
	return invoke(ctx, &docmill.RunInput{Files: req.Files, Params: req.Params, WorkDir: req.WorkDir, Limits: req.Limits})
}

func inputBytes(files []docmill.LocalFile) int64 {
	var n int64
	for _, f := range files {
		if st, err := os.Stat(f.Path); err == nil {
			n += st.Size()
		}
	}
	return n
}
