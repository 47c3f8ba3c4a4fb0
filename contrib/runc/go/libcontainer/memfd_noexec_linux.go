package libcontainer

import "github.com/opencontainers/runc/libcontainer/configs"

// memfdNoexecAttr is the MemfdNoexecAttr value for nsexec (nsexec.c's
// apply_memfd_noexec): the level of the annotation "memfd_noexec" that
// runc's main package checked with memfd-toolkit's parser, | 0x100 if the
// container keeps CAP_SYS_ADMIN, | 0x200 (present).
func memfdNoexecAttr(config *configs.Config) (uint32, bool) {
	for _, l := range config.Labels {
		if len(l) < len("memfd_noexec=") || l[:len("memfd_noexec=")] != "memfd_noexec=" {
			continue
		}
		v := 0x200 | uint32(0xff) // nsexec refuses a level it does not know
		if l = l[len("memfd_noexec="):]; len(l) == 1 && l[0] >= '0' && l[0] <= '2' {
			v = 0x200 | uint32(l[0]-'0')
		}
		if config.Capabilities == nil {
			return v | 0x100, true
		}
		for _, c := range config.Capabilities.Bounding {
			if c == "CAP_SYS_ADMIN" {
				return v | 0x100, true
			}
		}
		return v, true
	}
	return 0, false
}
