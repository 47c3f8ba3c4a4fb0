//go:build linux

package libcontainer

// memfd-toolkit: runc init starts from memfd-toolkit's sealed clone in place
// of exeseal.CloneSelfExe()'s (patch 0004 calls these two in
// newParentProcess()).  The loader makes no copy where a detached
// read-only overlayfs can be made, rootful and rootless (exeseal copies
// the binary into a memfd for every rootless container), and never an
// unsealed one (exeseal's O_TMPFILE fallback at vm.memfd_noexec=2 is not
// sealed).

import (
	"fmt"
	"os"

	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/sirupsen/logrus"
)

// sealedSelfExe is CloneSelfExe with memfd-toolkit's loader.  Where the
// clone is the overlay, it also says so in exeseal's own words, which
// runc's integration suite checks (run.bats, "runc run [/proc/self/exe
// clone]"); the loader's marker stays first, which our tests check.
func sealedSelfExe(stateDir string) (*os.File, error) {
	f, overlay, lines, err := nsenter.CloneSelfExe(stateDir)
	if err != nil {
		return nil, fmt.Errorf("memfd-toolkit loader: %w", err)
	}
	for _, l := range lines {
		logrus.Debug(l)
	}
	if overlay {
		logrus.Debug("runc exeseal: using overlayfs for sealed /proc/self/exe")
	}
	return f, nil
}

// sealedInitEnv appends to env the entry that tells runc init it starts
// from its clone at fd.
func sealedInitEnv(env []string, fd int) []string {
	if e := nsenter.SealedInitEnv(fd); e != "" {
		return append(env, e)
	}
	return env
}
