//go:build linux

package nsenter

// memfd-toolkit: runc's binary made safe by the loader, for runc init to
// start from (runc_clone_self_exe() in runc13_shim.c, which the build
// copies into this package with the loader).

/*
#include <stdlib.h>
#include "runc13_shim.h"
*/
import "C"

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// CloneSelfExe returns runc's binary as the loader made it safe (a
// detached read-only overlayfs, else a sealed memfd, else an unlinked
// read-only file in tmpDir or the loader's directories), whether it is the
// overlay, and the loader's lines: its fallbacks and "cloned_binary:
// using METHOD", or its error.
func CloneSelfExe(tmpDir string) (*os.File, bool, []string, error) {
	var cmsg [4096]C.char
	var overlay C.bool

	cdir := C.CString(tmpDir)
	defer C.free(unsafe.Pointer(cdir))
	fd := C.runc_clone_self_exe(cdir, &overlay, &cmsg[0], C.size_t(len(cmsg)))
	lines := strings.Split(C.GoString(&cmsg[0]), "\n")
	if fd < 0 {
		return nil, false, lines, errors.New(lines[len(lines)-1] + ": " + syscall.Errno(-fd).Error())
	}
	return os.NewFile(uintptr(fd), "runc (sealed clone)"), bool(overlay), lines, nil
}

// SealedInitEnv is the environment entry that tells runc init it was
// started from its clone, open at fd: the loader in runc init checks that
// fd is the file it runs from, closes it, and does not clone itself
// again.  Empty for the no-clone benchmark build, whose runc init checks
// nothing.
func SealedInitEnv(fd int) string {
	if C.runc_loader_no_clone() {
		return ""
	}
	return C.CLONED_BINARY_REEXEC_ENV + "=" + C.CLONED_BINARY_REEXEC_FD + strconv.Itoa(fd)
}
