package libcontainer

// memfd-toolkit: the annotation "memfd_noexec", which runc's main package
// checked with memfd-toolkit's parser (loadSpecChecked), on its way to
// nsexec (patch 0003); and runc init's seccomp rules (patch 0005), which
// follow the level the container really runs at.

import (
	"fmt"

	"github.com/opencontainers/runc/libcontainer/configs"
	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/opencontainers/runc/libcontainer/utils"
	"github.com/sirupsen/logrus"
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

// memfdNoexecSeccomp installs the seccomp rules of the level runc init
// really runs at, read in the container's PID namespace (stage-0 applied
// any request before): for every container and every runc exec, whether
// the level was asked for, inherited from a parent namespace or found in a
// namespace the container joins.  Before runc's own filter (which could
// refuse seccomp(2) itself) and while runc init still has CAP_SYS_ADMIN in
// its user namespace, so that no_new_privs stays as the config says.  The
// filter survives the execve of the container's process.
func memfdNoexecSeccomp(config *configs.Config) error {
	level, requested := memfdNoexecLevel(config)
	_, msg, err := nsenter.MemfdNoexecSeccomp(level, requested)
	if err != nil {
		if requested {
			return fmt.Errorf("vm.memfd_noexec=%s: %w", level, err)
		}
		return fmt.Errorf("vm.memfd_noexec: %w", err)
	}
	logrus.Debug(msg)
	return nil
}
