package libcontainer

// memfd-toolkit: runc 1.3 passes the request to nsexec in bootstrapData
// (patch 0003); the rest is memfd_noexec_linux.go.

import (
	"github.com/opencontainers/runc/libcontainer/configs"
	"github.com/vishvananda/netlink/nl"
)

// memfdNoexecData is what newInitProcess (init true: stage-0 applies the
// level) and newSetnsProcess (runc exec: its rule is clamped up to the
// level) add to bootstrapData.
func memfdNoexecData(config *configs.Config, init bool) []nl.NetlinkRequestData {
	v, ok := memfdNoexecAttr(config, init)
	if !ok {
		return nil
	}
	return []nl.NetlinkRequestData{&Int32msg{Type: MemfdNoexecAttr, Value: v}}
}
