package main

// memfd-toolkit: the per-container vm.memfd_noexec request, given as the
// annotation "memfd_noexec" or the sysctl "vm.memfd_noexec" ("0", "1" or
// "2").  nsexec's stage-0 applies it (libcontainer/nsenter/nsexec.c).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/opencontainers/runc/libcontainer/nsenter"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// loadSpecChecked is loadSpec for create, run and restore.  It reads
// config.json once, makes sure that runc's own decode sees exactly one
// request (checkMemfdNoexecKeys, over the same bytes), decodes it with
// encoding/json, and has memfd-toolkit's library check the values it
// read.  A request ends up as the annotation alone.
func loadSpecChecked(cPath string) (*specs.Spec, error) {
	f, err := os.Open(cPath)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("JSON specification file %s not found", cPath)
		}
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	if err := checkMemfdNoexecKeys(data); err != nil {
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
	var annotation, sysctl, slash *string
	if v, ok := spec.Annotations[nsenter.MemfdNoexecAnnotation]; ok {
		annotation = &v
	}
	if spec.Linux != nil {
		if v, ok := spec.Linux.Sysctl[nsenter.MemfdNoexecSysctl]; ok {
			sysctl = &v
		}
		if v, ok := spec.Linux.Sysctl[nsenter.MemfdNoexecSysctlSlash]; ok {
			slash = &v
		}
	}
	level, err := nsenter.MemfdNoexecLevel(annotation, sysctl, slash, "config.json")
	if err != nil {
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

// The keys on the way to the request.  Struct fields (Go matches them
// case-insensitively, and a repeated one decodes into the same field):
// "annotations" and "linux" at the top, "sysctl" in "linux".  Map keys
// (matched exactly, the last one wins): "memfd_noexec" in annotations,
// the two sysctl spellings in linux.sysctl.
type memfdNoexecPath struct {
	where  string   // for messages
	fields []string // struct fields: folded
	keys   []string // map keys: exact
	leaf   bool     // the keys are the request's values
}

var memfdNoexecPaths = map[string]memfdNoexecPath{
	"":             {where: "the top-level object", fields: []string{"annotations", "linux"}},
	"annotations":  {where: "the object at annotations", keys: []string{nsenter.MemfdNoexecAnnotation}, leaf: true},
	"linux":        {where: "the object at linux", fields: []string{"sysctl"}},
	"linux.sysctl": {where: "the object at linux.sysctl", keys: []string{nsenter.MemfdNoexecSysctl, nsenter.MemfdNoexecSysctlSlash}, leaf: true},
}

// checkMemfdNoexecKeys reads data token by token and refuses what would
// let runc's decode and another reader (the memfd-toolkit hook, a policy
// engine) see different requests: a repeated key on the way to the
// request or of the request itself (encoding/json keeps the last one,
// others the first), and a request that is not a JSON string.  Anything
// it cannot read is left to json.Unmarshal, which refuses it.
func checkMemfdNoexecKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	return checkMemfdNoexecObject(dec, "")
}

// checkMemfdNoexecObject reads the members of the object at path, up to
// and including its '}'.
func checkMemfdNoexecObject(dec *json.Decoder, path string) error {
	p := memfdNoexecPaths[path]
	seen := map[string]string{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := t.(string)
		name := ""
		for _, f := range p.fields {
			if strings.EqualFold(key, f) {
				name = f
			}
		}
		for _, k := range p.keys {
			if key == k {
				name = k
			}
		}
		if name == "" {
			if skipJSONValue(dec) != nil {
				return nil
			}
			continue
		}
		if prev, ok := seen[name]; ok {
			if prev == key {
				return fmt.Errorf("Refusing config.json: duplicate key %q in %s. encoding/json (runc) would read the last one, other readers the first; remove one of them.", key, p.where)
			}
			return fmt.Errorf("Refusing config.json: the keys %q and %q in %s both name %q (encoding/json, which runc uses, matches field names case-insensitively), so readers could see different requests; keep only %q.", prev, key, p.where, name, name)
		}
		seen[name] = key
		next := strings.TrimPrefix(path+"."+name, ".")
		if p.leaf {
			if err := checkMemfdNoexecValue(dec, path, name); err != nil {
				return err
			}
			continue
		}
		t, err = dec.Token()
		if err != nil {
			return nil
		}
		switch t {
		case json.Delim('{'):
			if err := checkMemfdNoexecObject(dec, next); err != nil {
				return err
			}
		case json.Delim('['):
			if skipJSONRest(dec) != nil {
				return nil
			}
		}
	}
	_, _ = dec.Token() // '}'
	return nil
}

// checkMemfdNoexecValue refuses a request that is not a JSON string.
func checkMemfdNoexecValue(dec *json.Decoder, path, key string) error {
	t, err := dec.Token()
	if err != nil {
		return nil
	}
	var what string
	switch v := t.(type) {
	case string:
		return nil
	case json.Number:
		shown := string(v)
		if len(shown) > 40 {
			shown = shown[:40] + "..."
		}
		what = "the JSON number " + shown
	case bool:
		what = "a boolean"
	case nil:
		what = "null"
	case json.Delim:
		if v == '{' {
			what = "an object"
		} else {
			what = "an array"
		}
		if skipJSONRest(dec) != nil {
			return nil
		}
	}
	name := path + "[" + strconv.Quote(key) + "]"
	return fmt.Errorf("Refusing %s in config.json: it is %s, but it must be a JSON string: \"0\", \"1\" or \"2\". Quote it (%q: \"2\"), or remove it to keep the inherited vm.memfd_noexec.", name, what, key)
}

// skipJSONValue reads one whole value.
func skipJSONValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return skipJSONRest(dec)
	}
	return nil
}

// skipJSONRest reads up to and including the '}' or ']' that closes the
// object or array just opened.
func skipJSONRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
