package libcontainer

// memfd-toolkit: the annotation "memfd_noexec", which runc's main package
// checked with memfd-toolkit's parser (loadSpecChecked), on its way to
// nsexec (patch 0003) and to runc init's seccomp rules (patch 0005).

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

// memfdNoexecSeccomp installs the seccomp rules of the container's level in
// runc init, for its init and for runc exec alike: before runc's own
// filter (which could refuse seccomp(2) itself) and while runc init still
// has CAP_SYS_ADMIN in its user namespace, so that no_new_privs stays as
// the config says.  The filter survives the execve of the container's
// process.
func memfdNoexecSeccomp(config *configs.Config) error {
	level, ok := memfdNoexecLevel(config)
	if !ok {
		return nil
	}
	installed, err := nsenter.MemfdNoexecSeccomp(level)
	if err != nil {
		return fmt.Errorf("vm.memfd_noexec=%s: %w", level, err)
	}
	if installed {
		logrus.Debugf("vm.memfd_noexec=%s: memfd_create(MFD_HUGETLB) refused (seccomp)", level)
	}
	return nil
}
