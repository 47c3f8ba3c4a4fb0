//go:build linux

package nsenter

// memfd-toolkit: runc's own binary on a detached read-only overlayfs, to
// start runc init from (runc_open_sealed_self() in runc_loader_shim.c,
// which contrib/runc/build.sh copies into this package with the loader).

/*
#include <stdlib.h>
#include "cloned_binary.h"

extern int runc_open_sealed_self(char *why, size_t size);

static const char *sealed_self_env(void)
{
	return CLONED_BINARY_REEXEC_ENV;
}
*/
import "C"

import (
	"errors"
	"os"
)

// SealedSelfName names the file OpenSealedSelf returns.
const SealedSelfName = "runc (sealed overlay)"

// SealedSelfEnv names the environment variable with which runc init
// accepts the file it was started from as its sealed clone: "fd:N", N
// being runc init's fd of it, which it checks and closes.
var SealedSelfEnv = C.GoString(C.sealed_self_env())

// OpenSealedSelf returns runc's binary opened O_PATH from a new detached,
// read-only overlayfs, or the reason why there is none here.
func OpenSealedSelf() (*os.File, error) {
	var why [512]C.char

	fd := C.runc_open_sealed_self(&why[0], C.size_t(len(why)))
	if fd < 0 {
		return nil, errors.New(C.GoString(&why[0]))
	}
	return os.NewFile(uintptr(fd), SealedSelfName), nil
}
