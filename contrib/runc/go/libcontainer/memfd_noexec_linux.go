package libcontainer

// memfd-toolkit: the annotation "memfd_noexec", which runc's main package
// checked (loadSpecChecked), on its way to nsexec (patch 0003): stage-0
// applies it to the container's init, and stage-2 installs the MFD_HUGETLB
// rule of the level it really runs at, for the init and every runc exec.

import (
	"github.com/opencontainers/runc/libcontainer/configs"
	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/opencontainers/runc/libcontainer/utils"
)

// MemfdNoexecAttr carries the request to nsexec.
const MemfdNoexecAttr uint16 = nsenter.MemfdNoexecAttr

// memfdNoexecLevel is the annotation's value, as libcontainer keeps
// annotations (labels, read back with runc's own utils.Annotations).
func memfdNoexecLevel(config *configs.Config) (string, bool) {
	_, annotations := utils.Annotations(config.Labels)
	v, ok := annotations[nsenter.MemfdNoexecAnnotation]
	return v, ok
}

// keepsSysAdmin tells whether the container keeps CAP_SYS_ADMIN in its
// bounding set, as runc reads capabilities (exact "CAP_" names; others
// are ignored, with runc's warning, and grant nothing).  No capabilities,
// or no bounding set, count as keeping it: the library's rule asks
// whether the container could remount /proc/sys, and refuses to guess.
func keepsSysAdmin(config *configs.Config) bool {
	if config.Capabilities == nil || config.Capabilities.Bounding == nil {
		return true
	}
	for _, c := range config.Capabilities.Bounding {
		if c == "CAP_SYS_ADMIN" {
			return true
		}
	}
	return false
}

// memfdNoexecAttr is the MemfdNoexecAttr value: the level, whether the
// container keeps CAP_SYS_ADMIN, and whether nsexec applies the level
// (init: the container's init; runc exec only gets its rule).
func memfdNoexecAttr(config *configs.Config, init bool) (uint32, bool) {
	level, ok := memfdNoexecLevel(config)
	if !ok {
		return 0, false
	}
	return nsenter.MemfdNoexecAttrValue(level, keepsSysAdmin(config), init), true
}
