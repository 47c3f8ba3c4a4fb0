/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fakekernel: run a command as if on an older or failing kernel.
 *
 *   fakekernel [--kernel=PROFILE[,PROFILE...]] [--fail=SPEC]...
 *              [--memfd-noexec=hide|0|1|2] [--] CMD [ARG...]
 *
 * The vm.memfd_noexec view is faked in a private mount namespace (plus a
 * user namespace that maps only the caller's own ids when unprivileged):
 * a read-only tmpfs replaces /proc/sys/vm, carrying bind mounts of every
 * other entry and either no memfd_noexec or a file reading "N\n".  The real
 * sysctl is never opened for writing.  Then the seccomp filters are loaded
 * and CMD is executed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "fakekernel.h"
#include "macro.h"

#define VM_DIR "/proc/sys/vm"
#define SYSCTL_NAME "memfd_noexec"

#define EXIT_USAGE 2
#define EXIT_FAILURE_SELF 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

static const char usage_line[] =
	"Usage: fakekernel [--kernel=PROFILE[,PROFILE...]] [--fail=SPEC]...\n                  [--memfd-noexec=hide|0|1|2] [--] CMD [ARG...]\n";

static void help(void)
{
	fputs(usage_line, stdout);
	fputs("Run CMD under seccomp filters that make it see an older or a failing kernel.\n\n  --kernel=PROFILE[,PROFILE...]  emulate these profiles (see --list); may repeat\n  --fail=SPEC                    make a syscall fail; may repeat. SPEC is\n                                   SYSCALL=ERRNO or\n                                   SYSCALL[ARG&MASK==VALUE,...]=ERRNO\n                                 (conditions ANDed, ARG 0-5, &MASK optional,\n                                 numbers decimal, 0x hex or 0 octal, ERRNO a\n                                 name like EPERM or a number 0-4094; 0 makes the call\n                                 return 0 without running)\n  --memfd-noexec=hide|0|1|2      make /proc/sys/vm/memfd_noexec absent, or a\n                                 read-only file reading N (private mount\n                                 namespace; nomemfd and 6.1 imply hide,\n                                 6.3-level2 implies 2)\n  --list                         list the profiles\n  --help                         show this help\n\nWhere rules overlap, a later --fail beats an earlier one and every profile;\namong profiles the older kernel wins.  FAKEKERNEL_DEBUG=1 prints markers.\n\nExit status: CMD's; 2 on bad usage; 125 if fakekernel fails; 126 if CMD\ncannot be executed; 127 if CMD is not found.\n",
	      stdout);
}

static void list_profiles(void)
{
	const struct fakekernel_profile *p;

	for (size_t i = 0; (p = fakekernel_profile_by_index(i)); i++)
		printf("%-11s %s\n", p->name, p->description);
}

_noreturn_ _printf_(1, 2) static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fakekernel: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'fakekernel --help' for more information.\n", stderr);
	exit(EXIT_USAGE);
}

/* The one place that reports a failure and exits; err is -errno. */
_noreturn_ _printf_(3, 4) static void die(int status, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fakekernel: Failed to ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(-err));
	exit(status);
}

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* For "Failed to <what>": the step that failed. */
static char failed_step[PATH_MAX + 64];

_printf_(1, 2) static void set_step(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(failed_step, sizeof(failed_step), fmt, ap);
	va_end(ap);
}

static int write_file(const char *path, const char *content)
{
	_cleanup_close_ int fd = -EBADF;
	size_t len = strlen(content);
	ssize_t n;

	set_step("write %s", path);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, content, len);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO; /* a short write to a proc file sets no errno */
	return 0;
}

/*
 * As root: a new mount namespace.  Without the privilege: a user namespace
 * that maps only our own uid and gid to themselves, so CMD keeps running as
 * the same user and loses the namespace's capabilities when it is executed.
 */
static int enter_private_mount_ns(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];
	int r;

	if (unshare(CLONE_NEWNS) < 0) {
		if (errno != EPERM) {
			set_step("unshare the mount namespace");
			return -errno;
		}
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) {
			set_step("unshare a user and a mount namespace");
			return -errno;
		}
		r = write_file("/proc/self/setgroups", "deny");
		if (r < 0)
			return r;
		snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
		r = write_file("/proc/self/uid_map", map);
		if (r < 0)
			return r;
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
		r = write_file("/proc/self/gid_map", map);
		if (r < 0)
			return r;
	}

	/* Nothing we mount may propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		set_step("make / private");
		return -errno;
	}
	return 0;
}

/* Bind every entry of the real /proc/sys/vm except memfd_noexec. */
static int bind_vm_entries(int real_fd, int fake_fd)
{
	_cleanup_(closedirp) DIR *d = NULL;
	int dup_fd;

	set_step("list %s", VM_DIR);
	dup_fd = fcntl(real_fd, F_DUPFD_CLOEXEC, 3);
	if (dup_fd < 0)
		return -errno;
	d = fdopendir(dup_fd);
	if (!d) {
		int r = -errno;

		safe_close(dup_fd);
		return r;
	}

	for (;;) {
		char src[PATH_MAX], dst[PATH_MAX];
		struct dirent *de;
		bool is_dir;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno != 0) {
				set_step("list %s", VM_DIR);
				return -errno;
			}
			return 0;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, SYSCTL_NAME) == 0)
			continue;

		is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			set_step("stat %s/%s", VM_DIR, de->d_name);
			if (fstatat(real_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				return -errno;
			is_dir = S_ISDIR(st.st_mode);
		}

		set_step("create a mount point for %s/%s", VM_DIR, de->d_name);
		if (is_dir ? mkdirat(fake_fd, de->d_name, 0555)
			   : mknodat(fake_fd, de->d_name, S_IFREG | 0444, 0))
			return -errno;

		if (snprintf(src, sizeof(src), "/proc/self/fd/%d/%s", real_fd, de->d_name) >=
			    (int)sizeof(src) ||
		    snprintf(dst, sizeof(dst), "%s/%s", VM_DIR, de->d_name) >= (int)sizeof(dst))
			return -ENAMETOOLONG;
		set_step("bind-mount %s", dst);
		if (mount(src, dst, NULL, MS_BIND | (is_dir ? MS_REC : 0), NULL) < 0)
			return -errno;
	}
}

/* mode: FAKEKERNEL_SYSCTL_HIDE, or 0..2 for a file reading "N\n". */
static int fake_memfd_noexec(int mode)
{
	_cleanup_close_ int real_fd = -EBADF, fake_fd = -EBADF, fd = -EBADF;
	struct statfs sfs;
	char content[] = "0\n";
	ssize_t n;
	int r;

	/* Must be opened inside the new namespace: mount() checks that. */
	set_step("open %s", VM_DIR);
	real_fd = open(VM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (real_fd < 0)
		return -errno;

	set_step("mount a tmpfs on %s", VM_DIR);
	if (mount("tmpfs", VM_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  "mode=0555,size=64k,nr_inodes=1024") < 0)
		return -errno;

	set_step("open the tmpfs on %s", VM_DIR);
	fake_fd = open(VM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fake_fd < 0)
		return -errno;
	if (fstatfs(fake_fd, &sfs) < 0)
		return -errno;
	/* Never create anything anywhere but in our own tmpfs. */
	if (sfs.f_type != TMPFS_MAGIC)
		return -EXDEV;

	r = bind_vm_entries(real_fd, fake_fd);
	if (r < 0)
		return r;

	if (mode >= 0) {
		content[0] = (char)('0' + mode);
		set_step("create the fake %s/%s", VM_DIR, SYSCTL_NAME);
		fd = openat(fake_fd, SYSCTL_NAME,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		n = write(fd, content, 2);
		if (n < 0)
			return -errno;
		if (n != 2)
			return -EIO; /* a short write sets no errno */
		/* The real file is 0644 root; keep that whatever the umask. */
		if (fchmod(fd, 0644) < 0)
			return -errno;
		/* A file open for writing keeps the remount busy. */
		fd = safe_close(fd);
	}

	set_step("remount the tmpfs on %s read-only", VM_DIR);
	if (mount(NULL, VM_DIR, NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return -errno;
	return 0;
}

static int parse_memfd_noexec(const char *s)
{
	if (strcmp(s, "hide") == 0)
		return FAKEKERNEL_SYSCTL_HIDE;
	if (s[0] >= '0' && s[0] <= '2' && s[1] == '\0')
		return s[0] - '0';
	return -EINVAL;
}

static void check_kernel_option(const char *list)
{
	const struct fakekernel_profile *p;
	char allowed[512] = "";
	int r;

	r = fakekernel_check(list, NULL, 0);
	if (r == 0)
		return;
	if (r != -EINVAL)
		die(EXIT_FAILURE_SELF, r, "build the filters for --kernel=%s", list);

	for (size_t i = 0; (p = fakekernel_profile_by_index(i)); i++) {
		if (i > 0)
			strncat(allowed, ", ", sizeof(allowed) - strlen(allowed) - 1);
		strncat(allowed, p->name, sizeof(allowed) - strlen(allowed) - 1);
	}

	/* Tell an unknown name from a conflict by checking one at a time. */
	for (const char *s = list;;) {
		size_t len = strcspn(s, ",");
		_cleanup_free_ char *one = strndup(s, len);

		if (!one)
			die(EXIT_FAILURE_SELF, -ENOMEM, "parse --kernel=%s", list);
		if (len == 0 || fakekernel_check(one, NULL, 0) == -EINVAL)
			usage_error(
				"invalid --kernel=%s: unknown profile '%s'; allowed: %s, separated by commas",
				list, one, allowed);
		if (!s[len])
			break;
		s += len + 1;
	}
	usage_error(
		"invalid --kernel=%s: conflicting profiles; 6.3-level2 combines with neither nomemfd nor 6.1 (allowed: %s)",
		list, allowed);
}

static void check_fail_option(const char *spec)
{
	int r = fakekernel_check(NULL, &spec, 1);

	if (r == 0)
		return;
	if (r != -EINVAL)
		die(EXIT_FAILURE_SELF, r, "build the filter for --fail=%s", spec);
	usage_error(
		"invalid --fail=%s: expected SYSCALL=ERRNO or SYSCALL[ARG&MASK==VALUE,...]=ERRNO, where SYSCALL is a system call of this architecture, ARG is 0-5, VALUE has no bits outside MASK, numbers are decimal, 0x hex or 0 octal, and ERRNO is a name such as EPERM or a number 1-4094",
		spec);
}

enum {
	OPT_KERNEL = 0x100,
	OPT_FAIL,
	OPT_MEMFD_NOEXEC,
	OPT_LIST,
	OPT_HELP,
};

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{"kernel", required_argument, NULL, OPT_KERNEL},
		{"fail", required_argument, NULL, OPT_FAIL},
		{"memfd-noexec", required_argument, NULL, OPT_MEMFD_NOEXEC},
		{"list", no_argument, NULL, OPT_LIST},
		{"help", no_argument, NULL, OPT_HELP},
		{NULL, 0, NULL, 0},
	};
	_cleanup_free_ const char **fails = NULL;
	_cleanup_free_ char *kernel = NULL;
	const char *noexec_arg = NULL;
	size_t n_fail = 0;
	int mode = FAKEKERNEL_SYSCTL_REAL;
	int c, r;

	opterr = 0;
	/* '+': stop at CMD; ':': report a missing argument as ':'. */
	while ((c = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
		switch (c) {
		case OPT_KERNEL: {
			char *joined;

			if (!*optarg)
				usage_error("invalid --kernel=: empty profile list; see --list");
			if (kernel) {
				if (asprintf(&joined, "%s,%s", kernel, optarg) < 0)
					die(EXIT_FAILURE_SELF, -ENOMEM, "parse --kernel");
			} else {
				joined = strdup(optarg);
				if (!joined)
					die(EXIT_FAILURE_SELF, -ENOMEM, "parse --kernel");
			}
			free(kernel);
			kernel = joined;
			break;
		}
		case OPT_FAIL: {
			const char **n;

			n = reallocarray(fails, n_fail + 1, sizeof(*fails));
			if (!n)
				die(EXIT_FAILURE_SELF, -ENOMEM, "parse --fail");
			fails = n;
			fails[n_fail++] = optarg;
			break;
		}
		case OPT_MEMFD_NOEXEC:
			mode = parse_memfd_noexec(optarg);
			if (mode == -EINVAL)
				usage_error(
					"invalid --memfd-noexec=%s: allowed values are hide, 0, 1, 2",
					optarg);
			noexec_arg = optarg;
			break;
		case OPT_LIST:
			list_profiles();
			return EXIT_SUCCESS;
		case OPT_HELP:
			help();
			return EXIT_SUCCESS;
		case ':':
			usage_error(
				"option '%s' needs a value: --kernel=PROFILE[,PROFILE...], --fail=SPEC, --memfd-noexec=hide|0|1|2",
				argv[optind - 1]);
		default:
			usage_error(
				"unknown option '%s'; allowed: --kernel, --fail, --memfd-noexec, --list, --help",
				argv[optind - 1]);
		}
	}
	if (optind >= argc)
		usage_error("missing command\n%s", usage_line);

	/* Validate everything before touching any namespace. */
	if (kernel)
		check_kernel_option(kernel);
	for (size_t i = 0; i < n_fail; i++)
		check_fail_option(fails[i]);

	if (!noexec_arg) {
		r = fakekernel_profiles_memfd_noexec(kernel, &mode);
		if (r < 0)
			die(EXIT_FAILURE_SELF, r, "parse --kernel=%s", kernel);
	}

	if (mode != FAKEKERNEL_SYSCTL_REAL) {
		r = enter_private_mount_ns();
		if (r < 0)
			die(EXIT_FAILURE_SELF, r, "%s", failed_step);
		r = fake_memfd_noexec(mode);
		if (r < 0)
			die(EXIT_FAILURE_SELF, r, "%s", failed_step);
	}

	/* Last, so that the filters cannot get in the way of the setup. */
	r = fakekernel_load(kernel, fails, n_fail);
	if (r < 0)
		die(EXIT_FAILURE_SELF, r, "load the seccomp filters");

	execvp(argv[optind], argv + optind);
	r = -errno;
	die(r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, r, "execute %s", argv[optind]);
}
