//go:build linux

package nsenter

// memfd-toolkit: runc's own binary on a detached read-only overlayfs, to
// start runc init from (runc_open_sealed_self() in runc_loader_shim.c,
// which contrib/runc/build.sh copies into this package with the loader).

/*
#include "runc_memfd_toolkit.h"
*/
import "C"

import "os"

// OpenSealedSelf returns runc's binary opened O_PATH from a new detached,
// read-only overlayfs, and the environment entry with which runc init,
// given it as fd childFd, accepts it as its sealed clone; or nil where
// there is none here.  msg is the loader's debug line either way.
func OpenSealedSelf(childFd int) (f *os.File, env string, msg string) {
	var cenv [64]C.char
	var cmsg [640]C.char

	fd := C.runc_open_sealed_self(C.int(childFd), &cenv[0], C.size_t(len(cenv)),
		&cmsg[0], C.size_t(len(cmsg)))
	msg = C.GoString(&cmsg[0])
	if fd < 0 {
		return nil, "", msg
	}
	return os.NewFile(uintptr(fd), "runc (sealed overlay)"), C.GoString(&cenv[0]), msg
}
