//go:build linux

package nsenter

// memfd-toolkit: the vm.memfd_noexec request's names, its check and its
// netlink attribute, from memfd-toolkit's runtime interface
// (nsexec/runtime.h), which contrib/runc/build.sh copies into this package
// with the loader.  runc parses config.json itself; these take the values
// it read.  libseccomp is runc's own dependency (the MFD_HUGETLB rule).

/*
#cgo pkg-config: libseccomp
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
	MemfdNoexecAnnotation = C.NSEXEC_RUNTIME_ANNOTATION
	// MemfdNoexecSysctl and MemfdNoexecSysctlSlash are the same request
	// as linux.sysctl keys (runc writes sysctls with '.' mapped to '/').
	MemfdNoexecSysctl      = C.NSEXEC_RUNTIME_SYSCTL
	MemfdNoexecSysctlSlash = C.NSEXEC_RUNTIME_SYSCTL_SLASH
	// MemfdNoexecAttr is bootstrapData's netlink attribute for nsexec.
	MemfdNoexecAttr = C.RUNC_MEMFD_NOEXEC_ATTR
)

// cValue is v as the library takes it (every byte, a NUL included), and
// its free; a nil v is absent.
func cValue(v *string) (C.struct_nsexec_runtime_value, func()) {
	if v == nil {
		return C.struct_nsexec_runtime_value{}, func() {}
	}
	p := C.CBytes(append([]byte(*v), 0)) // never empty
	return C.struct_nsexec_runtime_value{text: (*C.char)(p), len: C.size_t(len(*v))},
		func() { C.free(p) }
}

// MemfdNoexecLevel is the vm.memfd_noexec level (0, 1 or 2) that the values
// runc read ask for (nil: absent), or -1 for none; checked by the library
// (nsexec_runtime_level()): exactly "0", "1" or "2", agreeing, with a
// message that quotes the value, names the field and says what to change.
func MemfdNoexecLevel(annotation, sysctl, sysctlSlash *string, where string) (int, error) {
	var values C.struct_nsexec_runtime_values
	var cerr *C.struct_mt_error
	var done [3]func()

	values.annotation, done[0] = cValue(annotation)
	values.sysctl, done[1] = cValue(sysctl)
	values.sysctl_slash, done[2] = cValue(sysctlSlash)
	for _, d := range done {
		defer d()
	}
	cwhere := C.CString(where)
	defer C.free(unsafe.Pointer(cwhere))
	r := C.nsexec_runtime_level(&values, cwhere, &cerr)
	if r < C.NSEXEC_RUNTIME_LEVEL_NONE {
		defer C.mt_error_free(&cerr)
		return -1, errors.New(C.GoString(C.mt_error_message(cerr)))
	}
	return int(r), nil
}

// MemfdNoexecAttrValue is the MemfdNoexecAttr value for the level runc
// create left in the container's annotations (checked again: nsexec
// refuses anything but "0", "1" or "2"), whether the container keeps
// CAP_SYS_ADMIN, and whether nsexec applies the level (the container's
// init) or only clamps the MFD_HUGETLB rule up to it (runc exec).
func MemfdNoexecAttrValue(level string, keepsSysAdmin, apply bool) uint32 {
	v := uint32(C.RUNC_MEMFD_NOEXEC_PRESENT)
	l, err := MemfdNoexecLevel(&level, nil, nil, "the container's state")
	if err != nil || l < 0 {
		v |= C.RUNC_MEMFD_NOEXEC_BAD_LEVEL
	} else {
		v |= uint32(l)
	}
	if keepsSysAdmin {
		v |= C.RUNC_MEMFD_NOEXEC_SYS_ADMIN
	}
	if apply {
		v |= C.RUNC_MEMFD_NOEXEC_APPLY
	}
	return v
}
