//go:build linux

package nsenter

// memfd-toolkit: the vm.memfd_noexec request (policy.h), its netlink
// attribute and its seccomp rule (runc_loader_shim.c), which
// contrib/runc/build.sh copies into this package with the loader.  Every
// name and number comes from runc_memfd_toolkit.h.

/*
#cgo pkg-config: yajl libcap libseccomp
#include <stdlib.h>
#include "runc_memfd_toolkit.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

const (
	// MemfdNoexecAnnotation is the annotation that asks for a level.
	MemfdNoexecAnnotation = C.POLICY_ANNOTATION
	// MemfdNoexecSysctl and MemfdNoexecSysctlSlash are the same request
	// as linux.sysctl keys (runc writes sysctls with '.' mapped to '/').
	MemfdNoexecSysctl      = C.POLICY_SYSCTL
	MemfdNoexecSysctlSlash = C.POLICY_SYSCTL_SLASH
	// MemfdNoexecAttr is bootstrapData's netlink attribute for nsexec.
	MemfdNoexecAttr = C.RUNC_MEMFD_NOEXEC_ATTR
	// MemfdNoexecMaxConfig is the largest config.json the parser accepts.
	MemfdNoexecMaxConfig = int64(C.POLICY_MAX_DOCUMENT_SIZE)
)

// cError returns err's message as a Go error, and frees it.
func cError(err **C.struct_mt_error) error {
	defer C.mt_error_free(err)
	return errors.New(C.GoString(C.mt_error_message(*err)))
}

// MemfdNoexecRequest returns the vm.memfd_noexec level (0, 1 or 2) that
// the config.json in data asks for, or -1.  It refuses a bad value, a
// bounding set whose CAP_SYS_ADMIN cannot be told, and a document that
// JSON decoders could read differently (duplicate keys, keys Go folds to
// ours, bad UTF-8), with a message that quotes the input.
func MemfdNoexecRequest(data []byte) (int, error) {
	var req C.struct_policy_request
	var cerr *C.struct_mt_error

	buf := append(data[:len(data):len(data)], 0) // never empty
	if C.policy_parse_config((*C.char)(unsafe.Pointer(&buf[0])),
		C.size_t(len(data)), &req, &cerr) < 0 {
		return -1, cError(&cerr)
	}
	return int(req.level), nil
}

// MemfdNoexecAttrValue is the MemfdNoexecAttr value for the annotation's
// value and the container's bounding set (nil: none given).
func MemfdNoexecAttrValue(level string, bounding []string) uint32 {
	clevel := C.CString(level)
	defer C.free(unsafe.Pointer(clevel))
	names := make([]*C.char, len(bounding)+1) // never empty
	for i, b := range bounding {
		names[i] = C.CString(b)
		defer C.free(unsafe.Pointer(names[i]))
	}
	// names holds C pointers only, so cgo lets C read it.
	return uint32(C.runc_memfd_noexec_attr(clevel, &names[0], C.size_t(len(bounding)),
		C.bool(bounding != nil)))
}

// MemfdNoexecSeccomp installs, in the calling thread, the seccomp rules
// that go with the vm.memfd_noexec level it really runs at, read in its
// own PID namespace: asked for (level, the annotation's value, checked
// again; requested false: no annotation), inherited or joined.  At 2, or
// when the level cannot be read, memfd_create(MFD_HUGETLB) fails with
// EPERM.  It reports whether it installed any, and the line to log.
func MemfdNoexecSeccomp(level string, requested bool) (bool, string, error) {
	var cerr *C.struct_mt_error
	var clevel *C.char

	if requested {
		clevel = C.CString(level)
		defer C.free(unsafe.Pointer(clevel))
	}
	msg := make([]byte, 256)
	r := C.runc_memfd_noexec_seccomp(clevel, (*C.char)(unsafe.Pointer(&msg[0])),
		C.size_t(len(msg)), &cerr)
	if r < 0 {
		return false, "", cError(&cerr)
	}
	return r > 0, C.GoString((*C.char)(unsafe.Pointer(&msg[0]))), nil
}
