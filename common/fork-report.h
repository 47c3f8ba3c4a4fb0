/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fork, pipe and report: the one way a caller runs code in a child (one
 * that joins a namespace, or creates one) and gets a fixed-size report
 * back.  The child writes its report into a pipe and _exit()s; the parent
 * reads it to EOF and reaps the child.  Nothing here prints or exits.
 */
#ifndef MEMFD_TOOLKIT_FORK_REPORT_H
#define MEMFD_TOOLKIT_FORK_REPORT_H

#include <stddef.h>
#include <sys/types.h>

#include "macro.h"

/*
 * The child's side: runs in the forked child with fd the pipe's write end
 * (O_CLOEXEC; the read end is closed) and data as given; it writes its
 * report to fd and must _exit(), never return.  It runs after fork() in a
 * possibly multi-threaded caller: only async-signal-safe code.
 */
typedef _noreturn_ void (*mt_fork_report_fn)(int fd, const void *data);

/*
 * Forks a child that runs fn(fd, data), reads what it writes into buf (at
 * most size bytes, up to EOF), then reaps it.  Returns the number of bytes
 * read (size: the whole report came), or -errno of pipe2() or fork().
 * *ret_status (if not NULL) gets the child's wait status, or the -errno of
 * waitpid() when it failed (a caller that reaps its children itself, or
 * ignores SIGCHLD): then only the report tells what happened.
 */
ssize_t mt_fork_report(mt_fork_report_fn fn, const void *data, void *buf, size_t size,
		       int *ret_status);

#endif
