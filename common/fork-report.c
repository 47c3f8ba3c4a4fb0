/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "fork-report.h"

pid_t mt_fork_pipe(mt_fork_report_fn fn, const void *data, int *ret_fd)
{
	int pipefd[2];
	pid_t pid;

	*ret_fd = -EBADF;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return negative_errno();
	pid = fork();
	if (pid < 0) {
		int r = negative_errno();

		(void)close(pipefd[0]);
		(void)close(pipefd[1]);
		return r;
	}
	if (pid == 0) {
		(void)close(pipefd[0]);
		fn(pipefd[1], data);
	}
	(void)close(pipefd[1]);
	*ret_fd = pipefd[0];
	return pid;
}

int mt_fork_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	return status;
}

ssize_t mt_fork_report(mt_fork_report_fn fn, const void *data, void *buf, size_t size,
		       int *ret_status)
{
	_cleanup_close_ int rfd = -EBADF;
	size_t got;
	pid_t pid;
	int status;

	pid = mt_fork_pipe(fn, data, &rfd);
	if (pid < 0)
		return pid;
	got = read_up_to(rfd, buf, size);
	status = mt_fork_wait(pid);
	if (ret_status)
		*ret_status = status;
	return (ssize_t)got;
}

int mt_fork_hand_on(mt_fork_report_fn fn, const void *data, int fd)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0)
		fn(fd, data);
	(void)close(fd);
	status = mt_fork_wait(pid);
	if (status < 0)
		_exit(1);
	if (WIFSIGNALED(status))
		_exit(128 + WTERMSIG(status));
	_exit(WEXITSTATUS(status));
}
