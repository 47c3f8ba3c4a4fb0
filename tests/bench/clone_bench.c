/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clone_bench: how long making a sealed copy takes, per method and per copy
 * strategy, interleaved in one run so that machine noise hits all alike.
 *
 *   clone_bench [-n ROUNDS] [-d DIR] FILE
 *
 * Prints the median and p90 of each arm and the ratio of the medians to
 * "sendfile into memfd" (what runc 1.1.5 does).  With -d, three more arms
 * copy into an O_TMPFILE in DIR: sendfile, the library's AUTO chain (a
 * reflink first, where DIR is on FILE's btrfs or xfs mount), and the whole
 * tmpfile method there; FIEMAP then tells whether the AUTO copy really
 * shares FILE's extents.  The overlay method (no copy) is measured too
 * where it is possible, and skipped with its reason where not.  This is a
 * benchmark, not a test: it never fails on time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "macro.h"
#include "missing-syscall.h"

enum {
	B_COPY_SENDFILE,
	B_COPY_MMAP,
	B_COPY_READWRITE,
	B_COPY_AUTO,
	B_CLONE_MEMFD,
	B_CLONE_TMPFILE,
	B_CLONE_OVERLAY,
	B_DIR_SENDFILE,
	B_DIR_AUTO,
	B_DIR_CLONE,
	B_MAX
};

static const char *const names[B_MAX] = {
	[B_COPY_SENDFILE] = "copy: sendfile into memfd (runc 1.1.5)",
	[B_COPY_MMAP] = "copy: mmap + write into memfd",
	[B_COPY_READWRITE] = "copy: 64 KiB read/write into memfd",
	[B_COPY_AUTO] = "copy: auto into memfd (reflink: EXDEV)",
	[B_CLONE_MEMFD] = "cloned_binary_clone memfd-exec (+seal)",
	[B_CLONE_TMPFILE] = "cloned_binary_clone tmpfile, default dirs",
	[B_CLONE_OVERLAY] = "cloned_binary_clone overlay (no copy)",
	[B_DIR_SENDFILE] = "copy: sendfile into O_TMPFILE in DIR",
	[B_DIR_AUTO] = "copy: auto into O_TMPFILE in DIR",
	[B_DIR_CLONE] = "cloned_binary_clone tmpfile in DIR",
};

static const char *dir;
static bool skipped[B_MAX];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int dest(int which)
{
	int fd;

	if (which >= B_DIR_SENDFILE)
		fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	else
		fd = missing_memfd_create("bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		fprintf(stderr, "clone_bench: Failed to make the copy's file: %m\n");
		exit(1);
	}
	return fd;
}

/* 1 if the first extent of fd is shared (a reflink), 0 if not, -errno. */
static int first_extent_shared(int fd)
{
	_Alignas(struct fiemap) char buf[sizeof(struct fiemap) + sizeof(struct fiemap_extent)] = {
		0};
	struct fiemap *fm = (struct fiemap *)buf;

	fm->fm_length = FIEMAP_MAX_OFFSET;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return negative_errno();
	return fm->fm_mapped_extents > 0 && (fm->fm_extents[0].fe_flags & FIEMAP_EXTENT_SHARED);
}

/* One run of an arm: its time in ms, or a negative value for "skip". */
static double one(int which, int src, size_t size, bool first)
{
	static const enum cloned_binary_copy how[] = {
		[B_COPY_SENDFILE] = CLONED_BINARY_COPY_SENDFILE,
		[B_COPY_MMAP] = CLONED_BINARY_COPY_MMAP,
		[B_COPY_READWRITE] = CLONED_BINARY_COPY_READWRITE,
		[B_COPY_AUTO] = CLONED_BINARY_COPY_AUTO,
		[B_DIR_SENDFILE] = CLONED_BINARY_COPY_SENDFILE,
		[B_DIR_AUTO] = CLONED_BINARY_COPY_AUTO,
	};
	struct cloned_binary_options opts = {};
	_cleanup_error_ struct mt_error *err = NULL;
	enum cloned_binary_method m;
	_cleanup_close_ int fd = -EBADF;
	double t0 = now_ms(), t1;
	int r;

	switch (which) {
	case B_CLONE_MEMFD:
	case B_CLONE_TMPFILE:
	case B_CLONE_OVERLAY:
	case B_DIR_CLONE:
		opts.request = which == B_CLONE_MEMFD	  ? CLONED_BINARY_REQUEST_MEMFD
			       : which == B_CLONE_OVERLAY ? CLONED_BINARY_REQUEST_OVERLAY
							  : CLONED_BINARY_REQUEST_TMPFILE;
		if (which == B_DIR_CLONE)
			opts.tmpdir = dir;
		r = cloned_binary_clone(src, &opts, &m, &fd, &err);
		break;
	default:
		fd = dest(which);
		t0 = now_ms(); /* the copy alone */
		r = cloned_binary_copy(fd, src, size, how[which]);
		break;
	}
	t1 = now_ms();
	if (r < 0 && first && which == B_CLONE_OVERLAY) {
		printf("  (skipping %s: %s)\n", names[which],
		       err ? mt_error_message(err) : strerror(-r));
		return -1;
	}
	if (r < 0) {
		fprintf(stderr, "clone_bench: %s: %s\n", names[which],
			err ? mt_error_message(err) : strerror(-r));
		exit(1);
	}
	if (first && which == B_DIR_AUTO) {
		r = first_extent_shared(fd);
		printf("  auto copy into %s: %s\n", dir,
		       r > 0	? "reflinked (shares FILE's extents)"
		       : r == 0 ? "copied (no shared extents)"
				: "FIEMAP failed, unknown");
	}
	return t1 - t0;
}

int main(int argc, char *argv[])
{
	int rounds = 40, c, n = B_DIR_SENDFILE;
	struct stat st;
	double *t[B_MAX], med[B_MAX];
	_cleanup_close_ int src = -EBADF;

	while ((c = getopt(argc, argv, "n:d:")) != -1) {
		if (c == 'n')
			rounds = atoi(optarg);
		else if (c == 'd')
			dir = optarg;
		else
			return 2;
	}
	if (optind + 1 != argc || rounds < 1) {
		fprintf(stderr, "Usage: clone_bench [-n ROUNDS] [-d DIR] FILE\n");
		return 2;
	}
	if (dir)
		n = B_MAX;
	src = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0) {
		fprintf(stderr, "clone_bench: Failed to open %s: %m\n", argv[optind]);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		t[i] = calloc((size_t)rounds, sizeof(double));
		if (!t[i])
			return 1;
	}

	printf("file: %s, %.1f MB, %d interleaved rounds%s%s\n", argv[optind], st.st_size / 1e6,
	       rounds, dir ? ", DIR " : "", dir ? dir : "");
	/* Warm the page cache and find what is possible, then interleave. */
	for (int i = 0; i < n; i++)
		skipped[i] = one(i, src, (size_t)st.st_size, true) < 0;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			int w = (i + r) % n; /* rotate the order too */

			if (!skipped[w])
				t[w][r] = one(w, src, (size_t)st.st_size, false);
		}

	for (int i = 0; i < n; i++) {
		qsort(t[i], (size_t)rounds, sizeof(double), cmp_double);
		med[i] = t[i][rounds / 2];
	}
	printf("  %-44s %9s %9s %9s\n", "arm", "median ms", "p90 ms", "/sendfile");
	for (int i = 0; i < n; i++) {
		if (skipped[i])
			continue;
		printf("  %-44s %9.3f %9.3f %8.2fx\n", names[i], med[i],
		       t[i][(9 * rounds + 9) / 10 - 1], med[i] / med[B_COPY_SENDFILE]);
	}
	for (int i = 0; i < n; i++)
		free(t[i]);
	return 0;
}
