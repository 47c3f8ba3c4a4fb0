/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to audit/: what the collection's files (collect.c, memfds.c,
 * cgroup.c) share: small readers of /proc, and the entry points of
 * memfds.c and cgroup.c.
 */
#ifndef AUDIT_COLLECT_INTERNAL_H
#define AUDIT_COLLECT_INTERNAL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "fd-util.h"
#include "macro.h"

#define MAX_SMALL_FILE (1U << 20) /* stat, status, comm, cgroup */

static inline void closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}

/* Grows *array (of elem-sized items, *n used) by one zeroed slot. */
static inline void *grow(void *array_p, size_t *n, size_t elem)
{
	void **array = array_p;
	char *p;

	if (*n >= SIZE_MAX / elem - 1)
		return NULL;
	p = realloc(*array, (*n + 1) * elem);
	if (!p)
		return NULL;
	*array = p;
	memset(p + *n * elem, 0, elem);
	return p + (*n)++ * elem;
}

static inline bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline bool is_memfd_path(const char *path)
{
	return has_prefix(path, "/memfd:");
}

/* The audit cannot go on: never a verdict on the process being read. */
static inline bool fatal_error(int r)
{
	return r == -ENOMEM || r == -EMFILE || r == -ENFILE;
}

/* The process exited (or its fd was closed) while we read it. */
static inline bool gone_error(int r)
{
	return r == -ENOENT || r == -ESRCH;
}

/* Reads dirfd/name whole (NUL-terminated).  0 or -errno. */
static inline int read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return negative_errno();
	return read_full_fd(fd, max, ret, ret_len);
}

/* readlinkat() into a malloc'd string (raw bytes).  0 or -errno. */
static inline int readlink_at(int dirfd, const char *name, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);

	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

/* memfds.c: the memfds of the process at dirfd (/proc/PID): the fd table
 * once, the maps once, then the index, then each memfd's mode and seals.
 * 0 or -errno, with p->err_what naming the step. */
int audit_read_memfds(int dirfd, struct audit_proc *p);

/* cgroup.c: the container id of the process at dirfd, from its cgroup
 * paths, into p.  0 or -errno. */
int audit_read_cgroup(int dirfd, struct audit_proc *p);

#endif
