/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "fork-report.h"

ssize_t mt_fork_report(mt_fork_report_fn fn, const void *data, void *buf, size_t size,
		       int *ret_status)
{
	_cleanup_close_ int rfd = -EBADF, wfd = -EBADF;
	int pipefd[2], status = 0;
	size_t got;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return negative_errno();
	rfd = pipefd[0];
	wfd = pipefd[1];
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0) {
		(void)close(rfd);
		fn(wfd, data);
	}
	wfd = safe_close(wfd);
	got = read_up_to(rfd, buf, size);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = negative_errno();
			break;
		}
	}
	if (ret_status)
		*ret_status = status;
	return (ssize_t)got;
}
