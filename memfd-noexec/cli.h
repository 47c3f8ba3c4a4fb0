/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by memfd-noexec's commands (memfd-noexec.c and the files of its
 * larger commands).
 */
#ifndef NSEXEC_CLI_H
#define NSEXEC_CLI_H

/* The option getopt() refused, as the user wrote it ("-x" or "--long"). */
const char *nsexec_cli_bad_option(char *argv[]);

#endif
