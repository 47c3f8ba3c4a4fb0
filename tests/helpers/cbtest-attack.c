/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cbtest-attack: a CVE-2019-5736-style attacker.
 *
 *   cbtest-attack ORIGINAL -- CMD [ARG...]
 *
 * CMD must end up running `selfcheck --hold` (for example
 * `sealexec selfcheck --hold`).  While it runs, we try to open, write and
 * truncate /proc/<pid>/exe, and keep an O_PATH handle on it.  After it
 * exits, we try again through the handle: that is how the original exploit
 * waited for ETXTBSY to go away.  Finally the ORIGINAL file on disk must
 * have the same checksum as before.  Exit 0 when every attack failed to
 * reach ORIGINAL, 1 otherwise, 2 for bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "macro.h"

static int failures;

/* FNV-1a, 64 bit: enough to notice any change to a file. */
static int checksum(const char *path, uint64_t *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char buf[65536];
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			h = (h ^ buf[i]) * 0x100000001b3ULL;
	if (n < 0)
		return negative_errno();
	*ret = h;
	return 0;
}

/* Returns 1 if any write or truncate reached the file behind path. */
static int attack_path(const char *path, const char *when)
{
	int fd, wrote = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = write(fd, "PWNED", 5);

		printf("attack: %s: open(O_WRONLY) %s succeeded, write %s\n", when, path,
		       n == 5 ? "succeeded" : "failed");
		wrote |= n == 5;
		/* For a sealed clone the write must fail; for an unlinked
		 * tmpfile it may land, but only in the throwaway copy, which
		 * the checksum of ORIGINAL proves. */
		close(fd);
	} else {
		printf("attack: %s: open(O_WRONLY) %s: %s\n", when, path, strerror(errno));
	}
	if (truncate(path, 0) == 0) {
		printf("attack: %s: truncate %s succeeded\n", when, path);
		wrote = 1;
	} else {
		printf("attack: %s: truncate %s: %s\n", when, path, strerror(errno));
	}
	return wrote;
}

int main(int argc, char *argv[])
{
	int out[2], in[2], status;
	uint64_t before, after;
	char line[256], exe[64], held[64];
	_cleanup_close_ int hold = -EBADF;
	FILE *f;
	pid_t pid;
	int target = -1, r;
	bool memfd = false;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "Usage: cbtest-attack ORIGINAL -- CMD [ARG...]\n");
		return 2;
	}
	r = checksum(argv[1], &before);
	if (r < 0) {
		fprintf(stderr, "cbtest-attack: Failed to read %s: %s\n", argv[1], strerror(-r));
		return 2;
	}

	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(in, O_CLOEXEC) < 0) {
		perror("cbtest-attack: Failed to create pipes");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("cbtest-attack: Failed to fork");
		return 2;
	}
	if (pid == 0) {
		if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);

	f = fdopen(out[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		if (strstr(line, " method=memfd"))
			memfd = true;
		if (sscanf(line, "selfcheck: ready pid=%d", &target) == 1)
			break;
	}
	if (target <= 0) {
		printf("attack: FAIL target never became ready\n");
		close(in[1]);
		waitpid(pid, NULL, 0);
		return 1;
	}

	(void)snprintf(exe, sizeof(exe), "/proc/%d/exe", target);
	hold = open(exe, O_PATH | O_CLOEXEC);
	if (attack_path(exe, "running")) {
		printf("attack: FAIL wrote to the running image\n");
		failures++;
	}

	/* Let it finish, then come back through the held handle. */
	close(in[1]);
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	fclose(f);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("attack: FAIL target's own checks failed (status 0x%x)\n", status);
		failures++;
	}
	if (hold >= 0) {
		(void)snprintf(held, sizeof(held), "/proc/self/fd/%d", hold);
		/* A sealed memfd must refuse even now; an unlinked tmpfile
		 * may take the write, harmlessly (checked below). */
		if (attack_path(held, "exited") && memfd) {
			printf("attack: FAIL wrote to the sealed memfd\n");
			failures++;
		}
	} else {
		printf("attack: could not hold %s: %s\n", exe, strerror(errno));
	}

	r = checksum(argv[1], &after);
	if (r < 0 || after != before) {
		printf("attack: FAIL %s changed (%016llx -> %016llx)\n", argv[1],
		       (unsigned long long)before, (unsigned long long)after);
		failures++;
	} else {
		printf("attack: %s unchanged (%016llx)\n", argv[1], (unsigned long long)after);
	}
	printf("attack: %s\n", failures ? "FAILED" : "defeated");
	return failures ? 1 : 0;
}
