/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests for nsexec/runtime.h, the interface every runtime calls: the
 * request's values checked (as tables), the level read through an fd
 * opened before the container's mounts (clamped up to the request, never
 * fooled by a procfs file put over the sysctl), and the huge-page seccomp
 * rule that goes with it.
 *
 *   runtime_test CASE     run one case (CTest runs each in its own process,
 *                         with a timeout)
 *   runtime_test          run every case, each in a forked child
 *
 * Exit 0 pass, 1 fail, 77 skip (only when CI is not "true").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakekernel.h"
#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "runtime.h"

static const char *current;

_noreturn_ _printf_(1, 2) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL %s: ", current);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void check_message(const char *error, const char *const want[4])
{
	for (size_t i = 0; i < 4 && want[i]; i++)
		if (!strstr(error, want[i]))
			die("message lacks '%s': %s", want[i], error);
}

/* ---- the request's values ------------------------------------------------ */

#define ANNOTATION "annotations[\"memfd_noexec\"]"
#define ALLOWED "\"0\", \"1\" or \"2\""

/* One value, as a runtime's parser decoded it: what it gives, and what the
 * message must say. */
static const struct {
	const char *text;
	size_t len;
	int want;
	const char *msg[4];
} value_rows[] = {
	{"0", 1, 0, {}},
	{"1", 1, 1, {}},
	{"2", 1, 2, {}},
	{"3", 1, -EINVAL, {ANNOTATION " = \"3\" in config.json", ALLOWED, "remove it"}},
	{"-1", 2, -EINVAL, {ANNOTATION " = \"-1\" in config.json", ALLOWED}},
	{"", 0, -EINVAL, {ANNOTATION " = \"\" in config.json", ALLOWED}},
	{" 2", 2, -EINVAL, {ANNOTATION " = \" 2\" in config.json", ALLOWED}},
	{"2\n", 2, -EINVAL, {ANNOTATION " = \"2\\n\" in config.json", ALLOWED}},
	{"two", 3, -EINVAL, {ANNOTATION " = \"two\" in config.json", ALLOWED}},
	{"02", 2, -EINVAL, {ANNOTATION " = \"02\"", ALLOWED}},
	/* Go strings may hold a NUL: the runtime passes every byte. */
	{"2\0", 2, -EINVAL, {ANNOTATION " = \"2\\u0000\"", ALLOWED}},
	{"\xff", 1, -EINVAL, {ANNOTATION " = \"\\u00ff\"", ALLOWED}},
};

static void case_parse_level_table(void)
{
	for (size_t i = 0; i < ELEMENTSOF(value_rows); i++) {
		_cleanup_error_ struct mt_error *e = NULL;
		struct nsexec_runtime_value v = {value_rows[i].text, value_rows[i].len};
		int r = nsexec_runtime_parse_level(ANNOTATION, "config.json", &v, &e);

		if (r != value_rows[i].want)
			die("row %zu: %d, expected %d (%s)", i, r, value_rows[i].want,
			    mt_error_message(e));
		if (r >= 0 && e)
			die("row %zu: success with a message: %s", i, e->msg);
		if (r < 0) {
			if (!e || e->err != -r)
				die("row %zu: no error, or another errno", i);
			check_message(e->msg, value_rows[i].msg);
		}
	}
}

static void case_parse_level_big(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	size_t n = 1024 * 1024;
	_cleanup_free_ char *big = malloc(n);
	struct nsexec_runtime_value v = {big, n};

	if (!big)
		die("out of memory");
	memset(big, 'x', n);
	if (nsexec_runtime_parse_level(ANNOTATION, "config.json", &v, &e) != -E2BIG)
		die("a 1 MiB value: not -E2BIG");
	check_message(e->msg, (const char *const[4]){"(1048576 bytes) in config.json",
						     "longer than 65536 bytes", ALLOWED});
}

static void case_level_agreement(void)
{
	static const struct {
		const char *annotation, *sysctl, *slash;
		int want;
		const char *msg[4];
	} rows[] = {
		{NULL, NULL, NULL, NSEXEC_RUNTIME_LEVEL_NONE, {}},
		{"2", NULL, NULL, 2, {}},
		{NULL, "1", NULL, 1, {}},
		{NULL, NULL, "0", 0, {}},
		{"1", "1", "1", 1, {}},
		{"2",
		 "1",
		 NULL,
		 -EINVAL,
		 {ANNOTATION " = \"2\"", "linux.sysctl[\"vm.memfd_noexec\"] = \"1\"",
		  "different vm.memfd_noexec levels"}},
		{NULL,
		 "2",
		 "0",
		 -EINVAL,
		 {"linux.sysctl[\"vm.memfd_noexec\"] = \"2\"",
		  "linux.sysctl[\"vm/memfd_noexec\"] = \"0\""}},
		/* A bad one is refused, whether or not another agrees. */
		{"2", "x", NULL, -EINVAL, {"linux.sysctl[\"vm.memfd_noexec\"] = \"x\"", ALLOWED}},
	};

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		_cleanup_error_ struct mt_error *e = NULL;
		struct nsexec_runtime_values v = {
			{rows[i].annotation, rows[i].annotation ? strlen(rows[i].annotation) : 0},
			{rows[i].sysctl, rows[i].sysctl ? strlen(rows[i].sysctl) : 0},
			{rows[i].slash, rows[i].slash ? strlen(rows[i].slash) : 0},
		};
		int r = nsexec_runtime_level(&v, "config.json", &e);

		if (r != rows[i].want)
			die("row %zu: %d, expected %d (%s)", i, r, rows[i].want,
			    mt_error_message(e));
		if (r < -1)
			check_message(e->msg, rows[i].msg);
		else if (e)
			die("row %zu: success with a message: %s", i, e->msg);
	}
}

static void case_apply_bad_level(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct nsexec_runtime_request req = {.level = 3, .pidns = NSEXEC_ORIGIN_CREATED};
	struct nsexec_result res;

	if (nsexec_runtime_apply(getpid(), &req, &res, &e) != -EINVAL)
		die("level 3 was not refused");
	check_message(e->msg, (const char *const[4]){"vm.memfd_noexec=3", "0, 1 or 2"});
}

/* ---- the MFD_HUGETLB seccomp rule --------------------------------------- */

/* memfd_create() with the full 64-bit flags register; -errno or an fd. */
static long memfd_raw(unsigned long flags)
{
	long r = syscall(__NR_memfd_create, "runtime_test", flags);

	return r < 0 ? -errno : r;
}

#if defined(__x86_64__) && !defined(__ILP32__)
/* The same through the i386 ABI (int 0x80, memfd_create is 356 there),
 * which an x86-64 process may use too; the name below 4 GiB. */
static long memfd_i386(unsigned flags)
{
	static char *name;
	long r;

	if (!name) {
		name = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (name == MAP_FAILED)
			die("Failed to map a page below 4 GiB: %m");
		strcpy(name, "runtime_test_i386");
	}
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(356L), "b"(name), "c"((long)flags) : "memory");
	return r;
}

/*
 * Whether this kernel runs i386 system calls at all: without IA32
 * emulation (CONFIG_IA32_EMULATION=n, or ia32_emulation=0 since 6.7) int
 * 0x80 kills the caller with SIGSEGV, so a child tries it.  Nothing can
 * then reach memfd_create through that ABI, filter or not.
 */
static bool i386_abi_available(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("Failed to fork: %m");
	if (pid == 0) {
		(void)memfd_i386(MFD_CLOEXEC); /* faults, or returns */
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("Failed to wait for the i386 probe: %m");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
#endif

/* <linux/memfd.h>'s huge page sizes (4.14), which glibc leaves out. */
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21UL << 26)
#endif
#ifndef MFD_HUGE_1GB
#define MFD_HUGE_1GB (30UL << 26)
#endif

/* Flags, in the full register, and whether the rule must refuse them. */
static const struct {
	unsigned long flags;
	bool refused;
} hugetlb_flags[] = {
	{0, false},
	{MFD_CLOEXEC, false},
	{MFD_CLOEXEC | MFD_ALLOW_SEALING, false},
	{MFD_NOEXEC_SEAL, false},
	{MFD_HUGETLB, true},
	{MFD_HUGETLB | MFD_CLOEXEC, true},
	{MFD_HUGETLB | MFD_HUGE_2MB, true},
	{MFD_HUGETLB | MFD_HUGE_1GB | MFD_ALLOW_SEALING | MFD_CLOEXEC, true},
	/* The kernel reads an unsigned int: the upper half changes nothing. */
	{(1UL << 32) | MFD_CLOEXEC, false},
	{(1UL << 32) | MFD_HUGETLB, true},
	{MFD_HUGE_2MB, false}, /* a size without MFD_HUGETLB: EINVAL */
};

static void close_if_fd(long r)
{
	if (r >= 0)
		close((int)r);
}

static int status_field(const char *field)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	size_t n = strlen(field);

	if (!f)
		die("Failed to open /proc/self/status: %m");
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			return atoi(line + n + 1);
	die("no %s in /proc/self/status", field);
}

static void case_seccomp_hugetlb(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	long before[ELEMENTSOF(hugetlb_flags)];
	int r;

	/* Without the filter no call gets EPERM (MFD_HUGETLB works without
	 * reserved pages: they are taken at mmap time). */
	for (size_t i = 0; i < ELEMENTSOF(hugetlb_flags); i++) {
		before[i] = memfd_raw(hugetlb_flags[i].flags);
		if (before[i] == -EPERM)
			die("flags 0x%lx: EPERM before the filter", hugetlb_flags[i].flags);
		close_if_fd(before[i]);
	}
	if (before[4] < 0)
		die("memfd_create(MFD_HUGETLB) fails here without the filter: %s",
		    strerror((int)-before[4]));
	/* As root, without no_new_privs (runc init has CAP_SYS_ADMIN); else
	 * with it, as the library allows. */
	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("Failed to set no_new_privs: %m");
	r = nsexec_seccomp_deny_hugetlb_memfd(&e);
	if (r < 0)
		die("nsexec_seccomp_deny_hugetlb_memfd: %d: %s", r, mt_error_message(e));
	if (e)
		die("success with a message: %s", e->msg);
	if (status_field("Seccomp") != 2)
		die("no seccomp filter in force");
	if (geteuid() == 0 && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 0)
		die("the filter set no_new_privs");

	for (size_t i = 0; i < ELEMENTSOF(hugetlb_flags); i++) {
		long got = memfd_raw(hugetlb_flags[i].flags);

		if (hugetlb_flags[i].refused && got != -NSEXEC_HUGETLB_MEMFD_ERRNO)
			die("flags 0x%lx: got %ld, expected -%d", hugetlb_flags[i].flags, got,
			    NSEXEC_HUGETLB_MEMFD_ERRNO);
		if (!hugetlb_flags[i].refused && (got >= 0) != (before[i] >= 0))
			die("flags 0x%lx: got %ld, before the filter %ld", hugetlb_flags[i].flags,
			    got, before[i]);
		close_if_fd(got);
	}
	/* Other system calls are left alone. */
	if (getpid() <= 0 || access("/", F_OK) < 0)
		die("other system calls changed: %m");
#if defined(__x86_64__) && !defined(__ILP32__)
	if (!i386_abi_available()) {
		fprintf(stderr,
			"seccomp_hugetlb: this kernel has no i386 system calls (int 0x80 faults); the i386 half is not reachable, nor tested\n");
	} else {
		long plain = memfd_i386(MFD_CLOEXEC), huge = memfd_i386(MFD_HUGETLB);

		if (plain < 0 && plain != -ENOSYS)
			die("i386 memfd_create(MFD_CLOEXEC): %ld", plain);
		if (plain >= 0 && huge != -NSEXEC_HUGETLB_MEMFD_ERRNO)
			die("i386 memfd_create(MFD_HUGETLB): %ld, expected -%d", huge,
			    NSEXEC_HUGETLB_MEMFD_ERRNO);
		close_if_fd(plain);
		close_if_fd(huge);
	}
#endif
}

static void case_seccomp_survives_exec(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int status;
	pid_t pid;

	if (geteuid() != 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("Failed to set no_new_privs: %m");
	if (nsexec_seccomp_deny_hugetlb_memfd(&e) < 0)
		die("nsexec_seccomp_deny_hugetlb_memfd: %s", mt_error_message(e));
	pid = fork();
	if (pid < 0)
		die("Failed to fork: %m");
	if (pid == 0) {
		/* The shell's own status after the exec: 2 is a filter. */
		execl("/bin/sh", "sh", "-c", "grep -q '^Seccomp:.2$' /proc/self/status", NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("the filter did not survive execve (status 0x%x)", status);
}

static void case_seccomp_unprivileged(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int r;

	/* Neither CAP_SYS_ADMIN nor no_new_privs: the kernel says no. */
	if (geteuid() == 0 && (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
			       setresuid(65534, 65534, 65534) < 0))
		die("Failed to drop to uid 65534: %m");
	r = nsexec_seccomp_deny_hugetlb_memfd(&e);
	if (r != -EACCES || !e || e->err != EACCES)
		die("returned %d (%s), expected -EACCES", r, mt_error_message(e));
	check_message(e->msg, (const char *const[4]){"refuses MFD_HUGETLB memfds", "CAP_SYS_ADMIN",
						     "no_new_privs"});
	if (status_field("Seccomp") != 0)
		die("a filter was installed anyway");
}

/* ---- the hugetlb rule follows the effective level ------------------------ */

/* nsexec_hugetlb_rule_needed(): what was read, then the answer. */
static const struct {
	int effective;
	bool needed;
} rule_rows[] = {
	{2, true},
	{1, false},
	{0, false},
	/* No levels in this kernel: nothing to protect. */
	{-EOPNOTSUPP, false},
	/* Unreadable: fail-safe, the rule. */
	{-ENOENT, true},
	{-EMEDIUMTYPE, true},
	{-EBADMSG, true},
	{-EACCES, true},
	{-EPERM, true},
	{-EMFILE, true},
};

static void case_hugetlb_rule_table(void)
{
	for (size_t i = 0; i < ELEMENTSOF(rule_rows); i++)
		if (nsexec_hugetlb_rule_needed(rule_rows[i].effective) != rule_rows[i].needed)
			die("effective %d: needed %d, expected %d", rule_rows[i].effective,
			    !rule_rows[i].needed, rule_rows[i].needed);
}

/* Cases that make namespaces and mounts need global root; a developer's
 * run without it skips them (77), CI fails them. */
static void require_root(void)
{
	const char *ci = getenv("CI");

	if (geteuid() == 0)
		return;
	if (ci && strcmp(ci, "true") == 0)
		die("needs root (CI=true: not skipped)");
	fprintf(stderr, "skip %s: needs root\n", current);
	exit(77);
}

static void wait_ok(pid_t pid, const char *what)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("Failed to wait for %s: %m", what);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("%s failed (status 0x%x)", what, status);
}

/*
 * Runs fn as PID 1 of a new PID namespace, a child of the caller's, after
 * writing level there (-1: nothing written, the namespace inherits).  A
 * write below the parent's level fails with EINVAL, as it must, and is
 * ignored: that is a request for less than the parent enforces.  Never
 * writes anywhere but in a namespace it just created.
 */
static void in_new_pidns(int level, void (*fn)(void))
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("Failed to fork: %m");
	if (pid == 0) {
		pid_t init;

		if (unshare(CLONE_NEWPID) < 0)
			die("Failed to create a PID namespace: %m");
		init = fork();
		if (init < 0)
			die("Failed to fork: %m");
		if (init == 0) {
			int r;

			if (getpid() != 1)
				die("not PID 1 of a new PID namespace: refusing to write");
			if (level >= 0) {
				r = mt_memfd_noexec_write(level, NULL);
				if (r < 0 && r != -EINVAL)
					die("Failed to write %d: %s", level, strerror(-r));
			}
			fn();
			fflush(NULL);
			_exit(0);
		}
		wait_ok(init, "the namespace's init");
		/* _exit: LeakSanitizer's exit check cannot stop the world from
		 * a process whose children are in another PID namespace. */
		_exit(0);
	}
	wait_ok(pid, "the namespace's parent");
}

static int expect_effective = -1;

/* Reads the level where it runs, and what the rule decision makes of it. */
static void check_effective(void)
{
	int got = nsexec_runtime_level_read(nsexec_runtime_level_open(), NSEXEC_RUNTIME_LEVEL_NONE);

	if (got != expect_effective)
		die("effective level %d, expected %d", got, expect_effective);
	if (nsexec_hugetlb_rule_needed(got) != (expect_effective == 2))
		die("rule needed %d at level %d", nsexec_hugetlb_rule_needed(got), got);
}

/* Installs the rule where it runs, by the effective level, and tries a
 * huge-page memfd. */
static void check_rule_follows(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int effective = -42, r;
	long fd;

	r = nsexec_runtime_hugetlb_rule(nsexec_runtime_level_open(), NSEXEC_RUNTIME_LEVEL_NONE,
					&effective, &e);
	if (r < 0)
		die("nsexec_runtime_hugetlb_rule: %d: %s", r, mt_error_message(e));
	if (effective != expect_effective)
		die("read %d, expected %d", effective, expect_effective);
	if (r != (expect_effective == 2))
		die("returned %d at effective level %d", r, expect_effective);
	fd = memfd_raw(MFD_HUGETLB | MFD_CLOEXEC);
	if (expect_effective == 2 && fd != -EPERM)
		die("memfd_create(MFD_HUGETLB) at 2: %ld, expected -EPERM", fd);
	if (expect_effective < 2 && fd < 0)
		die("memfd_create(MFD_HUGETLB) at %d: %s", expect_effective, strerror((int)-fd));
	close_if_fd(fd);
}

static void nested_inherits(void)
{
	in_new_pidns(-1, check_effective);
	in_new_pidns(-1, check_rule_follows);
}

static void nested_asks_1(void)
{
	in_new_pidns(1, check_effective);
	in_new_pidns(1, check_rule_follows);
}

static void case_effective_level(void)
{
	require_root();
	for (int level = 0; level <= 2; level++) {
		expect_effective = level;
		in_new_pidns(level, check_effective);
		in_new_pidns(level, check_rule_follows);
	}
	/* Inherited: a child namespace that asks for nothing, or for 1, under
	 * a parent at 2 runs at 2, and gets the rule. */
	expect_effective = 2;
	in_new_pidns(2, nested_inherits);
	in_new_pidns(2, nested_asks_1);
	/* ... and under a parent at 1 it runs at 1, without it. */
	expect_effective = 1;
	in_new_pidns(1, nested_inherits);
}

/* A private mount namespace, so that what a case mounts goes with it. */
static void private_mounts(void)
{
	if (unshare(CLONE_NEWNS) < 0)
		die("Failed to create a mount namespace: %m");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("Failed to make the mounts private: %m");
}

static void case_effective_not_procfs(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	char path[] = "/tmp/runtime-test-level.XXXXXX";
	int fd, effective = -42;

	require_root();
	private_mounts();
	/* What an image could hold at /proc/sys/vm/memfd_noexec with no procfs
	 * mounted on /proc: a file that says 0. */
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "0\n", 2) != 2)
		die("Failed to write %s: %m", path);
	(void)close(fd);
	if (mount(path, MT_MEMFD_NOEXEC_PATH, NULL, MS_BIND, NULL) < 0)
		die("Failed to bind %s on %s: %m", path, MT_MEMFD_NOEXEC_PATH);
	(void)unlink(path);
	if (nsexec_runtime_level_open() != -EMEDIUMTYPE)
		die("a file that is not on procfs was believed: %d", nsexec_runtime_level_open());
	if (nsexec_runtime_hugetlb_rule(nsexec_runtime_level_open(), NSEXEC_RUNTIME_LEVEL_NONE,
					&effective, &e) != 1)
		die("no rule installed for an unreadable level: %s", mt_error_message(e));
	if (effective != -EMEDIUMTYPE || memfd_raw(MFD_HUGETLB) != -EPERM)
		die("effective %d; memfd_create(MFD_HUGETLB) not refused", effective);
}

static void case_effective_hidden(void)
{
	static const char *const old_kernel[] = {"memfd_create[1&0x8==0x8]=EINVAL"};
	_cleanup_error_ struct mt_error *e = NULL;
	int effective = -42, r;
	pid_t pid;
	long fd;

	require_root();
	private_mounts();
	/* /proc/sys/vm masked (a tmpfs), on a kernel with exec control: the
	 * level cannot be read, so the rule. */
	if (mount("none", "/proc/sys/vm", "tmpfs", MS_RDONLY, NULL) < 0)
		die("Failed to mount a tmpfs on /proc/sys/vm: %m");
	if (nsexec_runtime_level_open() != -ENOENT)
		die("a hidden level reads %d, expected -ENOENT", nsexec_runtime_level_open());
	if (!nsexec_hugetlb_rule_needed(-ENOENT))
		die("no rule for a hidden level");
	/* A kernel without MFD_NOEXEC_SEAL (before 6.3): no levels at all,
	 * so no rule, and huge-page memfds keep working. */
	pid = fork();
	if (pid < 0)
		die("Failed to fork: %m");
	if (pid == 0) {
		r = fakekernel_load(NULL, old_kernel, ELEMENTSOF(old_kernel));
		if (r < 0)
			die("fakekernel_load: %s", strerror(-r));
		if (nsexec_runtime_level_read(-ENOENT, NSEXEC_RUNTIME_LEVEL_NONE) != -EOPNOTSUPP)
			die("a missing file without exec control reads %d through an fd's error, expected -EOPNOTSUPP",
			    nsexec_runtime_level_read(-ENOENT, NSEXEC_RUNTIME_LEVEL_NONE));
		/* Not even a request lifts it: there are no levels. */
		if (nsexec_runtime_level_read(-ENOENT, 2) != -EOPNOTSUPP)
			die("no levels, asked for 2: reads %d",
			    nsexec_runtime_level_read(-ENOENT, 2));
		r = nsexec_runtime_hugetlb_rule(nsexec_runtime_level_open(),
						NSEXEC_RUNTIME_LEVEL_NONE, &effective, &e);
		if (r != 0 || effective != -EOPNOTSUPP)
			die("returned %d (read %d) without exec control, expected 0", r, effective);
		fd = memfd_raw(MFD_HUGETLB | MFD_CLOEXEC);
		if (fd < 0)
			die("memfd_create(MFD_HUGETLB) without exec control: %s",
			    strerror((int)-fd));
		exit(0);
	}
	wait_ok(pid, "the old-kernel child");
}

/* The runtimes' way: the sysctl opened outside, read in the namespace. */
static int effective_fd = -EBADF;

static void check_effective_fd(void)
{
	int got = nsexec_runtime_level_read(effective_fd, NSEXEC_RUNTIME_LEVEL_NONE);

	if (got != expect_effective)
		die("read through an fd opened outside: %d, expected %d", got, expect_effective);
}

static void case_effective_fd(void)
{
	char path[] = "/tmp/runtime-test-level.XXXXXX";
	int fd, r;

	require_root();
	/* The kernel answers for the reader's PID namespace, whoever opened
	 * the file: each namespace reads its own level. */
	for (int level = 0; level <= 2; level++) {
		effective_fd = nsexec_runtime_level_open();
		if (effective_fd < 0)
			die("Failed to open %s: %s", MT_MEMFD_NOEXEC_PATH, strerror(-effective_fd));
		expect_effective = level;
		in_new_pidns(level, check_effective_fd);
		(void)close(effective_fd);
	}
	/* The open's error goes through; a missing file on a kernel with
	 * exec control stays -ENOENT (the rule then applies). */
	if (nsexec_runtime_level_read(-EACCES, NSEXEC_RUNTIME_LEVEL_NONE) != -EACCES ||
	    nsexec_runtime_level_read(-ENOENT, NSEXEC_RUNTIME_LEVEL_NONE) != -ENOENT)
		die("an open(2) error was not passed through");
	/* ... and is never clamped to a request: it gets the rule. */
	if (nsexec_runtime_level_read(-EACCES, 1) != -EACCES)
		die("an open(2) error was clamped to the request");
	/* A file that is not on procfs is not believed. */
	fd = mkstemp(path);
	if (fd < 0 || write(fd, "0\n", 2) != 2 || lseek(fd, 0, SEEK_SET) != 0)
		die("Failed to write %s: %m", path);
	(void)unlink(path);
	r = nsexec_runtime_level_read(fd, NSEXEC_RUNTIME_LEVEL_NONE); /* closes fd */
	if (r != -EMEDIUMTYPE)
		die("a file not on procfs was believed: %d", r);
}

/* ---- the spoof: a procfs file that says 0, put over the sysctl ------------ */

static int spoof_fd = -EBADF;
static int spoof_path_level;

/* A procfs file that reads "0\n" here: the laptop_mode where it
 * does (it reads 2 on some machines), else another vm sysctl at 0. */
static const char *procfs_zero(void)
{
	static const char *const candidates[] = {
		"/proc/sys/vm/laptop_mode",
		"/proc/sys/vm/oom_kill_allocating_task",
		"/proc/sys/vm/panic_on_oom",
		"/proc/sys/vm/block_dump",
	};

	for (size_t i = 0; i < ELEMENTSOF(candidates); i++) {
		char buf[16] = "";
		int fd = open(candidates[i], O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			(void)close(fd);
		if (n == 2 && strcmp(buf, "0\n") == 0)
			return candidates[i];
	}
	die("no procfs file of /proc/sys/vm reads 0 here to spoof with");
}

/* In the "container": its PID namespace at 2, its /proc/sys/vm/memfd_noexec
 * a procfs file that says 0 (any procfs file passes the procfs check). */
static void check_spoof(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int by_path, effective = -42, r;
	const char *zero;
	long fd;

	/* Only now, after the level was written, and in a mount namespace of
	 * this process alone: nothing may ever write through the bind (it
	 * would reach the host's sysctl that it shows). */
	private_mounts();
	zero = procfs_zero();
	if (mount(zero, MT_MEMFD_NOEXEC_PATH, NULL, MS_BIND | MS_RDONLY, NULL) < 0 ||
	    mount(NULL, MT_MEMFD_NOEXEC_PATH, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0)
		die("Failed to bind %s over %s read-only: %m", zero, MT_MEMFD_NOEXEC_PATH);

	/* The path is fooled: that is what the runtimes read until now. */
	by_path = nsexec_runtime_level_read(nsexec_runtime_level_open(), NSEXEC_RUNTIME_LEVEL_NONE);
	if (by_path != spoof_path_level)
		die("through the path: %d, expected the spoof's %d", by_path, spoof_path_level);
	/* The fd opened before the mount is not. */
	r = nsexec_runtime_hugetlb_rule(TAKE_FD(spoof_fd), NSEXEC_RUNTIME_LEVEL_NONE, &effective,
					&e);
	if (r != 1 || effective != 2)
		die("through the early fd: returned %d, read %d; expected the rule at 2 (%s)", r,
		    effective, mt_error_message(e));
	fd = memfd_raw(MFD_HUGETLB | MFD_CLOEXEC);
	if (fd != -EPERM)
		die("memfd_create(MFD_HUGETLB) under the spoof: %ld, expected -EPERM", fd);
}

static void case_spoofed_sysctl(void)
{
	require_root();
	/* Before the "container's" namespaces and mounts. */
	spoof_fd = nsexec_runtime_level_open();
	if (spoof_fd < 0)
		die("Failed to open the sysctl: %s", strerror(-spoof_fd));
	spoof_path_level = 0;
	in_new_pidns(2, check_spoof);
}

/* ---- clamped up to the request ------------------------------------------- */

static void check_clamped(void)
{
	_cleanup_error_ struct mt_error *e = NULL;
	int effective = -42, r;

	for (int asked = NSEXEC_RUNTIME_LEVEL_NONE; asked <= 2; asked++) {
		int want = asked > expect_effective ? asked : expect_effective;
		int got = nsexec_runtime_level_read(nsexec_runtime_level_open(), asked);

		if (got != want)
			die("at %d, asked for %d: read %d, expected %d", expect_effective, asked,
			    got, want);
	}
	/* A request for 2 never yields "no rule". */
	r = nsexec_runtime_hugetlb_rule(nsexec_runtime_level_open(), 2, &effective, &e);
	if (r != 1 || effective != 2 || memfd_raw(MFD_HUGETLB) != -EPERM)
		die("asked for 2 at %d: returned %d, read %d", expect_effective, r, effective);
}

static void case_level_clamped(void)
{
	require_root();
	for (int level = 0; level <= 2; level++) {
		expect_effective = level;
		in_new_pidns(level, check_clamped);
	}
}

static void case_level_open_cloexec(void)
{
	int fd = nsexec_runtime_level_open(), flags;

	if (fd == -ENOENT)
		return; /* no sysctl here: nothing opened */
	if (fd < 0)
		die("Failed to open the sysctl: %s", strerror(-fd));
	flags = fcntl(fd, F_GETFD);
	if (flags < 0 || !(flags & FD_CLOEXEC))
		die("the sysctl's fd is not close-on-exec");
	/* It is closed by the read. */
	(void)nsexec_runtime_level_read(fd, NSEXEC_RUNTIME_LEVEL_NONE);
	if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
		die("the read left the fd open");
}

struct func_case {
	const char *name;
	void (*fn)(void);
};

static const struct func_case func_cases[] = {
	{"parse_level_table", case_parse_level_table},
	{"parse_level_big", case_parse_level_big},
	{"level_agreement", case_level_agreement},
	{"apply_bad_level", case_apply_bad_level},
	{"seccomp_hugetlb", case_seccomp_hugetlb},
	{"seccomp_survives_exec", case_seccomp_survives_exec},
	{"seccomp_unprivileged", case_seccomp_unprivileged},
	{"hugetlb_rule_table", case_hugetlb_rule_table},
	{"effective_level", case_effective_level},
	{"effective_not_procfs", case_effective_not_procfs},
	{"effective_hidden", case_effective_hidden},
	{"effective_fd", case_effective_fd},
	{"spoofed_sysctl", case_spoofed_sysctl},
	{"level_clamped", case_level_clamped},
	{"level_open_cloexec", case_level_open_cloexec},
};

/* ---- driver ------------------------------------------------------------- */

static bool run_case(const char *name)
{
	current = name;
	for (size_t i = 0; i < ELEMENTSOF(func_cases); i++)
		if (strcmp(func_cases[i].name, name) == 0) {
			func_cases[i].fn();
			return true;
		}
	return false;
}

int main(int argc, char *argv[])
{
	int failures = 0;

	if (argc == 2) {
		if (!run_case(argv[1])) {
			fprintf(stderr, "runtime_test: unknown case '%s'\n", argv[1]);
			return 2;
		}
		printf("ok %s\n", argv[1]);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "usage: runtime_test [CASE]\n");
		return 2;
	}
	for (size_t i = 0; i < ELEMENTSOF(func_cases); i++) {
		int status;
		pid_t pid;

		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			run_case(func_cases[i].name);
			exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 77)) {
			failures++;
			continue;
		}
		printf("%s %s\n", WEXITSTATUS(status) ? "skip" : "ok", func_cases[i].name);
	}
	if (failures)
		fprintf(stderr, "%d case(s) failed\n", failures);
	return failures ? 1 : 0;
}
