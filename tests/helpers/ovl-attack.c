/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ovl-attack: with a handle on a program that runs from the loader's
 * detached read-only overlay (typically /proc/PID/exe of runc init), try
 * every way to make that mount writable, and after each try to open the
 * file for writing.
 *
 *   ovl-attack PATH
 *
 * The tries: mount_setattr() clearing MOUNT_ATTR_RDONLY on the file's own
 * mount; fspick() + FSCONFIG_SET_FLAG "rw" + FSCONFIG_CMD_RECONFIGURE on
 * its superblock; a remount through /proc/self/fd (with and without
 * MS_BIND); and open_tree(OPEN_TREE_CLONE) of the mount, made writable.
 * Prints "ovl-attack: TRY: RESULT, write: ERRNO" per try and, at the end,
 * "ovl-attack: defeated" (exit 0) if no write ever opened, else
 * "ovl-attack: WRITABLE" (exit 1).  Run it as root: the strongest holder.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

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
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

struct attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

static int writable;

static const char *result(long r)
{
	return r < 0 ? strerror(errno) : "ok";
}

/* After each try: may the file be opened for writing now? */
static void try_write(const char *what, long r, int fd)
{
	char proc[64];
	int w;

	printf("ovl-attack: %s: %s", what, result(r));
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	w = open(proc, O_WRONLY | O_CLOEXEC);
	printf(", write: %s\n", w < 0 ? strerror(errno) : "OPENED");
	if (w >= 0) {
		writable = 1;
		(void)close(w);
	}
}

static void try_setattr(int fd)
{
	struct attr a = {.attr_clr = MOUNT_ATTR_RDONLY};

	try_write("mount_setattr(clear RDONLY)",
		  syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH, &a, sizeof(a)), fd);
}

static void try_reconfigure(int fd)
{
	_cleanup_close_ int fs = -EBADF;
	long r;

	fs = (int)syscall(__NR_fspick, fd, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC);
	r = fs;
	if (fs >= 0)
		r = syscall(__NR_fsconfig, fs, FSCONFIG_SET_FLAG, "rw", NULL, 0);
	if (r >= 0)
		r = syscall(__NR_fsconfig, fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0);
	try_write("fspick + reconfigure rw", r, fd);
}

static void try_remount(int fd)
{
	char proc[64];

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	try_write("remount,bind rw through /proc/self/fd",
		  mount(NULL, proc, NULL, MS_REMOUNT | MS_BIND, NULL), fd);
	try_write("remount rw through /proc/self/fd", mount(NULL, proc, NULL, MS_REMOUNT, NULL),
		  fd);
}

/* A clone of the mount (a bind of the file itself), made writable. */
static void try_clone(int fd)
{
	_cleanup_close_ int tree = -EBADF;
	struct attr a = {.attr_clr = MOUNT_ATTR_RDONLY};
	long r;

	tree = (int)syscall(__NR_open_tree, fd, "", OPEN_TREE_CLONE | AT_EMPTY_PATH | O_CLOEXEC);
	r = tree;
	if (tree >= 0)
		r = syscall(__NR_mount_setattr, tree, "", AT_EMPTY_PATH, &a, sizeof(a));
	try_write("open_tree clone made rw", r, tree >= 0 ? tree : fd);
}

int main(int argc, char *argv[])
{
	_cleanup_close_ int fd = -EBADF;

	if (argc != 2) {
		fprintf(stderr, "usage: ovl-attack PATH\n");
		return 2;
	}
	fd = open(argv[1], O_PATH | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ovl-attack: open %s: %m\n", argv[1]);
		return 2;
	}
	try_write("nothing tried yet", 0, fd);
	try_setattr(fd);
	try_reconfigure(fd);
	try_remount(fd);
	try_clone(fd);
	printf("ovl-attack: %s\n", writable ? "WRITABLE" : "defeated");
	return writable;
}
