/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel library: kernel profiles and fail specs turned into seccomp
 * filters (default action ALLOW), one filter per profile or spec so that
 * overlapping rules have a defined winner (see fakekernel.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seccomp.h>
#include <sys/capability.h>

#include "fakekernel.h"
#include "macro.h"
#include "missing-syscall.h"

/* The kernel's __O_TMPFILE bit; O_TMPFILE also carries O_DIRECTORY. */
#define TMPFILE_BIT ((uint64_t)(O_TMPFILE & ~O_DIRECTORY))

#define FAKEKERNEL_MAX_ERRNO 4095 /* the kernel's MAX_ERRNO */
/* The largest errno a rule may return: libseccomp refuses 4095. */
#define FAKEKERNEL_MAX_RULE_ERRNO 4094
#define FAKEKERNEL_N_ARGS 6
#define SYSCALL_NAME_MAX 64

_printf_(1, 2) static void debug(const char *fmt, ...)
{
	const char *e = getenv("FAKEKERNEL_DEBUG");
	va_list ap;

	if (!e || !*e || strcmp(e, "0") == 0)
		return;
	va_start(ap, fmt);
	fputs("fakekernel: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/*
 * Add one ERRNO rule for a syscall named by libseccomp.  A syscall that
 * does not exist on this architecture (libseccomp gives a negative pseudo
 * number, e.g. open on aarch64) cannot be called, so there is nothing to
 * emulate.  A name libseccomp does not know at all is an error unless the
 * rule is optional (openat2 on an old libseccomp).
 */
static int add_rule(scmp_filter_ctx ctx, int err, const char *syscall, bool optional,
		    unsigned int n_cmp, const struct scmp_arg_cmp *cmp)
{
	int nr = seccomp_syscall_resolve_name(syscall);

	if (nr == __NR_SCMP_ERROR) {
		if (!optional)
			return -ENOSYS;
		debug("%s unknown to libseccomp, not emulated", syscall);
		return 0;
	}
	if (nr < 0)
		return 0;
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n_cmp, cmp);
}

/* Before 5.2: no new mount API. */
static int profile_nofsopen(scmp_filter_ctx ctx)
{
	static const char *const calls[] = {"fsopen",	 "fsconfig",   "fsmount",      "fspick",
					    "open_tree", "move_mount", "mount_setattr"};
	int r;

	for (size_t i = 0; i < ELEMENTSOF(calls); i++) {
		r = add_rule(ctx, ENOSYS, calls[i], true, 0, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Before 3.17: no memfd_create(2) (and so no fsopen either). */
static int profile_nomemfd(scmp_filter_ctx ctx)
{
	int r = profile_nofsopen(ctx);

	if (r < 0)
		return r;
	return add_rule(ctx, ENOSYS, "memfd_create", false, 0, NULL);
}

/*
 * No overlayfs to be had: its one string option, lowerdir, is refused.
 * (seccomp cannot read the filesystem name fsopen() gets; the loader sets
 * no other string option, so this reaches overlayfs alone.)
 */
static int profile_nooverlay(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp set_string = SCMP_A1(SCMP_CMP_EQ, FSCONFIG_SET_STRING, 0);

	return add_rule(ctx, ENODEV, "fsconfig", true, 1, &set_string);
}

/* Unprivileged user namespaces refused (a sysctl, AppArmor, SELinux). */
static int profile_nouserns(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp unshare_user =
		SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
	int r;

	r = add_rule(ctx, EPERM, "unshare", false, 1, &unshare_user);
	if (r < 0)
		return r;
	r = add_rule(ctx, EPERM, "clone", false, 1, &unshare_user);
	if (r < 0)
		return r;
	/* Its flags sit in a struct: make callers use clone(). */
	return add_rule(ctx, ENOSYS, "clone3", true, 0, NULL);
}

/* 6.1 and 6.2: MFD_EXEC, MFD_NOEXEC_SEAL and F_SEAL_EXEC are unknown bits. */
static int profile_6_1(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp exec = SCMP_A1(SCMP_CMP_MASKED_EQ, MFD_EXEC, MFD_EXEC);
	struct scmp_arg_cmp noexec = SCMP_A1(SCMP_CMP_MASKED_EQ, MFD_NOEXEC_SEAL, MFD_NOEXEC_SEAL);
	struct scmp_arg_cmp seal[] = {
		SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffU, F_ADD_SEALS),
		SCMP_A2(SCMP_CMP_MASKED_EQ, F_SEAL_EXEC, F_SEAL_EXEC),
	};
	int r;

	r = add_rule(ctx, EINVAL, "memfd_create", false, 1, &exec);
	if (r < 0)
		return r;
	r = add_rule(ctx, EINVAL, "memfd_create", false, 1, &noexec);
	if (r < 0)
		return r;
	r = add_rule(ctx, EINVAL, "fcntl", false, ELEMENTSOF(seal), seal);
	if (r < 0)
		return r;
	/* 32-bit ABIs; a pseudo number (skipped) on 64-bit ones. */
	return add_rule(ctx, EINVAL, "fcntl64", false, ELEMENTSOF(seal), seal);
}

/*
 * 6.3 to 6.5.2 at vm.memfd_noexec=2: a call without an exec flag fails with
 * EINVAL, while MFD_EXEC bypassed the enforcement and is let through.
 */
static int profile_6_3_level2(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp none = SCMP_A1(SCMP_CMP_MASKED_EQ, MFD_EXEC | MFD_NOEXEC_SEAL, 0);

	return add_rule(ctx, EINVAL, "memfd_create", false, 1, &none);
}

/* A filesystem (or a kernel before 3.11) without O_TMPFILE. */
static int profile_notmpfile(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp open_tmp = SCMP_A1(SCMP_CMP_MASKED_EQ, TMPFILE_BIT, TMPFILE_BIT);
	struct scmp_arg_cmp openat_tmp = SCMP_A2(SCMP_CMP_MASKED_EQ, TMPFILE_BIT, TMPFILE_BIT);
	int r;

	r = add_rule(ctx, EOPNOTSUPP, "open", false, 1, &open_tmp);
	if (r < 0)
		return r;
	r = add_rule(ctx, EOPNOTSUPP, "openat", false, 1, &openat_tmp);
	if (r < 0)
		return r;
	/* Its flags sit in a struct seccomp cannot read: drop it entirely. */
	return add_rule(ctx, ENOSYS, "openat2", true, 0, NULL);
}

/* Before 3.19: no execveat(2) (and so no fsopen either). */
static int profile_noexecveat(scmp_filter_ctx ctx)
{
	int r = profile_nofsopen(ctx);

	if (r < 0)
		return r;
	return add_rule(ctx, ENOSYS, "execveat", false, 0, NULL);
}

struct profile_def {
	struct fakekernel_profile pub;
	/* Higher loads later and so wins: the older kernel. */
	int load_order;
	int (*add_rules)(scmp_filter_ctx ctx);
};

/* One block per profile: clang-format 14 mangles nested designators. */
/* clang-format off */
static const struct profile_def profiles[] = {
	{
		.pub = {
			.name = "nomemfd",
			.description = "memfd_create() and the new mount API fail with ENOSYS, no vm.memfd_noexec (before 3.17)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_HIDE,
		},
		.load_order = 3,
		.add_rules = profile_nomemfd,
	},
	{
		.pub = {
			.name = "6.1",
			.description = "MFD_EXEC, MFD_NOEXEC_SEAL and F_SEAL_EXEC fail with EINVAL, no vm.memfd_noexec (6.1, 6.2)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_HIDE,
		},
		.load_order = 1,
		.add_rules = profile_6_1,
	},
	{
		.pub = {
			.name = "6.3-level2",
			.description = "memfd_create() without MFD_EXEC or MFD_NOEXEC_SEAL fails with EINVAL, MFD_EXEC works, vm.memfd_noexec reads 2 (6.3 to 6.5.2 at level 2; use on a real level 0 or 1)",
			.memfd_noexec = 2,
		},
		.load_order = 0,
		.add_rules = profile_6_3_level2,
	},
	{
		.pub = {
			.name = "notmpfile",
			.description = "open()/openat() with O_TMPFILE fail with EOPNOTSUPP, openat2() with ENOSYS (no O_TMPFILE support)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_REAL,
		},
		.load_order = 4,
		.add_rules = profile_notmpfile,
	},
	{
		.pub = {
			.name = "noexecveat",
			.description = "execveat() and the new mount API fail with ENOSYS (before 3.19)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_REAL,
		},
		.load_order = 2,
		.add_rules = profile_noexecveat,
	},
	{
		.pub = {
			.name = "nofsopen",
			.description = "fsopen(), fsconfig(), fsmount() and the rest of the new mount API fail with ENOSYS (before 5.2)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_REAL,
		},
		.load_order = 7,
		.add_rules = profile_nofsopen,
	},
	{
		.pub = {
			.name = "nooverlay",
			.description = "overlayfs refuses its lowerdir with ENODEV (no overlayfs to be had)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_REAL,
		},
		.load_order = 5,
		.add_rules = profile_nooverlay,
	},
	{
		.pub = {
			.name = "nouserns",
			.description = "unshare() and clone() with CLONE_NEWUSER fail with EPERM, clone3() with ENOSYS (unprivileged user namespaces off)",
			.memfd_noexec = FAKEKERNEL_SYSCTL_REAL,
		},
		.load_order = 6,
		.add_rules = profile_nouserns,
	},
};
/* clang-format on */

const struct fakekernel_profile *fakekernel_profile_by_index(size_t idx)
{
	if (idx >= ELEMENTSOF(profiles))
		return NULL;
	return &profiles[idx].pub;
}

/* Parse "a,b,c" into a bit mask over profiles[] and the implied sysctl. */
static int parse_profiles(const char *list, unsigned int *ret_mask, int *ret_mode)
{
	unsigned int mask = 0;
	int mode = FAKEKERNEL_SYSCTL_REAL;
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < ELEMENTSOF(profiles); i++) {
			const char *name = profiles[i].pub.name;

			if (strlen(name) == len && strncmp(p, name, len) == 0)
				break;
		}
		if (i == ELEMENTSOF(profiles))
			return -EINVAL;
		if (profiles[i].pub.memfd_noexec != FAKEKERNEL_SYSCTL_REAL) {
			if (mode != FAKEKERNEL_SYSCTL_REAL && mode != profiles[i].pub.memfd_noexec)
				return -EINVAL;
			mode = profiles[i].pub.memfd_noexec;
		}
		mask |= 1U << i;

		p += len;
		if (*p == ',') {
			p++;
			if (!*p) /* trailing comma */
				return -EINVAL;
		}
	}

	*ret_mask = mask;
	*ret_mode = mode;
	return 0;
}

int fakekernel_profiles_memfd_noexec(const char *profile_list, int *ret_mode)
{
	unsigned int mask;
	int mode, r;

	r = parse_profiles(profile_list, &mask, &mode);
	if (r < 0)
		return r;
	*ret_mode = mode;
	return 0;
}

int fakekernel_errno_from_name(const char *name)
{
	static const struct {
		const char *name;
		int err;
	} aliases[] = {
		{"ENOTSUP", ENOTSUP},
		{"EWOULDBLOCK", EWOULDBLOCK},
		{"EDEADLOCK", EDEADLOCK},
	};

	if (!name || name[0] != 'E')
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
		if (strcmp(name, aliases[i].name) == 0)
			return aliases[i].err;
	for (int err = 1; err <= FAKEKERNEL_MAX_ERRNO; err++) {
		const char *n = strerrorname_np(err);

		if (n && strcmp(name, n) == 0)
			return err;
	}
	return -EINVAL;
}

const char *fakekernel_errno_name(int err)
{
	if (err <= 0)
		return NULL;
	return strerrorname_np(err);
}

/*
 * An unsigned number in C notation (decimal, 0x hex, 0 octal) at *p; *p is
 * moved past it.  No sign, no blanks: those are what strtoull would skip.
 */
static int parse_u64(const char **p, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtoull(*p, &end, 0);
	if (errno != 0)
		return -EINVAL;
	*p = end;
	*ret = v;
	return 0;
}

static int parse_errno(const char *s, int *ret)
{
	int err;

	if (isdigit((unsigned char)*s)) {
		uint64_t v;
		int r = parse_u64(&s, &v);

		if (r < 0)
			return r;
		/* 0: the call "succeeds" without running (SCMP_ACT_ERRNO(0)),
		 * to test that results are verified, not trusted. */
		if (*s || v > FAKEKERNEL_MAX_RULE_ERRNO)
			return -EINVAL;
		err = (int)v;
	} else {
		err = fakekernel_errno_from_name(s);
		if (err < 0)
			return err;
	}
	*ret = err;
	return 0;
}

struct fail_rule {
	int nr;
	int err;
	unsigned int n_cmp;
	struct scmp_arg_cmp cmp[FAKEKERNEL_N_ARGS];
};

static int parse_fail_spec(const char *spec, struct fail_rule *ret)
{
	uint64_t mask[FAKEKERNEL_N_ARGS] = {0};
	uint64_t value[FAKEKERNEL_N_ARGS] = {0};
	struct fail_rule rule = {.n_cmp = 0};
	char name[SYSCALL_NAME_MAX];
	const char *p = spec;
	size_t len;
	int r;

	if (!spec)
		return -EINVAL;

	len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (len == 0 || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, p, len);
	name[len] = '\0';
	p += len;

	if (*p == '[') {
		p++;
		for (;;) {
			uint64_t idx, m = UINT64_MAX, v;

			r = parse_u64(&p, &idx);
			if (r < 0)
				return r;
			if (idx >= FAKEKERNEL_N_ARGS)
				return -EINVAL;
			if (*p == '&') {
				p++;
				r = parse_u64(&p, &m);
				if (r < 0)
					return r;
			}
			if (strncmp(p, "==", 2) != 0)
				return -EINVAL;
			p += 2;
			r = parse_u64(&p, &v);
			if (r < 0)
				return r;
			/* Never true, or always true: surely a mistake. */
			if (m == 0 || (v & ~m) != 0)
				return -EINVAL;
			/* Merge with an earlier condition on the same arg. */
			if ((mask[idx] & m & (value[idx] ^ v)) != 0)
				return -EINVAL;
			mask[idx] |= m;
			value[idx] |= v;

			if (*p == ']') {
				p++;
				break;
			}
			if (*p != ',')
				return -EINVAL;
			p++;
		}
	}

	if (*p != '=')
		return -EINVAL;
	r = parse_errno(p + 1, &rule.err);
	if (r < 0)
		return r;

	/* Unknown to libseccomp, or not a syscall of this architecture. */
	rule.nr = seccomp_syscall_resolve_name(name);
	if (rule.nr < 0)
		return -EINVAL;

	for (unsigned int i = 0; i < FAKEKERNEL_N_ARGS; i++) {
		struct scmp_arg_cmp *c;

		if (mask[i] == 0)
			continue;
		c = &rule.cmp[rule.n_cmp++];
		c->arg = i;
		if (mask[i] == UINT64_MAX) {
			c->op = SCMP_CMP_EQ;
			c->datum_a = value[i];
			c->datum_b = 0;
		} else {
			c->op = SCMP_CMP_MASKED_EQ;
			c->datum_a = mask[i];
			c->datum_b = value[i];
		}
	}

	*ret = rule;
	return 0;
}

/* One seccomp context per profile or fail spec, in load order. */
struct filter_set {
	scmp_filter_ctx *ctx;
	const char **what; /* profile name or fail spec, for debug markers */
	size_t n;
};

static void filter_set_done(struct filter_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		seccomp_release(set->ctx[i]);
	free(set->ctx);
	free(set->what);
	*set = (struct filter_set){NULL, NULL, 0};
}

static int filter_new(scmp_filter_ctx *ret)
{
	scmp_filter_ctx ctx;
	int r;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -ENOMEM;
	/*
	 * Only the native ABI is filtered; let foreign-ABI syscalls through
	 * rather than kill the program under test.
	 */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (r >= 0)
		/* seccomp_load() then passes the kernel's errno up. */
		r = seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1);
	if (r < 0) {
		seccomp_release(ctx);
		return r;
	}
	*ret = ctx;
	return 0;
}

static int build_filters(const char *profile_list, const char *const *fail_specs, size_t n_fail,
			 struct filter_set *ret)
{
	_cleanup_free_ struct fail_rule *rules = NULL;
	_cleanup_(filter_set_done) struct filter_set set = {NULL, NULL, 0};
	unsigned int mask;
	size_t n_max;
	int mode, r;

	if (n_fail > 0 && !fail_specs)
		return -EINVAL;

	r = parse_profiles(profile_list, &mask, &mode);
	if (r < 0)
		return r;

	if (n_fail > 0) {
		rules = calloc(n_fail, sizeof(*rules));
		if (!rules)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n_fail; i++) {
		r = parse_fail_spec(fail_specs[i], &rules[i]);
		if (r < 0)
			return r;
	}

	n_max = ELEMENTSOF(profiles) + n_fail;
	set.ctx = calloc(n_max, sizeof(*set.ctx));
	set.what = calloc(n_max, sizeof(*set.what));
	if (!set.ctx || !set.what)
		return -ENOMEM;

	for (int order = 0; order < (int)ELEMENTSOF(profiles); order++) {
		for (size_t i = 0; i < ELEMENTSOF(profiles); i++) {
			if (!(mask & (1U << i)) || profiles[i].load_order != order)
				continue;
			r = filter_new(&set.ctx[set.n]);
			if (r < 0)
				return r;
			set.what[set.n] = profiles[i].pub.name;
			set.n++;
			r = profiles[i].add_rules(set.ctx[set.n - 1]);
			if (r < 0)
				return r;
		}
	}

	for (size_t i = 0; i < n_fail; i++) {
		r = filter_new(&set.ctx[set.n]);
		if (r < 0)
			return r;
		set.what[set.n] = fail_specs[i];
		set.n++;
		r = seccomp_rule_add_array(set.ctx[set.n - 1], SCMP_ACT_ERRNO(rules[i].err),
					   rules[i].nr, rules[i].n_cmp, rules[i].cmp);
		if (r < 0)
			/* libseccomp refuses it: still the spec's fault. */
			return r == -ENOMEM ? r : -EINVAL;
	}

	*ret = set;
	set = (struct filter_set){NULL, NULL, 0};
	return 0;
}

int fakekernel_check(const char *profile_list, const char *const *fail_specs, size_t n_fail)
{
	_cleanup_(filter_set_done) struct filter_set set = {NULL, NULL, 0};

	return build_filters(profile_list, fail_specs, n_fail, &set);
}

static void cap_freep(cap_t *caps)
{
	if (*caps)
		cap_free(*caps);
}

/* 1 if CAP_SYS_ADMIN is effective in our user namespace, 0 if not. */
static int have_cap_sys_admin(void)
{
	_cleanup_(cap_freep) cap_t caps = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (!caps)
		return negative_errno();
	if (cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v) < 0)
		return negative_errno();
	return v == CAP_SET;
}

int fakekernel_load(const char *profile_list, const char *const *fail_specs, size_t n_fail)
{
	_cleanup_(filter_set_done) struct filter_set set = {NULL, NULL, 0};
	int admin, r;

	r = build_filters(profile_list, fail_specs, n_fail, &set);
	if (r < 0)
		return r;
	if (set.n == 0)
		return 0;

	/*
	 * The kernel takes a filter from a task that has CAP_SYS_ADMIN in
	 * its user namespace without no_new_privs; keeping it off there lets
	 * setuid helpers (su, sudo) work under the filter.
	 */
	admin = have_cap_sys_admin();
	if (admin < 0)
		return admin;

	for (size_t i = 0; i < set.n; i++) {
		r = seccomp_attr_set(set.ctx[i], SCMP_FLTATR_CTL_NNP, admin ? 0 : 1);
		if (r < 0)
			return r;
		r = seccomp_load(set.ctx[i]);
		if (r < 0)
			return r;
		debug("loaded filter for %s", set.what[i]);
	}
	debug("loaded %zu filters, no_new_privs %s", set.n, admin ? "left off" : "set");
	return 0;
}
