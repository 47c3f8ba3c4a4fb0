//go:build linux

package libcontainer

// memfd-toolkit: runc's error ends with nsexec's reason (1.1: patch
// 0001; 1.3: patch 0005).
// When runc init dies in nsexec, runc says only "can't get final child's
// PID from pipe: EOF"; the reason went to runc init's log pipe, and
// podman, containerd and the CRI show runc's error, not its log.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sirupsen/logrus"
)

// initFatal passes runc init's log through to logs.ForwardLogs and keeps
// the last fatal message on the way.  ForwardLogs' goroutine writes it;
// it is read after ForwardLogs' done channel was received from.
type initFatal struct {
	r    io.ReadCloser
	line []byte // the start of a line not yet complete
	msg  string
}

// The longest line kept (bufio.Scanner's default limit, which ForwardLogs
// has too).
const initFatalMaxLine = 64 * 1024

func (w *initFatal) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			if len(w.line)+len(rest) <= initFatalMaxLine {
				w.line = append(w.line, rest...)
			}
			break
		}
		w.entry(append(w.line, rest[:i]...))
		w.line = w.line[:0]
		rest = rest[i+1:]
	}
	return n, err
}

func (w *initFatal) Close() error {
	return w.r.Close()
}

func (w *initFatal) entry(line []byte) {
	var e struct {
		Level logrus.Level `json:"level"`
		Msg   string       `json:"msg"`
	}
	if json.Unmarshal(line, &e) == nil && e.Level == logrus.FatalLevel {
		w.msg = e.Msg
	}
}

// wrap adds the reason to runc's error, if there is both.
func (w *initFatal) wrap(err error) error {
	if err == nil || w == nil || w.msg == "" {
		return err
	}
	return fmt.Errorf("%w: %s", err, w.msg)
}
