package libcontainer

// memfd-toolkit: the annotation "memfd_noexec", which runc's main package
// checked with memfd-toolkit's parser (loadSpecChecked), on its way to
// nsexec (patch 0003); and the seccomp rule of the level runc init's PID
// namespace really has (patch 0005).

import (
	"fmt"
	"syscall"

	"github.com/opencontainers/runc/libcontainer/configs"
	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/opencontainers/runc/libcontainer/utils"
	"github.com/sirupsen/logrus"
	"github.com/vishvananda/netlink/nl"
)

// MemfdNoexecAttr carries the level to nsexec's stage-0.
const MemfdNoexecAttr uint16 = nsenter.MemfdNoexecAttr

// memfdNoexecLevel is the annotation's value, as libcontainer keeps
// annotations (labels, read back with runc's own utils.Annotations).
func memfdNoexecLevel(config *configs.Config) (string, bool) {
	_, annotations := utils.Annotations(config.Labels)
	v, ok := annotations[nsenter.MemfdNoexecAnnotation]
	return v, ok
}

// memfdNoexecAttr is the MemfdNoexecAttr value for the container's init:
// the level, and whether the container keeps CAP_SYS_ADMIN (no
// capabilities or no bounding set counts as keeping it).
func memfdNoexecAttr(config *configs.Config) (uint32, bool) {
	level, ok := memfdNoexecLevel(config)
	if !ok {
		return 0, false
	}
	var bounding []string
	if config.Capabilities != nil {
		bounding = config.Capabilities.Bounding
	}
	return nsenter.MemfdNoexecAttrValue(level, bounding), true
}

// memfdNoexecInitData is what newInitProcess adds to bootstrapData: the
// level for nsexec's stage-0, for the container's init only (runc exec
// joins a namespace already at its level).
func memfdNoexecInitData(config *configs.Config) []nl.NetlinkRequestData {
	v, ok := memfdNoexecAttr(config)
	if !ok {
		return nil
	}
	return []nl.NetlinkRequestData{&Int32msg{Type: MemfdNoexecAttr, Value: v}}
}

// memfdNoexecSeccomp installs the seccomp rules of the level that runc
// init's PID namespace really has (applied, inherited or joined: nsexec's
// stage-2 read it there), for the container's init and for runc exec
// alike, whether the container asked for a level or not: before runc's
// own filter (which could refuse seccomp(2) itself) and while runc init
// still has CAP_SYS_ADMIN in its user namespace, so that no_new_privs
// stays as the config says.  The filter survives the execve of the
// container's process.  A level that could not be read counts as 2: the
// rule only refuses memfd_create(MFD_HUGETLB).
func memfdNoexecSeccomp() error {
	level := nsenter.MemfdNoexecEffective()
	if level == -int(syscall.ENOENT) {
		return nil // no vm.memfd_noexec in this kernel: nothing to enforce
	}
	if level < 0 {
		logrus.Warnf("vm.memfd_noexec: cannot read this PID namespace's level (%v), applying the rules of level 2", syscall.Errno(-level))
		level = 2
	}
	installed, err := nsenter.MemfdNoexecSeccomp(level)
	if err != nil {
		return fmt.Errorf("vm.memfd_noexec=%d: %w", level, err)
	}
	if installed {
		logrus.Debugf("vm.memfd_noexec=%d: memfd_create(MFD_HUGETLB) refused (seccomp)", level)
	}
	return nil
}
