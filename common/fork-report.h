/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fork, pipe and report: the one way a caller runs code in a child (one
 * that joins a namespace, or creates one) and gets its report back.  The
 * child writes its report into a pipe and _exit()s; the parent reads it to
 * EOF and reaps the child.  Nothing here prints or exits.
 *
 * mt_fork_report() takes a fixed-size report whole.  mt_fork_pipe() and
 * mt_fork_wait() are its two halves, for a parent that reads a report of
 * any length as a stream, or that must not wait for EOF without a
 * deadline.  mt_fork_hand_on() passes the pipe on to a grandchild, for a
 * child that must fork once more to be inside a new PID namespace.
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

/*
 * The first half: forks a child that runs fn(fd, data) and returns its
 * pid, with *ret_fd the pipe's read end (O_CLOEXEC; the caller closes it),
 * or -errno of pipe2() or fork() (*ret_fd is then -EBADF).  The parent's
 * copy of the write end is closed, so the caller reads EOF once the child
 * and what it forked are gone.  The caller reaps the child, with
 * mt_fork_wait() or its own deadline.
 */
pid_t mt_fork_pipe(mt_fork_report_fn fn, const void *data, int *ret_fd);

/*
 * The second half: waits for the child pid, through EINTR.  Returns its
 * wait status, or the -errno of waitpid() (-ECHILD where SIGCHLD is
 * ignored or someone else reaped it).
 */
int mt_fork_wait(pid_t pid);

/*
 * For the child of mt_fork_pipe() or mt_fork_report() that has just
 * unshared a PID namespace or joined one (setns): only its own children
 * land there.  Forks that grandchild, which runs fn(fd, data) and writes
 * its report into the same pipe fd; closes fd, waits for it and _exit()s
 * with its exit code (128 + the signal that killed it; 1 where waitpid()
 * failed).  Returns only when fork() failed: the -errno, fd still open for
 * the caller to report it.  Async-signal-safe, as the child must be.
 */
int mt_fork_hand_on(mt_fork_report_fn fn, const void *data, int fd);

#endif
