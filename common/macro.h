/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small helpers shared by every component: cleanup attributes and explicit
 * ownership transfer, in the manner of systemd's src/basic/macro.h.
 */
#ifndef MEMFD_TOOLKIT_MACRO_H
#define MEMFD_TOOLKIT_MACRO_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _noreturn_ __attribute__((noreturn))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

static inline void freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ _cleanup_(freep)

/* Closes an fd, keeping errno intact; never retries on EINTR (see close(2)). */
static inline int safe_close(int fd)
{
	if (fd >= 0) {
		int saved = errno;
		(void)close(fd);
		errno = saved;
	}
	return -EBADF;
}

static inline void closep(int *fd)
{
	*fd = safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

static inline void fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Hand ownership on: return the value and leave the variable empty. */
#define TAKE_GENERIC(var, type, nullvalue) \
	({                                 \
		type *_pvar_ = &(var);     \
		type _var_ = *_pvar_;      \
		*_pvar_ = (nullvalue);     \
		_var_;                     \
	})
#define TAKE_FD(fd) TAKE_GENERIC(fd, int, -EBADF)
#define TAKE_PTR(p) TAKE_GENERIC(p, typeof(p), NULL)

/* Turn a libc "-1 and errno" result into -errno; never returns 0 on failure. */
static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif
