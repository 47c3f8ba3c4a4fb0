# SPDX-License-Identifier: Apache-2.0
# deny-hugetlb-memfd.jq: adds to a seccomp profile the rule that closes the
# hugetlbfs hole of vm.memfd_noexec=2 for stock runtimes: memfd_create()
# with MFD_HUGETLB (0x4) in its flags fails with EPERM; every other
# memfd_create() stays as the profile had it.  The patched runc adds the
# same rule by itself at level 2 (contrib/runc/1.1/patches/0005).
#
# Input: a profile in podman's and Docker's format
# (/usr/share/containers/seccomp.json, Docker's default.json) or an OCI
# config.json's linux.seccomp object.  Output: the same profile with the
# rule.  For example, for podman:
#
#   jq -f deny-hugetlb-memfd.jq /usr/share/containers/seccomp.json \
#       >/etc/containers/seccomp-memfd-noexec.json
#   podman run --security-opt seccomp=/etc/containers/seccomp-memfd-noexec.json ...
#
# It refuses (jq exits 5) a profile where memfd_create is conditional
# already (arguments, includes or excludes), rather than guess how the two
# conditions combine.

def memfd_rule($action; $datum):
	{names: ["memfd_create"], action: $action,
	 args: [{index: 1, value: 4, valueTwo: $datum, op: "SCMP_CMP_MASKED_EQ"}]};

def unconditional:
	((.args // []) | length) == 0 and
	((.includes // {}) | length) == 0 and ((.excludes // {}) | length) == 0;

if type != "object" or (.defaultAction | type) != "string" then
	error("deny-hugetlb-memfd.jq: the input is not a seccomp profile (an object with a defaultAction)")
else . end
| (.syscalls // []) as $rules
| if any($rules[]; (.names // [] | index("memfd_create")) and (unconditional | not)) then
	error("deny-hugetlb-memfd.jq: memfd_create is already conditional in this profile (arguments, includes or excludes); add the rule by hand: memfd_create with (flags & 0x4) == 0x4 fails with EPERM")
else . end
| [$rules[] | select(.names // [] | index("memfd_create"))] as $own
| if ([$own[] | {action, errnoRet}] | unique | length) > 1 then
	error("deny-hugetlb-memfd.jq: memfd_create has more than one action in this profile; add the rule by hand: memfd_create with (flags & 0x4) == 0x4 fails with EPERM")
else . end
| .defaultAction as $default
# memfd_create without MFD_HUGETLB keeps what it had: its own rule (now
# conditional), or the default action.
| .syscalls = [$rules[] | .names -= ["memfd_create"] | select(.names | length > 0)]
	+ [$own[:1][] | memfd_rule(.action; 0) + (if .errnoRet then {errnoRet} else {} end)
	   | select(.action != $default or .errnoRet)]
	+ [memfd_rule("SCMP_ACT_ERRNO"; 4) + {errnoRet: 1}]
