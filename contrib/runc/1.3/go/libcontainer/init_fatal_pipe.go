//go:build linux

package libcontainer

// memfd-toolkit: where runc 1.3 keeps runc init's log pipe, for
// initFatal (init_fatal.go; patch 0005).

import (
	"os"

	"github.com/opencontainers/runc/libcontainer/logs"
)

// forwardInitLogs is parent.forwardChildLogs(), watching for the reason.
func forwardInitLogs(parent parentProcess) (chan error, *initFatal) {
	var pipe *os.File
	switch p := parent.(type) {
	case *initProcess:
		pipe = p.comm.logPipeParent
	case *setnsProcess:
		pipe = p.comm.logPipeParent
	default:
		return parent.forwardChildLogs(), nil
	}
	w := &initFatal{r: pipe}
	return logs.ForwardLogs(w), w
}
