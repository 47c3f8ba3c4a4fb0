//go:build linux

package nsenter

// memfd-toolkit's parser of the vm.memfd_noexec request (policy.h), which
// contrib/runc/build.sh copies into this package with the loader.

/*
#cgo pkg-config: yajl
#include <stdlib.h>
#include "policy.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// MemfdNoexecMaxConfig is the largest config.json the parser accepts.
const MemfdNoexecMaxConfig = int64(C.POLICY_MAX_DOCUMENT_SIZE)

// MemfdNoexecRequest returns the vm.memfd_noexec level (0, 1 or 2) that
// the config.json in data asks for, or -1.  It refuses a bad value, and a
// document that JSON decoders could read differently (duplicate keys, keys
// Go folds to ours, bad UTF-8), with a message that quotes the input.
func MemfdNoexecRequest(data []byte) (int, error) {
	var req C.struct_policy_request
	var cerr *C.struct_mt_error

	buf := append(data[:len(data):len(data)], 0) // never empty
	if C.policy_parse_config((*C.char)(unsafe.Pointer(&buf[0])),
		C.size_t(len(data)), &req, &cerr) < 0 {
		defer C.mt_error_free(&cerr)
		return -1, errors.New(C.GoString(C.mt_error_message(cerr)))
	}
	return int(req.level), nil
}
