/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The frame of the table tests (common_test, pidns_test): FAIL() returns 1
 * from a case with a message, and unit_main() runs the case named on the
 * command line (CTest runs each in its own process) or, without one, every
 * case, printing "ok NAME" or "not ok NAME".
 */
#ifndef MEMFD_TOOLKIT_UNIT_CASES_H
#define MEMFD_TOOLKIT_UNIT_CASES_H

#include <stdio.h>
#include <string.h>

#define FAIL(...)                                               \
	do {                                                    \
		fprintf(stderr, "%s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                   \
		fputc('\n', stderr);                            \
		return 1;                                       \
	} while (0)

struct unit_case {
	const char *name;
	int (*fn)(void);
};

static inline int unit_main(const char *prog, const struct unit_case *cases, size_t n, int argc,
			    char *argv[])
{
	int failed = 0;

	for (size_t i = 0; i < n; i++) {
		if (argc == 2 && strcmp(argv[1], cases[i].name) != 0)
			continue;
		if (cases[i].fn() != 0) {
			printf("not ok %s\n", cases[i].name);
			failed++;
		} else {
			printf("ok %s\n", cases[i].name);
		}
		if (argc == 2)
			return failed;
	}
	if (argc == 2) {
		fprintf(stderr, "%s: unknown case '%s'\n", prog, argv[1]);
		return 2;
	}
	return failed ? 1 : 0;
}

#endif
