/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit-manyns N
 *
 * Starts N children, each in a user namespace and a PID namespace of its
 * own (clone(CLONE_NEWUSER | CLONE_NEWPID): each is PID 1 there), which
 * sleep until this process dies (PR_SET_PDEATHSIG).  Then prints
 * "audit-manyns: ready pid=P" and holds.  For `memfd-noexec audit`, which
 * must read the level of more PID namespaces than it may open fds
 * (tests/bats/audit.bats).  Needs root (or unprivileged user namespaces).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/wait.h>

#include "audit-helper.h"
#include "parse.h"

static const char name[] = "audit-manyns";

static int child(void *arg)
{
	(void)arg;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	(void)prctl(PR_SET_NAME, "audit-ns-child");
	for (;;)
		pause();
}

int main(int argc, char *argv[])
{
	/* No CLONE_VM: each child gets a copy of this stack, so one does. */
	static char stack[64 * 1024] __attribute__((aligned(16)));
	uint64_t n;

	if (argc != 2 || mt_parse_uint(argv[1], 10000, &n, NULL) < 0 || n == 0) {
		fprintf(stderr, "usage: %s N (1 to 10000)\n", name);
		return 2;
	}
	for (uint64_t i = 0; i < n; i++) {
		pid_t pid = clone(child, stack + sizeof(stack),
				  CLONE_NEWUSER | CLONE_NEWPID | SIGCHLD, NULL);

		if (pid < 0)
			helper_die(name, "Failed to start child %ju in new namespaces: %m",
				   (uintmax_t)i);
	}
	helper_hold(name, false);
}
