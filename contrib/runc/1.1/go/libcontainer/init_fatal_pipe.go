//go:build linux

package libcontainer

// memfd-toolkit: where runc 1.1 keeps runc init's log pipe, for
// initFatal (init_fatal.go; patch 0001).

import (
	"os"

	"github.com/opencontainers/runc/libcontainer/logs"
)

// forwardInitLogs is parent.forwardChildLogs(), watching for the reason.
func forwardInitLogs(parent parentProcess) (chan error, *initFatal) {
	var pipe *os.File
	switch p := parent.(type) {
	case *initProcess:
		pipe = p.logFilePair.parent
	case *setnsProcess:
		pipe = p.logFilePair.parent
	default:
		return parent.forwardChildLogs(), nil
	}
	w := &initFatal{r: pipe}
	return logs.ForwardLogs(w), w
}
