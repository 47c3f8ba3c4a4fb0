#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the hand-made seeds of tests/fuzz/corpus/ for fuzz_policy.

The two real documents, runc-spec.json and runc-spec-rootless.json, are the
verbatim output of Debian 12's `runc spec` and `runc spec --rootless`
(runc 1.1.5) and are not touched.  Every other file in corpus/ is written
here, so that a seed can be changed in one place and the directory can be
rebuilt: run it by hand after an edit and commit the result.

    python3 tests/fuzz/gen-corpus.py

Each seed aims at one check of policy/config.c, policy/state.c or
policy/json-reader.c; its name says which.  Byte strings, not Python
strings, because several seeds are deliberately not valid UTF-8 or JSON.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
REAL = ("runc-spec.json", "runc-spec-rootless.json")
DEPTH_MAX = 64  # POLICY_MAX_DEPTH
VALUE_MAX = 64 * 1024  # POLICY_MAX_VALUE_SIZE


def read_real(name):
    with open(os.path.join(CORPUS, name), "rb") as f:
        return f.read()


def with_annotations(spec, body):
    """The runc spec with an "annotations" member added at the end."""
    end = spec.rstrip().rindex(b"}")
    return spec[:end].rstrip() + b',\n\t"annotations": ' + body + b"\n}\n"


def with_sysctl(spec, body):
    """The runc spec with linux.sysctl added as linux's first member."""
    at = spec.index(b'"linux": {') + len(b'"linux": {')
    return spec[:at] + b'\n\t\t"sysctl": ' + body + b"," + spec[at:]


def annotation(value):
    return b'{"annotations":{"memfd_noexec":' + value + b"}}"


def sysctl(key, value):
    return b'{"linux":{"sysctl":{"' + key + b'":' + value + b"}}}"


def nested(depth, open_, close, inner=b""):
    """depth containers in all, the top-level object included."""
    return b'{"a":' + open_ * (depth - 1) + inner + close * (depth - 1) + b"}"


def config_seeds(spec, rootless):
    s = {}
    # The annotation's value: only the strings "0", "1", "2" pass.
    values = {
        "0": b'"0"', "1": b'"1"', "2": b'"2"', "3": b'"3"',
        "minus1": b'"-1"', "empty": b'""', "space2": b'" 2"',
        "2newline": b'"2\\n"', "02": b'"02"', "escaped2": b'"\\u0032"',
        "nul": b'"2\\u0000"', "number2": b"2", "number2.0": b"2.0",
        "number-huge": b"1e400", "number-long": b"2" * 100,
        "null": b"null", "true": b"true", "false": b"false",
        "object": b'{"level":"2"}', "array": b'["2"]',
        "too-long": b'"' + b"2" * (VALUE_MAX + 1) + b'"',
        "max-len": b'"' + b"x" * VALUE_MAX + b'"',
    }
    for name, v in values.items():
        s["annotation-" + name] = annotation(v)
    for v in (b"0", b"1", b"2", b"3"):
        s["spec-annotation-" + v.decode()] = with_annotations(
            spec, b'{"memfd_noexec": "' + v + b'"}')
    s["rootless-annotation-2"] = with_annotations(
        rootless, b'{"memfd_noexec": "2", "other": "x"}')

    # linux.sysctl, both spellings, and how they combine.
    for key in (b"vm.memfd_noexec", b"vm/memfd_noexec"):
        tag = key.decode().replace("/", "-slash-").replace(".", "-dot-")
        for name, v in (("1", b'"1"'), ("2", b'"2"'), ("5", b'"5"'),
                        ("number", b"2"), ("null", b"null"),
                        ("object", b"{}")):
            s["sysctl-" + tag + "-" + name] = sysctl(key, v)
    s["spec-sysctl-2"] = with_sysctl(spec, b'{"vm.memfd_noexec": "2"}')
    s["rootless-sysctl-slash-1"] = with_sysctl(
        rootless, b'{"vm/memfd_noexec": "1", "net.core.somaxconn": "1"}')
    s["sysctl-both-agree"] = (
        b'{"linux":{"sysctl":{"vm.memfd_noexec":"2",'
        b'"vm/memfd_noexec":"2"}}}')
    s["sysctl-both-disagree"] = (
        b'{"linux":{"sysctl":{"vm.memfd_noexec":"2",'
        b'"vm/memfd_noexec":"1"}}}')
    s["annotation-sysctl-agree"] = (
        b'{"annotations":{"memfd_noexec":"2"},'
        b'"linux":{"sysctl":{"vm.memfd_noexec":"2"}}}')
    s["annotation-sysctl-disagree"] = (
        b'{"linux":{"sysctl":{"vm/memfd_noexec":"0"}},'
        b'"annotations":{"memfd_noexec":"2"}}')

    # The containers: null counts as absent, other non-objects fail.
    for name, v in (("null", b"null"), ("array", b"[]"),
                    ("string", b'"x"'), ("number", b"0"),
                    ("empty", b"{}")):
        s["annotations-" + name] = b'{"annotations":' + v + b"}"
        s["linux-" + name] = b'{"linux":' + v + b"}"
        s["sysctls-" + name] = b'{"linux":{"sysctl":' + v + b"}}"

    # Duplicate keys at every level.
    s["dup-top"] = b'{"ociVersion":"1.0.2","ociVersion":"1.0.2"}'
    s["dup-annotations"] = (
        b'{"annotations":{"memfd_noexec":"0"},'
        b'"annotations":{"memfd_noexec":"2"}}')
    s["dup-annotation-same"] = (
        b'{"annotations":{"memfd_noexec":"2","memfd_noexec":"2"}}')
    s["dup-annotation-differ"] = (
        b'{"annotations":{"memfd_noexec":"2","memfd_noexec":"0"}}')
    s["dup-annotation-other"] = b'{"annotations":{"a":"1","b":"2","a":"3"}}'
    s["dup-linux"] = b'{"linux":{},"linux":{"sysctl":{}}}'
    s["dup-sysctl"] = b'{"linux":{"sysctl":{},"sysctl":{}}}'
    s["dup-sysctl-key"] = (
        b'{"linux":{"sysctl":{"vm.memfd_noexec":"2",'
        b'"vm.memfd_noexec":"0"}}}')
    s["dup-deep"] = b'{"process":{"user":{"uid":0,"uid":0}}}'
    s["dup-in-array"] = b'{"mounts":[{"type":"proc"},{"a":1,"a":2}]}'
    s["dup-escaped"] = (
        b'{"annotations":{"memfd_noexec":"0","memfd\\u005fnoexec":"2"}}')
    s["dup-many-keys"] = (
        b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(300))
        + b',"k150":0}')
    s["spec-dup-process"] = spec.replace(
        b'"terminal": true,', b'"terminal": true,\n\t\t"terminal": false,')

    # Keys that Go would match case-insensitively to one we read.
    for name, key in (("Annotations", b"Annotations"),
                      ("ANNOTATIONS", b"ANNOTATIONS"),
                      ("long-s", b"annotation\xc5\xbf"),
                      ("long-s-escaped", b"annotation\\u017f")):
        s["fold-" + name] = b'{"' + key + b'":{"memfd_noexec":"2"}}'
    s["fold-both"] = (
        b'{"annotations":{"memfd_noexec":"0"},'
        b'"Annotations":{"memfd_noexec":"2"}}')
    s["fold-Linux"] = b'{"Linux":{"sysctl":{"vm.memfd_noexec":"2"}}}'
    s["fold-SYSCTL"] = b'{"linux":{"SYSCTL":{"vm.memfd_noexec":"2"}}}'
    s["fold-long-s-sysctl"] = (
        b'{"linux":{"\xc5\xbfysctl":{"vm.memfd_noexec":"2"}}}')
    s["fold-kelvin"] = b'{"linux":{"\xe2\x84\xaaernel":"x"}}'
    # Map keys inside annotations/sysctl are not Go fields: exact only.
    s["fold-annotation-key"] = b'{"annotations":{"MEMFD_NOEXEC":"2"}}'
    s["fold-sysctl-key"] = b'{"linux":{"sysctl":{"VM.memfd_noexec":"2"}}}'

    # \u escapes of the key names: the same keys once decoded.
    s["escape-annotations"] = (
        b'{"\\u0061nnotations":{"memfd\\u005fnoexec":"2"}}')
    s["escape-linux"] = (
        b'{"\\u006cinux":{"sys\\u0063tl":{"vm\\u002ememfd_noexec":"1"}}}')
    s["escape-slash"] = b'{"linux":{"sysctl":{"vm\\/memfd_noexec":"2"}}}'
    s["escape-surrogates"] = b'{"annotations":{"\\ud83d\\ude00":"\\ud800"}}'

    # Nesting: POLICY_MAX_DEPTH containers pass, one more fails.
    for d in (DEPTH_MAX - 1, DEPTH_MAX, DEPTH_MAX + 1):
        s["nest-%d-arrays" % d] = nested(d, b"[", b"]")
        s["nest-%d-objects" % d] = nested(d, b'{"a":', b"}", b"0")
    s["nest-deep-annotation"] = (
        b'{"annotations":{"memfd_noexec":"2","x":'
        + b"[" * (DEPTH_MAX - 2) + b"]" * (DEPTH_MAX - 2) + b"}}")

    # Malformed UTF-8, in values and in keys.
    for name, raw in (("ff", b"\xff"), ("overlong", b"\xc0\xaf"),
                      ("surrogate", b"\xed\xa0\x80"),
                      ("above-max", b"\xf4\x90\x80\x80"),
                      ("truncated", b"\xe2\x84"), ("five-byte",
                                                   b"\xf8\x88\x80\x80\x80")):
        s["utf8-value-" + name] = (
            b'{"annotations":{"memfd_noexec":"2' + raw + b'"}}')
        s["utf8-key-" + name] = b'{"process":{"' + raw + b'":1}}'
    s["utf8-valid"] = b'{"annotations":{"\xf0\x9f\x98\x80":"\xc5\xbf"}}'

    # Not one JSON object, or more than one.
    s["trailing-garbage"] = annotation(b'"2"') + b"x"
    s["trailing-object"] = annotation(b'"2"') + b" {}"
    s["trailing-nul"] = annotation(b'"2"') + b"\n\x00"
    s["leading-bom"] = b"\xef\xbb\xbf" + annotation(b'"2"')
    s["comment"] = b'/* c */{"annotations":{"memfd_noexec":"2"}}'
    s["truncated-spec"] = spec[: len(spec) // 2]
    for name, doc in (("empty", b""), ("space", b" \n\t"),
                      ("null", b"null"), ("array", b"[]"),
                      ("string", b'"{}"'), ("number", b"2"),
                      ("unclosed", b'{"annotations":{')):
        s["top-" + name] = doc
    return s


def state(**fields):
    """An OCI state document; values are raw JSON bytes."""
    return b"{" + b",".join(b'"%s":%s' % (k.encode(), v)
                           for k, v in fields.items()) + b"}"


def state_seeds():
    good = dict(ociVersion=b'"1.0.2"', id=b'"c1"', status=b'"creating"',
                pid=b"1234", bundle=b'"/x"')
    s = {"state": state(**good),
         "state-annotations": state(
             **good, annotations=b'{"memfd_noexec":"2"}')}
    for name in good:
        rest = {k: v for k, v in good.items() if k != name}
        s["state-no-" + name] = state(**rest)
        s["state-null-" + name] = state(**rest, **{name: b"null"})
    for name, pid in (("0", b"0"), ("minus1", b"-1"), ("1.5", b"1.5"),
                      ("1e3", b"1e3"), ("string", b'"1234"'),
                      ("int-max", b"2147483647"),
                      ("above-int-max", b"2147483648"),
                      ("huge", b"9" * 40), ("leading-zero", b"01234"),
                      ("object", b"{}")):
        s["state-pid-" + name] = state(**dict(good, pid=pid))
    for name, bundle in (("relative", b'"x"'), ("empty", b'""'),
                         ("nul", b'"/x\\u0000y"'), ("number", b"1"),
                         ("escaped", b'"\\/run\\/c1"'),
                         ("path-max", b'"/' + b"a" * 4094 + b'"'),
                         ("too-long", b'"/' + b"a" * 4095 + b'"')):
        s["state-bundle-" + name] = state(**dict(good, bundle=bundle))
    for status in (b"created", b"running", b"stopped", b"x" * 65):
        s["state-status-" + status.decode()[:8]] = state(
            **dict(good, status=b'"' + status + b'"'))
    s["state-version-number"] = state(**dict(good, ociVersion=b"1"))
    s["state-id-long"] = state(**dict(good, id=b'"' + b"i" * 1025 + b'"'))
    s["state-dup-pid"] = state(**good)[:-1] + b',"pid":1}'
    s["state-fold-PID"] = state(**{k: v for k, v in good.items()
                                   if k != "pid"}, PID=b"1234")
    s["state-fold-Bundle"] = state(**dict(good), Bundle=b'"/y"')
    s["state-fold-long-s"] = state(**{k: v for k, v in good.items()
                                      if k != "status"},
                                   **{"\u017ftatus": b'"creating"'})
    s["state-trailing"] = state(**good) + b"]"
    s["state-truncated"] = state(**good)[:40]
    s["state-utf8-bundle"] = state(**dict(good, bundle=b'"/x\xff"'))
    return s


def main():
    spec, rootless = (read_real(n) for n in REAL)
    seeds = config_seeds(spec, rootless)
    seeds.update(state_seeds())
    for name in os.listdir(CORPUS):
        if name not in REAL:
            os.unlink(os.path.join(CORPUS, name))
    for name, data in sorted(seeds.items()):
        with open(os.path.join(CORPUS, name + ".json"), "wb") as f:
            f.write(data)
    print("gen-corpus: wrote %d seeds to %s" % (len(seeds), CORPUS),
          file=sys.stderr)


if __name__ == "__main__":
    main()
