/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec hook: the OCI hook (prestart or createRuntime) for stock
 * runtimes.  The OCI state on stdin and the bundle's config.json say which
 * level the container asks for; the level is then set, or only checked,
 * by the same rules as everywhere (nsexec_apply_memfd_noexec()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "escape.h"
#include "fd-util.h"
#include "log.h"
#include "macro.h"
#include "memfd-noexec.h"
#include "policy.h"

static void usage_hook(FILE *f)
{
	fprintf(f,
		"Usage: %s hook\n\nAn OCI hook for the prestart or createRuntime stage.  Reads the\nOCI state from stdin and <bundle>/config.json.  If either asks\nfor a level (annotations[\"memfd_noexec\"], in the state or the\nconfig, or linux.sysctl[\"vm.memfd_noexec\"]; \"0\", \"1\" or \"2\";\nthey must agree), it sets vm.memfd_noexec in the PID namespace\nof the state's pid when that namespace was created for the\ncontainer, and only checks it when the container joined it.\nExits 0 when there is no request; otherwise fails (non-zero,\nmessage on stderr, and to syslog: under crun, which hides a\nhook's stderr, see journalctl -t memfd-noexec) unless the level\nis in place: container creation fails closed.\n",
		PROGRAM_NAME);
}

static void hook_options(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		if (c == 'h') {
			usage_hook(stdout);
			exit(0);
		}
		cli_die(EXIT_USAGE,
			"unknown option '%s': hook takes only --help (the OCI state comes on stdin)",
			cli_bad_option(argv));
	}
	if (optind < argc)
		cli_die(EXIT_USAGE,
			"unexpected argument '%s': hook takes no arguments (the OCI state comes on stdin)",
			argv[optind]);
}

static int hook_read_state(struct policy_state *st, struct mt_error **e)
{
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	r = read_full_fd(STDIN_FILENO, POLICY_MAX_DOCUMENT_SIZE, &data, &len);
	if (r < 0)
		return mt_error_set(e, r, "Failed to read the OCI state from stdin: %s",
				    r == -E2BIG ? "larger than 4 MiB" : strerror(-r));
	r = policy_parse_state(data, len, st, e);
	if (r < 0)
		return r;
	/* After the container process runs, it is too late to promise that
	 * no memfd was made under the old value.  The OCI state's strings
	 * come from the runtime's caller: escaped in every message. */
	if (st->status && strcmp(st->status, "creating") != 0 &&
	    strcmp(st->status, "created") != 0) {
		_cleanup_free_ char *status = mt_escape_dup(st->status);

		if (!status)
			return mt_error_set(e, -ENOMEM, "Failed to quote: %s", strerror(ENOMEM));
		return mt_error_set(
			e, -EINVAL,
			"Refusing to act on a container in status \"%s\": vm.memfd_noexec must be set before the container's process runs. Register the hook for the prestart or createRuntime stage.",
			status);
	}
	return 0;
}

/*
 * The request: the runtime's state and the bundle's config.json are read,
 * and every level either names must agree.  One alone is enough: the
 * state's annotations are what the runtime reports, so a config.json
 * edited after the runtime read it cannot hide a request.
 */
static int hook_request(const struct policy_state *st, struct nsexec_request *req,
			struct mt_error **e)
{
	struct policy_request cfg;
	int r;

	r = policy_load_bundle(st->bundle, &cfg, e);
	if (r < 0)
		return r;
	if (st->level_error)
		return mt_error_set(e, -st->level_error->err, "%s", st->level_error->msg);
	if (st->level != POLICY_LEVEL_NONE && cfg.level != POLICY_LEVEL_NONE &&
	    st->level != cfg.level) {
		_cleanup_free_ char *bundle = mt_escape_dup(st->bundle);

		if (!bundle)
			return mt_error_set(e, -ENOMEM, "Failed to quote: %s", strerror(ENOMEM));
		return mt_error_set(
			e, -EINVAL,
			"Refusing the OCI state: its annotations[\"memfd_noexec\"] = \"%d\" differs from the \"%d\" that %s/config.json asks for. Make them equal.",
			st->level, cfg.level, bundle);
	}
	*req = (struct nsexec_request){
		.level = st->level != POLICY_LEVEL_NONE ? st->level : cfg.level,
		.origin = NSEXEC_ORIGIN_FIND_OUT,
		.keeps_sys_admin = cfg.keeps_sys_admin,
	};
	return 0;
}

/*
 * A refusal goes to stderr and to syslog: crun (podman's default runtime
 * on Debian 13) shows a failing hook only as "error executing hook ...
 * (exit code: 1)", and its stderr only with the annotation
 * run.oci.hooks.stderr=FILE; syslog (journalctl -t memfd-noexec) names
 * the container and the reason wherever the hook runs.  The container's id
 * comes from the runtime's caller: escaped.
 */
static int hook_refuse(const struct policy_state *st, const struct mt_error *e)
{
	_cleanup_free_ char *id = st->id ? mt_escape_dup(st->id) : NULL;

	cli_error("%s", mt_error_message(e));
	if (st->pid > 0)
		cli_syslog(LOG_ERR, "hook refused container %s (pid %d): %s", id ? id : "(no id)",
			   (int)st->pid, mt_error_message(e));
	else
		cli_syslog(LOG_ERR, "hook refused container %s: %s", id ? id : "(no id)",
			   mt_error_message(e));
	return 1;
}

int verb_hook(int argc, char *argv[])
{
	_cleanup_(policy_state_done) struct policy_state st = {};
	_cleanup_error_ struct mt_error *e = NULL;
	struct nsexec_request req;
	struct nsexec_result res;

	hook_options(argc, argv);
	if (hook_read_state(&st, &e) < 0 || hook_request(&st, &req, &e) < 0)
		return hook_refuse(&st, e);
	if (req.level == POLICY_LEVEL_NONE) {
		cli_debug("no request");
		return 0;
	}
	if (nsexec_apply_memfd_noexec(st.pid, &req, &res, &e) < 0)
		return hook_refuse(&st, e);
	report_result(&res);
	return 0;
}
