/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench_time: runs a command once and appends its wall time and its CPU
 * time (user + system, from wait4's rusage: the command and every
 * descendant it waited for), both in microseconds, to a file.  The CPU
 * time is less disturbed than the wall time by other load on a shared
 * machine.  Used by tests/bench/start.sh; a benchmark tool, no test.
 *
 *   bench_time FILE PREFIX CMD [ARG...]
 *
 * appends "PREFIX WALL_US CPU_US\n" to FILE when CMD exits 0.  Exits with
 * CMD's status (128 + signal if it was killed), 127 if it cannot be run,
 * 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long usec(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000 + ts->tv_nsec / 1000;
}

static long long tv_usec(const struct timeval *tv)
{
	return (long long)tv->tv_sec * 1000000 + tv->tv_usec;
}

int main(int argc, char *argv[])
{
	struct timespec t0, t1;
	struct rusage ru;
	char line[128];
	int status, fd, len;
	pid_t pid, w;

	if (argc < 4) {
		fprintf(stderr, "Usage: bench_time FILE PREFIX CMD [ARG...]\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "bench_time: Failed to open %s: %m\n", argv[1]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench_time: Failed to fork: %m\n");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "bench_time: Failed to execute %s: %m\n", argv[3]);
		_exit(127);
	}
	do
		w = wait4(pid, &status, 0, &ru);
	while (w < 0 && errno == EINTR);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (w < 0) {
		fprintf(stderr, "bench_time: Failed to wait for %s: %m\n", argv[3]);
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	if (WEXITSTATUS(status) != 0)
		return WEXITSTATUS(status);
	len = snprintf(line, sizeof(line), "%.64s %lld %lld\n", argv[2], usec(&t1) - usec(&t0),
		       tv_usec(&ru.ru_utime) + tv_usec(&ru.ru_stime));
	if (write(fd, line, (size_t)len) != len) {
		fprintf(stderr, "bench_time: Failed to write %s: %m\n", argv[1]);
		return 2;
	}
	return 0;
}
