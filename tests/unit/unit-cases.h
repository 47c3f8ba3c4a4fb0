/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The frame of the table tests (common_test, pidns_test; audit_test takes
 * FAIL() and struct unit_case): FAIL() returns 1 from a case with a
 * message, and unit_main() runs the case named on the command line (CTest
 * runs each in its own process) or, without one, every
 * case, printing "ok NAME", "not ok NAME" or "skip NAME".  A case that
 * returns UNIT_SKIP (77, CTest's SKIP_RETURN_CODE here) is skipped; only
 * do that when CI is not "true".
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

#define UNIT_SKIP 77

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
		int r = cases[i].fn();

		if (r == UNIT_SKIP) {
			printf("skip %s\n", cases[i].name);
			if (argc == 2)
				return UNIT_SKIP;
		} else if (r != 0) {
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
