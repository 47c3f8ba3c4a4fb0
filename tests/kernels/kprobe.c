/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kprobe: an independent witness of the kernel's memfd exec features, for
 * the qemu kernel matrix (tests/kernels/run.sh).  It shares no code with
 * cloned_binary on purpose: when sealexec --features and kprobe disagree,
 * one of them is wrong.
 *
 *   kprobe            print "kprobe: NAME: VALUE" lines (see below), exit 0
 *   kprobe --self     exit 0 iff this process runs from a sealed clone
 *                     (a memfd sealed SEAL|SHRINK|GROW|WRITE, or an unlinked
 *                     file without write bits; tmpfs files report seals too,
 *                     0x1, so the memfd is told apart by its /memfd: name)
 *                     or from a read-only overlayfs that refuses writers
 *                     with EROFS and that no mount of ours shows (the
 *                     overlay method's detached mount), and holds no fd
 *                     beyond 0-2; meant to be run through sealexec
 *   kprobe --ping     exit 42 (used by the memfd_execveat probe)
 *
 * Built statically by run.sh with the host's gcc; no project headers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U /* 6.3 */
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* 6.3 */
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS (1024 + 9)
#endif
#ifndef F_GET_SEALS
#define F_GET_SEALS (1024 + 10)
#endif
#ifndef F_SEAL_SEAL
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020 /* 6.3 */
#endif
#ifndef O_TMPFILE
#define O_TMPFILE (020000000 | O_DIRECTORY)
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001 /* 5.2 */
#endif
#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

#define NEED_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

static int sys_memfd_create(const char *name, unsigned int flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

static int sys_fsopen(const char *fsname, unsigned int flags)
{
	return (int)syscall(SYS_fsopen, fsname, flags);
}

static int sys_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
			int flags)
{
	return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

/* "EINVAL" rather than a sentence: the guest script matches on these. */
static const char *errname(int e)
{
	const char *name = e ? strerrorname_np(e) : "0";

	return name ? name : "E?";
}

static void out(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("kprobe: %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* "yes" if r succeeded, "no" if it failed with no_errno, else the errno. */
static const char *verdict(int r, int e, int no_errno)
{
	if (r >= 0)
		return "yes";
	return e == no_errno ? "no" : errname(e);
}

/* "no" is EINVAL (an unknown flag or seal); other errors print their name. */
static void probe_memfd(void)
{
	int fd, e;

	fd = sys_memfd_create("kprobe", MFD_CLOEXEC);
	e = errno;
	if (fd >= 0)
		close(fd);
	out("memfd_create", "%s", verdict(fd, e, ENOSYS));

	/* MFD_NOEXEC_SEAL is accepted under every sysctl value on 6.3+. */
	fd = sys_memfd_create("kprobe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
	e = errno;
	if (fd >= 0)
		close(fd);
	out("mfd_exec", "%s", verdict(fd, e, EINVAL));

	fd = sys_memfd_create("kprobe", MFD_CLOEXEC | MFD_EXEC);
	e = errno;
	if (fd >= 0)
		close(fd);
	out("mfd_exec_create", "%s", fd >= 0 ? "ok" : errname(e));

	fd = sys_memfd_create("kprobe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		out("seal_exec", "%s", errname(errno));
	} else {
		struct stat st;
		int seals;

		if (fstat(fd, &st) == 0)
			out("memfd_default_mode", "0%03o", (unsigned)(st.st_mode & 07777));
		seals = fcntl(fd, F_GET_SEALS);
		out("memfd_default_seals", "0x%x", seals < 0 ? 0 : seals);
		if (fcntl(fd, F_ADD_SEALS, F_SEAL_EXEC) == 0)
			out("seal_exec", "yes");
		else if (errno == EINVAL)
			out("seal_exec", "no");
		else if (seals >= 0 && (seals & F_SEAL_EXEC))
			out("seal_exec", "yes"); /* already set by the sysctl */
		else
			out("seal_exec", "%s", errname(errno));
		close(fd);
	}
}

static void probe_sysctl(void)
{
	char buf[16] = "";
	ssize_t n;
	int fd;

	fd = open("/proc/sys/vm/memfd_noexec", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		out("memfd_noexec", "%s", errno == ENOENT ? "absent" : errname(errno));
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0) {
		out("memfd_noexec", "unreadable");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	out("memfd_noexec", "%s", buf);
}

static void probe_o_tmpfile(const char *dir)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);

	if (fd >= 0) {
		close(fd);
		out("o_tmpfile", "yes");
	} else {
		out("o_tmpfile", "%s",
		    errno == EISDIR || errno == EOPNOTSUPP ? "no" : errname(errno));
	}
}

static void probe_execveat(void)
{
	char *argv[] = {NULL};
	int r = sys_execveat(-1, "", argv, argv, 0);

	out("execveat", "%s", r < 0 && errno == ENOSYS ? "no" : "yes");
}

/*
 * fsopen: "no" only for ENOSYS (an empty name gives EINVAL, or EPERM
 * without CAP_SYS_ADMIN, where the syscall exists).  overlayfs: whether
 * fsopen("overlay") works, i.e. the filesystem is registered (built in or
 * its module loaded) and we may mount: "no" is ENODEV.
 */
static void probe_fsopen(void)
{
	int fd, e;

	fd = sys_fsopen("", FSOPEN_CLOEXEC);
	e = errno;
	if (fd >= 0)
		close(fd);
	out("fsopen", "%s", fd < 0 && e == ENOSYS ? "no" : "yes");

	fd = sys_fsopen("overlay", FSOPEN_CLOEXEC);
	e = errno;
	if (fd >= 0)
		close(fd);
	out("overlayfs", "%s", verdict(fd, e, ENODEV));
}

/* userns: whether we (whoever runs kprobe) may make a user namespace. */
static void probe_userns(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		out("userns", "unknown (fork %s)", errname(errno));
		return;
	}
	if (!WIFEXITED(status))
		out("userns", "unknown (status 0x%x)", status);
	else
		out("userns", "%s", WEXITSTATUS(status) ? errname(WEXITSTATUS(status)) : "yes");
}

/* Copy /proc/self/exe into a memfd and execveat() it with --ping. */
static void probe_memfd_execveat(void)
{
	char buf[65536];
	int src, fd, status;
	ssize_t n;
	pid_t pid;

	fd = sys_memfd_create("kprobe-exec", MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = sys_memfd_create("kprobe-exec", MFD_CLOEXEC);
	if (fd < 0) {
		out("memfd_execveat", "no (memfd_create %s)", errname(errno));
		return;
	}
	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (src < 0) {
		out("memfd_execveat", "no (open exe %s)", errname(errno));
		close(fd);
		return;
	}
	while ((n = read(src, buf, sizeof(buf))) > 0)
		if (write(fd, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	close(src);
	if (n < 0) {
		out("memfd_execveat", "no (copy %s)", errname(errno));
		close(fd);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char *argv[] = {"kprobe", "--ping", NULL};
		char *envp[] = {NULL};

		sys_execveat(fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(100 + (errno < 150 ? errno : 150));
	}
	close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		out("memfd_execveat", "no (fork %s)", errname(errno));
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 42)
		out("memfd_execveat", "yes");
	else if (WIFEXITED(status) && WEXITSTATUS(status) >= 100)
		out("memfd_execveat", "no (execveat errno %d)", WEXITSTATUS(status) - 100);
	else
		out("memfd_execveat", "no (status 0x%x)", status);
}

/*
 * The overlay method's clone: a read-only overlayfs (no upper layer, so
 * opening for writing fails with EROFS) whose mount ID (fdinfo's mnt_id)
 * is not in our mountinfo, i.e. a detached mount.
 */
static int on_detached_overlay(int fd)
{
	char path[64], buf[512], line[4096];
	int info, id, first, w, attached = 0;
	struct statfs sfs;
	const char *p;
	ssize_t n;
	FILE *f;

	if (fstatfs(fd, &sfs) < 0 || (unsigned long)sfs.f_type != OVERLAYFS_SUPER_MAGIC ||
	    !(sfs.f_flags & ST_RDONLY))
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	w = open(path, O_WRONLY | O_CLOEXEC);
	if (w >= 0) {
		close(w);
		return 0;
	}
	if (errno != EROFS)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	n = info < 0 ? -1 : read(info, buf, sizeof(buf) - 1);
	if (info >= 0)
		close(info);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "mnt_id:");
	f = p ? fopen("/proc/self/mountinfo", "re") : NULL;
	if (!f)
		return 0;
	id = atoi(p + 7);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d", &first) == 1 && first == id)
			attached = 1;
	fclose(f);
	return !attached;
}

static int self_check(void)
{
	char link[4096];
	struct dirent *de;
	struct stat st;
	int bad = 0, fd, seals, overlay;
	ssize_t n;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d) {
		printf("kprobe-self: FAIL opendir /proc/self/fd: %s\n", errname(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		int nfd;

		if (de->d_name[0] == '.')
			continue;
		nfd = atoi(de->d_name);
		if (nfd <= 2 || nfd == dirfd(d))
			continue;
		n = readlinkat(dirfd(d), de->d_name, link, sizeof(link) - 1);
		link[n < 0 ? 0 : n] = '\0';
		printf("kprobe-self: FAIL leaked fd %d -> %s\n", nfd, link);
		bad = 1;
	}
	closedir(d);

	n = readlink("/proc/self/exe", link, sizeof(link) - 1);
	link[n < 0 ? 0 : n] = '\0';
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		printf("kprobe-self: FAIL open exe: %s\n", errname(errno));
		return 1;
	}
	seals = fcntl(fd, F_GET_SEALS);
	overlay = on_detached_overlay(fd);
	printf("kprobe-self: exe=%s nlink=%lu mode=0%03o seals=%s0x%x%s\n", link,
	       (unsigned long)st.st_nlink, (unsigned)(st.st_mode & 07777), seals < 0 ? "none/" : "",
	       seals < 0 ? 0 : seals, overlay ? " detached-overlay" : "");
	if (overlay) {
		/* the file itself, unchanged, on a mount nobody can write */
	} else if (strncmp(link, "/memfd:", 7) == 0) {
		if (seals < 0 || (seals & NEED_SEALS) != NEED_SEALS) {
			printf("kprobe-self: FAIL memfd seals 0x%x lack 0x%x\n", seals, NEED_SEALS);
			bad = 1;
		}
	} else if (st.st_nlink != 0 || (st.st_mode & 0222)) {
		printf("kprobe-self: FAIL exe is not a sealed clone\n");
		bad = 1;
	}
	close(fd);
	if (!bad)
		printf("kprobe-self: ok\n");
	return bad;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && strcmp(argv[1], "--ping") == 0)
		return 42;
	if (argc > 1 && strcmp(argv[1], "--self") == 0)
		return self_check();
	if (argc > 1) {
		fprintf(stderr, "usage: kprobe [--self|--ping]\n");
		return 2;
	}
	probe_memfd();
	probe_sysctl();
	probe_o_tmpfile(getenv("KPROBE_TMPDIR") ? getenv("KPROBE_TMPDIR") : "/tmp");
	probe_execveat();
	probe_memfd_execveat();
	probe_fsopen();
	probe_userns();
	return 0;
}
