/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec status: what the kernel offers, the level here, how the
 * sysctl passes between PID namespaces (probe.c), and whether this process
 * could raise it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-writer.h"
#include "kernel-features.h"
#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"
#include "memfd-sysctl.h"
#include "probe.h"

static void usage_status(FILE *f)
{
	fprintf(f,
		"Usage: %s status [--json] [--no-probe]\n\nPrints 'key: value' lines (or, with --json, one JSON object):\n  memfd_create, mfd_exec, seal_exec, memfd_noexec, o_tmpfile,\n  execveat       what the kernel has (as sealexec --features)\n  level          vm.memfd_noexec in this PID namespace\n  pid_namespace  initial or child\n  semantics      hierarchy, ratchet, absent or unknown; probed in\n                 throwaway PID namespaces (never this one) unless\n                 --no-probe\n  can_raise      whether this process could set the level for a\n                 namespace (global root with CAP_SYS_ADMIN)\n",
		PROGRAM_NAME);
}

/* The probed features, less those MEMFD_TOOLKIT_FEATURES turns off. */
static void features_or_die(struct mt_features *f)
{
	_cleanup_error_ struct mt_error *e = NULL;

	mt_features_probe(f);
	if (mt_features_disable(f, getenv("MEMFD_TOOLKIT_FEATURES"), "MEMFD_TOOLKIT_FEATURES", &e) <
	    0)
		cli_die(EXIT_USAGE, "%s", mt_error_message(e));
}

struct status_info {
	struct mt_features f;
	int level;   /* or -errno */
	int initial; /* 1, 0, or -errno */
	enum probe_semantics sem;
	char sem_detail[256];
	bool probed;
	int can; /* 0, or -errno */
	struct mt_error *can_reason;
};

static const char *pidns_name(int initial)
{
	return initial < 0 ? "unknown" : initial ? "initial" : "child";
}

static int print_status_json(const struct status_info *s)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	int r;

	r = policy_json_writer_new_object(&w);
	if (r < 0)
		return r;
	for (size_t i = 0; i < mt_features_count; i++)
		(void)policy_json_writer_add_bool(w, mt_feature_name(i),
						  mt_feature_value(&s->f, i));
	if (s->level >= 0)
		(void)policy_json_writer_add_int(w, "level", s->level);
	else
		(void)policy_json_writer_add_null(w, "level");
	(void)policy_json_writer_add_string(w, "pid_namespace", pidns_name(s->initial));
	(void)policy_json_writer_add_string(
		w, "semantics", s->probed ? probe_semantics_to_string(s->sem) : "not probed");
	(void)policy_json_writer_add_string(w, "semantics_detail",
					    s->sem_detail[0] ? s->sem_detail : NULL);
	if (s->can == 0 || s->can == -EPERM)
		(void)policy_json_writer_add_bool(w, "can_raise", s->can == 0);
	else
		(void)policy_json_writer_add_null(w, "can_raise");
	(void)policy_json_writer_add_string(w, "can_raise_detail",
					    s->can == 0 ? NULL : mt_error_message(s->can_reason));
	(void)policy_json_writer_close_object(w);
	return policy_json_writer_print(w, stdout);
}

static void print_status_text(const struct status_info *s)
{
	for (size_t i = 0; i < mt_features_count; i++)
		printf("%s: %s\n", mt_feature_name(i), mt_feature_value(&s->f, i) ? "yes" : "no");
	if (s->level >= 0)
		printf("level: %d\n", s->level);
	else
		printf("level: none (%s)\n", strerror(-s->level));
	printf("pid_namespace: %s\n", pidns_name(s->initial));
	if (!s->probed)
		printf("semantics: not probed\n");
	else if (s->sem_detail[0])
		printf("semantics: %s (%s)\n", probe_semantics_to_string(s->sem), s->sem_detail);
	else
		printf("semantics: %s\n", probe_semantics_to_string(s->sem));
	if (s->can == 0)
		printf("can_raise: yes\n");
	else if (s->can == -EPERM)
		printf("can_raise: no (%s)\n", mt_error_message(s->can_reason));
	else
		printf("can_raise: unknown (%s)\n", mt_error_message(s->can_reason));
}

static void status_collect(struct status_info *s, bool probe)
{
	int r;

	features_or_die(&s->f);
	s->level = s->f.memfd_noexec ? mt_memfd_noexec_read() : -ENOENT;
	s->initial = probe_in_initial_pidns();
	s->can = probe_can_set_level(&s->can_reason);
	if (!s->f.memfd_noexec) {
		s->sem = PROBE_SEMANTICS_ABSENT;
		s->probed = true;
	} else if (probe) {
		r = probe_kernel_semantics(&s->sem, s->sem_detail, sizeof(s->sem_detail));
		if (r < 0)
			cli_die(1, "Failed to probe the semantics: %s", strerror(-r));
		s->probed = true;
	}
}

int verb_status(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"json", no_argument, NULL, 'j'},
		{"no-probe", no_argument, NULL, 'n'},
		{},
	};
	struct status_info s = {};
	bool json = false, probe = true;
	int c, r;

	while ((c = getopt_long(argc, argv, "+:hjn", options, NULL)) != -1) {
		if (c == 'h') {
			usage_status(stdout);
			return 0;
		}
		if (c != 'j' && c != 'n')
			cli_die(EXIT_USAGE,
				"unknown option '%s': allowed are --json, --no-probe, --help",
				cli_bad_option(argv));
		json |= c == 'j';
		probe &= c != 'n';
	}
	if (optind < argc)
		cli_die(EXIT_USAGE,
			"unexpected argument '%s': status takes only --json, --no-probe, --help",
			argv[optind]);

	status_collect(&s, probe);
	if (json) {
		r = print_status_json(&s);
		if (r < 0)
			cli_die(1, "Failed to format JSON: %s", strerror(-r));
	} else {
		print_status_text(&s);
	}
	mt_error_free(&s.can_reason);
	if (fflush(stdout) != 0)
		cli_die(1, "Failed to write the status: %m");
	return 0;
}
