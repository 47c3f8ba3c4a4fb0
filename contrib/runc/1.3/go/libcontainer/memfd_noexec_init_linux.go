package libcontainer

// memfd-toolkit: runc 1.3 passes the level to nsexec's stage-0 in
// bootstrapData (patch 0003); the rest is memfd_noexec_linux.go.

import (
	"github.com/opencontainers/runc/libcontainer/configs"
	"github.com/vishvananda/netlink/nl"
)

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
