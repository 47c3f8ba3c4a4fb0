//go:build linux

package libcontainer

// memfd-toolkit: runc init started from the sealed overlay itself
// (patch 0004 calls these two).

import (
	"os/exec"
	"strconv"

	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/sirupsen/logrus"
)

// sealInitCommand makes cmd start runc init from runc's binary on a
// detached, read-only overlayfs, passed as the last of cmd.ExtraFiles.
// runc init then runs from its clone from the start: it checks it, closes
// its fd of it, and does not execute itself a second time.  Where no overlay can be made
// here, cmd stays as it was and runc init clones itself, with its own
// markers and fallbacks.
func sealInitCommand(cmd *exec.Cmd) {
	f, err := nsenter.OpenSealedSelf()
	if err != nil {
		logrus.Debugf("cloned_binary: runc init clones itself: %v", err)
		return
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	fd := strconv.Itoa(stdioFdCount + len(cmd.ExtraFiles) - 1)
	cmd.Path = "/proc/self/fd/" + fd
	cmd.Env = append(cmd.Env, nsenter.SealedSelfEnv+"=fd:"+fd)
	logrus.Debug("cloned_binary: using overlay")
}

// closeSealedInit closes runc's own fd of that file once cmd has started,
// or failed to: only runc init needs it (as its executable), and it
// closes its inherited fd of it at once (cloned_binary_ensure()).
func closeSealedInit(cmd *exec.Cmd) {
	for _, f := range cmd.ExtraFiles {
		if f != nil && f.Name() == nsenter.SealedSelfName {
			_ = f.Close()
		}
	}
}
