package main

// memfd-toolkit: the per-container vm.memfd_noexec request, given as the
// annotation "memfd_noexec" or the sysctl "vm.memfd_noexec" ("0", "1" or
// "2").  nsexec's stage-0 applies it (libcontainer/nsenter/nsexec.c).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// loadSpecChecked is loadSpec for create, run and restore.  It reads
// config.json once and decodes those bytes twice: first with
// memfd-toolkit's C parser, which refuses a bad request and any document
// that JSON decoders could read differently, then with encoding/json.  A
// request ends up as the annotation alone, in the parser's reading.
func loadSpecChecked(cPath string) (*specs.Spec, error) {
	f, err := os.Open(cPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("JSON specification file %s not found", cPath)
		}
		return nil, err
	}
	defer f.Close()
	// One byte over the limit is enough for the parser to refuse it.
	data, err := io.ReadAll(io.LimitReader(f, nsenter.MemfdNoexecMaxConfig+1))
	if err != nil {
		return nil, err
	}
	level, err := nsenter.MemfdNoexecRequest(data)
	if err != nil {
		return nil, err
	}
	var spec *specs.Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, err
	}
	if spec == nil {
		return nil, errors.New("config.json holds no specification")
	}
	if err := validateProcessSpec(spec.Process); err != nil {
		return nil, err
	}
	if level < 0 {
		return spec, nil
	}
	// runc never writes vm.memfd_noexec from inside the container; the
	// annotation reaches nsexec as a label (libcontainer's config).
	if spec.Linux != nil {
		delete(spec.Linux.Sysctl, nsenter.MemfdNoexecSysctl)
		delete(spec.Linux.Sysctl, nsenter.MemfdNoexecSysctlSlash)
	}
	if spec.Annotations == nil {
		spec.Annotations = map[string]string{}
	}
	spec.Annotations[nsenter.MemfdNoexecAnnotation] = strconv.Itoa(level)
	return spec, nil
}

// memfdNoexecRequested tells whether a spec that loadSpecChecked returned
// asks for a level (it left the request as the annotation alone).
func memfdNoexecRequested(spec *specs.Spec) bool {
	_, ok := spec.Annotations[nsenter.MemfdNoexecAnnotation]
	return ok
}
