/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clone_bench: how long making a sealed copy takes, per method and per copy
 * strategy, interleaved in one run so that machine noise hits all alike.
 *
 *   clone_bench [-n ROUNDS] FILE
 *
 * Prints the median and the ratio to "sendfile into memfd" (what runc
 * 1.1.5 does).  This is a benchmark, not a test: it never fails on time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cloned_binary.h"
#include "macro.h"
#include "missing_syscall.h"

enum {
	B_COPY_SENDFILE,
	B_COPY_MMAP,
	B_COPY_READWRITE,
	B_CLONE_MEMFD,
	B_CLONE_TMPFILE,
	B_MAX
};

static const char *const names[B_MAX] = {
	[B_COPY_SENDFILE] = "copy: sendfile into memfd (runc 1.1.5)",
	[B_COPY_MMAP] = "copy: mmap + write into memfd",
	[B_COPY_READWRITE] = "copy: 64 KiB read/write into memfd",
	[B_CLONE_MEMFD] = "cloned_binary_clone memfd-exec (+seal)",
	[B_CLONE_TMPFILE] = "cloned_binary_clone tmpfile (+O_PATH)",
};

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

static double one(int which, int src, size_t size)
{
	static const enum cloned_binary_copy how[] = {
		[B_COPY_SENDFILE] = CLONED_BINARY_COPY_SENDFILE,
		[B_COPY_MMAP] = CLONED_BINARY_COPY_MMAP,
		[B_COPY_READWRITE] = CLONED_BINARY_COPY_READWRITE,
	};
	struct cloned_binary_options opts = {};
	_cleanup_error_ struct mt_error *err = NULL;
	enum cloned_binary_method m;
	_cleanup_close_ int fd = -EBADF;
	double t0 = now_ms(), t1;
	int r;

	if (which <= B_COPY_READWRITE) {
		fd = missing_memfd_create("bench",
					  MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fd < 0) {
			perror("memfd_create");
			exit(1);
		}
		r = cloned_binary_copy(fd, src, size, how[which]);
	} else {
		opts.request = which == B_CLONE_MEMFD
				       ? CLONED_BINARY_REQUEST_MEMFD
				       : CLONED_BINARY_REQUEST_TMPFILE;
		r = cloned_binary_clone(src, &opts, &m, &fd, &err);
	}
	t1 = now_ms();
	if (r < 0) {
		fprintf(stderr, "clone_bench: %s: %s\n", names[which],
			r < 0 && err ? mt_error_message(err) : strerror(-r));
		exit(1);
	}
	return t1 - t0;
}

int main(int argc, char *argv[])
{
	int rounds = 40, c;
	struct stat st;
	double *t[B_MAX], med[B_MAX];
	_cleanup_close_ int src = -EBADF;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n')
			return 2;
		rounds = atoi(optarg);
	}
	if (optind + 1 != argc || rounds < 1) {
		fprintf(stderr, "Usage: clone_bench [-n ROUNDS] FILE\n");
		return 2;
	}
	src = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (src < 0 || fstat(src, &st) < 0) {
		fprintf(stderr, "clone_bench: Failed to open %s: %m\n",
			argv[optind]);
		return 2;
	}
	for (int i = 0; i < B_MAX; i++)
		t[i] = calloc((size_t)rounds, sizeof(double));

	/* Warm the page cache, then interleave. */
	for (int i = 0; i < B_MAX; i++)
		(void)one(i, src, (size_t)st.st_size);
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < B_MAX; i++) {
			int w = (i + r) % B_MAX; /* rotate the order too */
			t[w][r] = one(w, src, (size_t)st.st_size);
		}

	printf("file: %s, %.1f MB, %d interleaved rounds\n", argv[optind],
	       st.st_size / 1e6, rounds);
	for (int i = 0; i < B_MAX; i++) {
		qsort(t[i], (size_t)rounds, sizeof(double), cmp_double);
		med[i] = t[i][rounds / 2];
	}
	for (int i = 0; i < B_MAX; i++)
		printf("  %-42s median %6.2f ms  (%.2fx sendfile)\n", names[i],
		       med[i], med[i] / med[B_COPY_SENDFILE]);
	for (int i = 0; i < B_MAX; i++)
		free(t[i]);
	return 0;
}
