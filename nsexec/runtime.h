/* SPDX-License-Identifier: Apache-2.0 */
/*
 * nsexec/runtime.h: the one interface an OCI runtime calls (runc's nsexec,
 * the rebuilt crun, memfd-noexec's own tools) for a container's
 * vm.memfd_noexec level and the seccomp rule that goes with it.
 *
 * The runtime parses its spec with its own parser and hands over VALUES,
 * never a document:
 *  - the requested level exactly as it read it: the annotation
 *    "memfd_noexec" and/or linux.sysctl "vm.memfd_noexec" ("vm/memfd_noexec"),
 *    as decoded strings; nsexec_runtime_level() validates them (exactly
 *    "0", "1" or "2", several present must agree);
 *  - whether the process keeps CAP_SYS_ADMIN in its bounding set, by the
 *    runtime's own capability parsing (no bounding set given counts as
 *    keeping it);
 *  - whether a user namespace is created for it, and whether its PID
 *    namespace is created for it or joined.
 * The library applies the level (nsexec_runtime_apply(): the PID namespace
 * write, the memfd-noexec service for rootless) and decides the huge-page
 * rule.
 *
 * The huge-page rule: hugetlbfs ignores F_SEAL_EXEC, so at level 2 a
 * MFD_HUGETLB memfd could still be made executable.  The level that
 * decides it is read through an fd that the runtime opened with
 * nsexec_runtime_level_open() BEFORE it entered any of the container's
 * namespaces or made any of its mounts (so the file is never one the
 * container put there), and read in the container's process, in its final
 * PID namespace, after the level was applied (the kernel answers for the
 * READER's PID namespace): nsexec_runtime_hugetlb_rule().
 *
 * This folder links libseccomp (which runc and crun link already), and
 * never yajl or libcap: a runtime's package gains no dependency.
 *
 * Library code: returns -errno, with an error in *err where it takes one
 * (common/errors.h); never prints or exits.  ret_* are written only on
 * success.
 */
#ifndef NSEXEC_RUNTIME_H
#define NSEXEC_RUNTIME_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "errors.h"
#include "nsexec.h"

/* The spellings of the request, the one place they are written. */
#define NSEXEC_RUNTIME_ANNOTATION "memfd_noexec"      /* annotations[...] */
#define NSEXEC_RUNTIME_SYSCTL "vm.memfd_noexec"	      /* linux.sysctl[...] */
#define NSEXEC_RUNTIME_SYSCTL_SLASH "vm/memfd_noexec" /* runc's '/' spelling */

/* What nsexec_runtime_level() returns when nothing is asked for. */
#define NSEXEC_RUNTIME_LEVEL_NONE (-1)

/* The longest value quoted whole in a message; longer ones are -E2BIG. */
#define NSEXEC_RUNTIME_MAX_VALUE (64U * 1024)

/*
 * What a refused memfd_create(MFD_HUGETLB) returns: EPERM, the errno that
 * memfd_create(2) documents for a caller not allowed huge pages, which
 * programs that try a huge-page memfd already handle (and fall back to a
 * plain one), and what seccomp profiles answer by convention.  EACCES
 * would look like the kernel's own refusal of MFD_EXEC at level 2, which
 * it is not.  contrib/seccomp/memfd-hugetlb.json says the same (errnoRet 1).
 */
#define NSEXEC_HUGETLB_MEMFD_ERRNO EPERM

/* From this level on, the level comes with the rule. */
#define NSEXEC_HUGETLB_MEMFD_LEVEL 2

/* ---- the request ---------------------------------------------------------- */

/* One value as the runtime's parser decoded it: text NULL when absent;
 * len counts every byte (a decoded JSON string may hold a NUL). */
struct nsexec_runtime_value {
	const char *text;
	size_t len;
};

/* Where the runtime read the request. */
struct nsexec_runtime_values {
	struct nsexec_runtime_value annotation;	  /* annotations["memfd_noexec"] */
	struct nsexec_runtime_value sysctl;	  /* linux.sysctl["vm.memfd_noexec"] */
	struct nsexec_runtime_value sysctl_slash; /* linux.sysctl["vm/memfd_noexec"] */
};

/*
 * The level one value asks for.  name is the field as the user wrote it,
 * for the message (e.g. "annotations[\"memfd_noexec\"]"), where the file
 * it is in (e.g. "config.json").  Returns 0, 1 or 2, or:
 *  -EINVAL  anything but exactly "0", "1" or "2" (no sign, space or
 *           newline, no NUL byte);
 *  -E2BIG   a value longer than NSEXEC_RUNTIME_MAX_VALUE bytes.
 * The message quotes the value (escaped, shortened), names the field, lists
 * the allowed values and says what to change.
 */
int nsexec_runtime_parse_level(const char *name, const char *where,
			       const struct nsexec_runtime_value *value, struct mt_error **err);

/*
 * The level that values ask for: each present is checked with
 * nsexec_runtime_parse_level(), and they must agree (-EINVAL, naming both,
 * otherwise).  Returns 0, 1, 2 or NSEXEC_RUNTIME_LEVEL_NONE (none
 * present), or -errno as above.
 */
int nsexec_runtime_level(const struct nsexec_runtime_values *values, const char *where,
			 struct mt_error **err);

/* ---- applying it ---------------------------------------------------------- */

struct nsexec_runtime_request {
	int level;		    /* 0..2, from nsexec_runtime_level() */
	bool keeps_sys_admin;	    /* CAP_SYS_ADMIN stays in the bounding set */
	bool new_userns;	    /* a user namespace is created for it */
	enum nsexec_origin pidns;   /* NSEXEC_ORIGIN_CREATED or _JOINED */
	const char *service_socket; /* NULL: the default socket; "": never */
};

/*
 * Applies req to target's PID namespace (nsexec_apply_memfd_noexec(), by
 * its rules: created raised, never lowered; joined checked, never changed;
 * CAP_SYS_ADMIN without a user namespace refused unless the parent
 * enforces the level; rootless through the memfd-noexec service).  The
 * caller runs it before target runs any of the container's code.  Errors:
 * those of nsexec_apply_memfd_noexec(), and -EINVAL for a level outside
 * 0..2.
 */
int nsexec_runtime_apply(pid_t target, const struct nsexec_runtime_request *req,
			 struct nsexec_result *ret, struct mt_error **err);

/*
 * For an exec into a running container (runc exec, crun exec), before the
 * runtime joins its namespaces: target is the container's init, level what
 * the container asked for (NSEXEC_RUNTIME_LEVEL_NONE: no check), and
 * keeps_sys_admin whether the new process keeps CAP_SYS_ADMIN in its
 * bounding set, by the runtime's own reading of the exec's capabilities
 * (or the container's, when the exec gives none; no bounding set counts
 * as keeping it).  The CAP_SYS_ADMIN rule of creation, for the new
 * process: refused with -EPERM, naming the rule, where the container has
 * no user namespace of its own and its parent does not enforce the level
 * (nsexec_check_exec_sys_admin(), nsexec.h, which lists the errors).
 */
int nsexec_runtime_check_exec(pid_t target, int level, bool keeps_sys_admin, struct mt_error **err);

/* ---- the huge-page rule --------------------------------------------------- */

/*
 * Opens MT_MEMFD_NOEXEC_PATH (O_RDONLY | O_CLOEXEC) and checks that it is
 * on a procfs.  Call it before entering any of the container's namespaces
 * or making any of its mounts; pass what it returns down to
 * nsexec_runtime_hugetlb_rule().  Returns the fd, or -errno (which the
 * rule then counts as "unreadable"): -EMEDIUMTYPE when the file is not on
 * a procfs, or any -errno of open(2) or fstatfs(2).  Async-signal-safe.
 */
int nsexec_runtime_level_open(void);

/*
 * The effective level through level_fd (what nsexec_runtime_level_open()
 * returned; closed here if it is an fd), read by the CALLER, so in its
 * active PID namespace, clamped up to requested (0..2, or
 * NSEXEC_RUNTIME_LEVEL_NONE): a request for 2 always reads 2.  Returns 0,
 * 1 or 2, or:
 *  -EOPNOTSUPP   the kernel has no memfd exec control at all (no
 *                MFD_NOEXEC_SEAL, or no memfd_create()): there are no levels;
 *  -EMEDIUMTYPE  the file is not on a procfs;
 *  -EBADMSG      it holds anything but "N\n", N in 0..2;
 *  any other -errno of the open, fstatfs(2) or read(2).
 * An error is never clamped: nsexec_hugetlb_rule_needed() takes it as
 * "unreadable" and installs the rule.
 */
int nsexec_runtime_level_read(int level_fd, int requested);

/*
 * THE decision: whether a process needs the rule, given effective, what
 * nsexec_runtime_level_read() returned for it: 2 -> true; 0, 1 -> false;
 * -EOPNOTSUPP -> false (no levels, hence no level 2); any other -errno ->
 * true, fail-safe (the rule only refuses huge-page memfds, with EPERM,
 * which their users handle).
 */
bool nsexec_hugetlb_rule_needed(int effective);

/*
 * The one call a runtime makes in the container's process, in its final
 * PID namespace, after the level was applied and before its own seccomp
 * filter and before it drops capabilities: reads through level_fd (and
 * closes it), clamps up to requested, and installs the rule iff
 * nsexec_hugetlb_rule_needed() says so.  *ret_effective (if not NULL) gets
 * what nsexec_runtime_level_read() returned, for the caller's log, also
 * when nothing is installed.  Returns 1 if it installed the rule, 0 if none
 * is needed, or the -errno of nsexec_seccomp_deny_hugetlb_memfd() with
 * *err set.
 */
int nsexec_runtime_hugetlb_rule(int level_fd, int requested, int *ret_effective,
				struct mt_error **err);

/*
 * Installs, in the calling thread (and so in everything it forks or
 * executes), a seccomp filter that refuses memfd_create() with
 * NSEXEC_HUGETLB_MEMFD_ERRNO when MFD_HUGETLB is set in its flags, and
 * lets every other call, memfd_create() without MFD_HUGETLB included,
 * through.  It covers every system call ABI a process of this build can
 * use (x86-64: also i386 and x32; arm64: also arm; s390x: also s390;
 * mips64: also its n32 and o32); any other ABI kills the process.  It
 * stacks with the runtime's own filter (the kernel applies the strictest
 * answer) and leaves no_new_privs alone.
 *
 * Errors:
 *  -EACCES  the caller has neither CAP_SYS_ADMIN in its user namespace
 *           nor no_new_privs set, so the kernel refuses a filter;
 *  -EINVAL, -EFAULT, -ENOMEM, or any -errno from seccomp(2) or libseccomp
 *           (-EOPNOTSUPP: no seccomp filters in this kernel).
 */
int nsexec_seccomp_deny_hugetlb_memfd(struct mt_error **err);

#endif
