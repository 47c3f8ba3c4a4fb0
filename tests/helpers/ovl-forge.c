/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ovl-forge: the ways an overlay once fooled the loader's overlay check,
 * made for real, then judged by cloned_binary_is_sealed() and by CMD.
 * Run as root.
 *
 *   ovl-forge KIND DIR [--userns] -- CMD [ARG...]
 *       A detached overlayfs over /usr/bin, mounted MOUNT_ATTR_RDONLY, and
 *       /usr/bin/true opened on it; the maker keeps the mount fd, as a
 *       forger would.  KIND is
 *         upper     with an upper layer (DIR/upper, DIR/work): its owner
 *                   clears the flag, opens the file for writing, sets the
 *                   flag again (shown, not assumed);
 *         upper-ro  the same with a read-only superblock ("ro"): its owner
 *                   reconfigures it "rw" and back (shown);
 *         unbindable  as upper, and the mount is marked MS_UNBINDABLE first,
 *                   so that a plain open_tree(OPEN_TREE_CLONE) of it fails
 *                   with EINVAL;
 *         lower     lowerdir only (/usr/bin and an empty DIR/empty), as
 *                   the loader makes it: the honest case.
 *       In each, open(O_WRONLY) gives EROFS like a sealed one.  Prints
 *       "ovl-forge: is_sealed=N", then executes CMD with "{}" in ARGs
 *       replaced by /proc/self/fd/N of the file (the mount fd stays open
 *       too).  --userns: the overlay is made inside a new user and mount
 *       namespace, as any user can.
 *
 *   ovl-forge longline
 *       In a private mount namespace: the loader's own overlay of this
 *       program, then a tmpfs mounted at a crafted path whose mountinfo
 *       line puts the overlay's mount ID at byte 4095, where a 4096-byte
 *       fgets() splits it.  Prints "ovl-forge: forged id N at the split:
 *       yes|no" and "ovl-forge: is_sealed=N" (1: the overlay is still
 *       recognised as detached).
 *
 * Exit 0 when the setup worked (whatever is_sealed said), 2 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "macro.h"
#include "missing-syscall.h"

#ifndef FSPICK_CLOEXEC
#define FSPICK_CLOEXEC 0x01
#endif
#ifndef FSPICK_EMPTY_PATH
#define FSPICK_EMPTY_PATH 0x08
#endif
#ifndef FSCONFIG_SET_FLAG
#define FSCONFIG_SET_FLAG 0
#endif
#ifndef FSCONFIG_CMD_RECONFIGURE
#define FSCONFIG_CMD_RECONFIGURE 7
#endif

_noreturn_ _printf_(1, 2) static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("ovl-forge: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

enum kind { KIND_UPPER, KIND_UPPER_RO, KIND_LOWER, KIND_UNBINDABLE };

/* The overlay's mount fd and the file on it, in *ret. */
static void make_overlay(enum kind kind, const char *dir, int ret[2])
{
	char upper[512], work[512], empty[512];
	int ctx, mnt, fd;

	(void)snprintf(upper, sizeof(upper), "%s/upper", dir);
	(void)snprintf(work, sizeof(work), "%s/work", dir);
	(void)snprintf(empty, sizeof(empty), "/usr/bin:%s/empty", dir);
	ctx = missing_fsopen("overlay", FSOPEN_CLOEXEC);
	if (ctx < 0)
		die("fsopen overlay: %m");
	if (kind == KIND_LOWER) {
		if (mkdir(empty + 9, 0700) < 0 && errno != EEXIST)
			die("mkdir %s: %m", empty + 9);
		if (missing_fsconfig(ctx, FSCONFIG_SET_STRING, "lowerdir", empty, 0) < 0)
			die("lowerdir %s: %m", empty);
	} else {
		if ((mkdir(upper, 0700) < 0 && errno != EEXIST) ||
		    (mkdir(work, 0700) < 0 && errno != EEXIST))
			die("mkdir in %s: %m", dir);
		if (missing_fsconfig(ctx, FSCONFIG_SET_STRING, "lowerdir", "/usr/bin", 0) < 0 ||
		    missing_fsconfig(ctx, FSCONFIG_SET_STRING, "upperdir", upper, 0) < 0 ||
		    missing_fsconfig(ctx, FSCONFIG_SET_STRING, "workdir", work, 0) < 0)
			die("the layers of an overlay with an upper layer: %m");
		if (kind == KIND_UPPER_RO &&
		    missing_fsconfig(ctx, FSCONFIG_SET_FLAG, "ro", NULL, 0) < 0)
			die("fsconfig ro: %m");
	}
	if (missing_fsconfig(ctx, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("make the overlay: %m");
	mnt = missing_fsmount(ctx, 0, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	if (mnt < 0)
		die("fsmount: %m");
	fd = openat(mnt, "true", O_PATH);
	if (fd < 0)
		die("open true on it: %m");
	close(ctx);
	ret[0] = mnt;
	ret[1] = fd;
}

/* upper: clear the flag, open for writing, set it again. */
static void prove_upper(int mnt, int fd)
{
	struct missing_mount_attr clr = {.attr_clr = MOUNT_ATTR_RDONLY};
	struct missing_mount_attr set = {.attr_set = MOUNT_ATTR_RDONLY};
	char proc[64];
	int w;

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	w = open(proc, O_WRONLY | O_CLOEXEC);
	printf("ovl-forge: write while read-only: %s\n", w < 0 ? strerror(errno) : "OPENED");
	if (w >= 0)
		die("the forged overlay is writable while its flag is set");
	if (missing_mount_setattr(mnt, "", AT_EMPTY_PATH, &clr) < 0)
		die("mount_setattr clear RDONLY: %m");
	w = open(proc, O_WRONLY | O_CLOEXEC);
	printf("ovl-forge: write after clearing the flag: %s\n",
	       w < 0 ? strerror(errno) : "opened");
	if (w < 0)
		die("the owner could not write after clearing the flag");
	close(w);
	if (missing_mount_setattr(mnt, "", AT_EMPTY_PATH, &set) < 0)
		die("mount_setattr set RDONLY: %m");
}

/* upper-ro: the superblock goes "rw" and back at its owner's word. */
static void prove_upper_ro(int mnt)
{
	int fc = (int)syscall(__NR_fspick, mnt, "", FSPICK_CLOEXEC | FSPICK_EMPTY_PATH);

	if (fc < 0 || missing_fsconfig(fc, FSCONFIG_SET_FLAG, "rw", NULL, 0) < 0 ||
	    missing_fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0)
		die("reconfigure the superblock rw: %m");
	printf("ovl-forge: superblock reconfigured rw: ok\n");
	close(fc);
	fc = (int)syscall(__NR_fspick, mnt, "", FSPICK_CLOEXEC | FSPICK_EMPTY_PATH);
	if (fc < 0 || missing_fsconfig(fc, FSCONFIG_SET_FLAG, "ro", NULL, 0) < 0 ||
	    missing_fsconfig(fc, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0)
		die("reconfigure the superblock ro again: %m");
	close(fc);
}

static void make_and_prove(enum kind kind, const char *dir, int fds[2])
{
	make_overlay(kind, dir, fds);
	if (kind == KIND_UNBINDABLE) {
		struct missing_mount_attr unbind = {.propagation = MS_UNBINDABLE};
		int probe;

		if (missing_mount_setattr(fds[0], "", AT_EMPTY_PATH, &unbind) < 0)
			die("mount_setattr MS_UNBINDABLE: %m");
		probe = missing_open_tree(fds[1], "",
					  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
		printf("ovl-forge: open_tree(OPEN_TREE_CLONE) of it: %s\n",
		       probe < 0 ? strerror(errno) : "ok");
		if (probe >= 0)
			close(probe);
	}
	if (kind == KIND_UPPER || kind == KIND_UNBINDABLE)
		prove_upper(fds[0], fds[1]);
	else if (kind == KIND_UPPER_RO)
		prove_upper_ro(fds[0]);
}

static void send_fds(int sock, const int fds[2])
{
	char ctl[CMSG_SPACE(2 * sizeof(int))] = {0};
	struct iovec io = {.iov_base = "x", .iov_len = 1};
	struct msghdr mh = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(cm), fds, 2 * sizeof(int));
	if (sendmsg(sock, &mh, 0) < 0)
		die("sendmsg: %m");
}

static void recv_fds(int sock, int fds[2])
{
	char ctl[CMSG_SPACE(2 * sizeof(int))], x;
	struct iovec io = {.iov_base = &x, .iov_len = 1};
	struct msghdr mh = {
		.msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
	struct cmsghdr *cm;

	if (recvmsg(sock, &mh, 0) <= 0 || !(cm = CMSG_FIRSTHDR(&mh)))
		die("recvmsg: no fds from the namespace child");
	memcpy(fds, CMSG_DATA(cm), 2 * sizeof(int));
}

/* As any user could: in a user and mount namespace of its own. */
static void make_in_userns(enum kind kind, const char *dir, int ret[2])
{
	int sv[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair: %m");
	pid = fork();
	if (pid < 0)
		die("fork: %m");
	if (pid == 0) {
		int fds[2];

		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			die("unshare a user and mount namespace: %m");
		make_and_prove(kind, dir, fds);
		send_fds(sv[0], fds);
		_exit(0);
	}
	recv_fds(sv[1], ret);
	if (waitpid(pid, &status, 0) < 0 || status != 0)
		die("the namespace child failed");
	close(sv[0]);
	close(sv[1]);
}

static int mode_overlay(enum kind kind, int argc, char *argv[])
{
	bool userns = false;
	char path[64];
	int fds[2], i = 3;

	if (argc > i && strcmp(argv[i], "--userns") == 0) {
		userns = true;
		i++;
	}
	if (argc <= i + 1 || strcmp(argv[i], "--") != 0)
		die("usage: ovl-forge upper|upper-ro|unbindable|lower DIR [--userns] -- CMD [ARG...]");
	if (userns)
		make_in_userns(kind, argv[2], fds);
	else
		make_and_prove(kind, argv[2], fds);
	printf("ovl-forge: is_sealed=%d\n", cloned_binary_is_sealed(fds[1], NULL));
	fflush(stdout);
	(void)snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[1]);
	for (int k = i + 1; k < argc; k++)
		if (strcmp(argv[k], "{}") == 0)
			argv[k] = path;
	execvp(argv[i + 1], argv + i + 1);
	die("execute %s: %m", argv[i + 1]);
}

/* The first line of mountinfo whose mount point is mp: its offset of mp. */
static long mountpoint_offset(const char *mp)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *p;
	size_t size = 0;
	long off = -1;

	if (!f)
		die("open mountinfo: %m");
	while (off < 0 && getline(&line, &size, f) >= 0) {
		p = strstr(line, mp);
		if (p && p[strlen(mp)] == ' ')
			off = p - line;
	}
	free(line);
	fclose(f);
	return off;
}

/* What a 4096-byte fgets() makes of mountinfo: does a piece start with
 * the ID of the overlay, which is attached nowhere? */
static bool split_forges(int id)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int first;
	bool forged = false;

	if (!f)
		die("open mountinfo: %m");
	while (fgets(line, sizeof(line), f))
		forged = forged || (sscanf(line, "%d", &first) == 1 && first == id);
	fclose(f);
	return forged;
}

static int mode_longline(void)
{
	struct cloned_binary_options o = {.request = CLONED_BINARY_REQUEST_OVERLAY};
	_cleanup_error_ struct mt_error *err = NULL;
	enum cloned_binary_method m;
	char base[] = "/tmp/cbforge-XXXXXX", mp[4096], info[64], buf[256], *p;
	int self, fd = -EBADF, id, sealed;
	size_t pad = 3000;
	bool forged = false;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("private mount namespace: %m");
	self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (self < 0 || cloned_binary_clone(self, &o, &m, &fd, &err) < 0)
		die("the loader's overlay: %s", mt_error_message(err));
	(void)snprintf(info, sizeof(info), "/proc/self/fdinfo/%d", fd);
	{
		FILE *f = fopen(info, "re");

		if (!f || !fgets(buf, sizeof(buf), f) || !fgets(buf, sizeof(buf), f) ||
		    !fgets(buf, sizeof(buf), f))
			die("read %s", info);
		fclose(f);
		p = strstr(buf, "mnt_id:");
		if (!p)
			die("no mnt_id in %s", info);
		id = atoi(p + 7);
	}
	if (!mkdtemp(base))
		die("mkdtemp: %m");
	/* Mount, see where the mount point lands, move the ID, again. */
	for (int tries = 0; tries < 8 && !forged; tries++) {
		long off;
		size_t len;

		len = (size_t)snprintf(mp, sizeof(mp), "%s", base);
		for (size_t done = 0; done < pad;) {
			size_t n = pad - done > 200 ? 200 : pad - done;

			mp[len++] = '/';
			memset(mp + len, 'a', n);
			len += n;
			done += n + 1;
		}
		len += (size_t)snprintf(mp + len, sizeof(mp) - len, "/%d", id);
		{
			char cmd[4200];

			(void)snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", mp);
			if (system(cmd) != 0)
				die("mkdir -p the crafted path");
		}
		if (mount("tmpfs", mp, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k") < 0)
			die("mount a tmpfs at the crafted path: %m");
		off = mountpoint_offset(mp);
		if (off < 0)
			die("the crafted mount is not in mountinfo");
		forged = split_forges(id);
		if (!forged) {
			long at = off + (long)len - (long)strlen(strrchr(mp, '/') + 1);

			(void)umount2(mp, MNT_DETACH);
			pad = (size_t)((long)pad + 4095 - at);
		}
	}
	printf("ovl-forge: forged id %d at the split: %s\n", id, forged ? "yes" : "no");
	sealed = cloned_binary_is_sealed(fd, NULL);
	printf("ovl-forge: is_sealed=%d\n", sealed);
	/* The namespace and its mounts go with us; the directories stay in
	 * the host's /tmp unless removed here. */
	(void)umount2(mp, MNT_DETACH);
	{
		char cmd[128];

		(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
		(void)system(cmd);
	}
	return forged ? 0 : 2;
}

int main(int argc, char *argv[])
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && strcmp(argv[1], "longline") == 0)
		return mode_longline();
	if (argc >= 3 && strcmp(argv[1], "upper") == 0)
		return mode_overlay(KIND_UPPER, argc, argv);
	if (argc >= 3 && strcmp(argv[1], "upper-ro") == 0)
		return mode_overlay(KIND_UPPER_RO, argc, argv);
	if (argc >= 3 && strcmp(argv[1], "unbindable") == 0)
		return mode_overlay(KIND_UNBINDABLE, argc, argv);
	if (argc >= 3 && strcmp(argv[1], "lower") == 0)
		return mode_overlay(KIND_LOWER, argc, argv);
	die("usage: ovl-forge upper|upper-ro|unbindable|lower DIR [--userns] -- CMD [ARG...] | ovl-forge longline");
}
