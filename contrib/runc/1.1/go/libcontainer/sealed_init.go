//go:build linux

package libcontainer

// memfd-toolkit: runc init started from the sealed overlay itself (patch
// 0004 calls these two: commandTemplate the first, each start() the
// second).

import (
	"os/exec"
	"strconv"
	"strings"

	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/sirupsen/logrus"
)

// sealedInitPath is the start of cmd.Path when cmd runs runc init from the
// sealed overlay: "/proc/self/fd/N", N being that file's fd in the child.
const sealedInitPath = "/proc/self/fd/"

// sealInitCommand makes cmd start runc init from runc's binary on a
// detached, read-only overlayfs, passed as the last of cmd.ExtraFiles.
// runc init then runs from its clone from the start: it checks it, closes
// its fd of it, and does not execute itself a second time.  Where no
// overlay can be made here, cmd stays as it was and runc init clones
// itself, with its own markers and fallbacks.
func sealInitCommand(cmd *exec.Cmd) {
	fd := stdioFdCount + len(cmd.ExtraFiles)
	f, env, msg := nsenter.OpenSealedSelf(fd)
	logrus.Debug(msg)
	if f == nil {
		return
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	cmd.Path = sealedInitPath + strconv.Itoa(fd)
	cmd.Env = append(cmd.Env, env)
}

// closeSealedInit closes runc's own fd of that file once cmd has started,
// or failed to: only runc init needs it (as its executable), and it
// closes its inherited fd of it at once (cloned_binary_ensure()).  The
// file is the one cmd executes, found by the fd in cmd.Path, never by its
// name: the caller's ExtraFiles may be named anything.
func closeSealedInit(cmd *exec.Cmd) {
	if !strings.HasPrefix(cmd.Path, sealedInitPath) {
		return
	}
	n, err := strconv.Atoi(cmd.Path[len(sealedInitPath):])
	if i := n - stdioFdCount; err == nil && i >= 0 && i < len(cmd.ExtraFiles) && cmd.ExtraFiles[i] != nil {
		_ = cmd.ExtraFiles[i].Close()
	}
}
