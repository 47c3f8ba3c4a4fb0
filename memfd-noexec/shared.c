/* SPDX-License-Identifier: Apache-2.0 */
/* What more than one verb of memfd-noexec does; see memfd-noexec.h. */
#include "log.h"
#include "memfd-noexec.h"

void print_lines(FILE *f, const char *const *lines)
{
	for (; *lines; lines++)
		fprintf(f, "%s\n", *lines);
}

void report_result(const struct nsexec_result *res)
{
	if (res->joined)
		cli_notice(
			"the container joins the existing PID namespace pid:[%lu], already at %d (asked for %d); it is left unchanged",
			res->ino, res->after, res->requested);
	else if (res->kept)
		cli_notice("kept stricter inherited value %d (asked for %d)", res->after,
			   res->requested);
	if (res->joined)
		cli_debug("joined %d", res->after);
	else if (res->written)
		cli_debug("wrote %d", res->requested);
	else
		cli_debug("kept %d", res->after);
}
