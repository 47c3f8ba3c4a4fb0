/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec serve: runs the memfd-noexec service (service/,
 * memfd-service.h), which raises vm.memfd_noexec, and never lowers it, for
 * rootless containers.  This file is its options and usage; the daemon is
 * the library.
 *
 * MEMFD_TOOLKIT_FEATURES=-so_peerpidfd,-pidfd_get_pid_namespace (tests
 * only) turns those kernel interfaces off for the service, so that the
 * fallbacks run; with MEMFD_NOEXEC_DEBUG=1 each fallback prints a marker:
 * "memfd-noexec: using pidfd_open for the client", "memfd-noexec: using
 * /proc for a PID namespace", "memfd-noexec: using /proc for a user
 * namespace".
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "kernel-features.h"
#include "log.h"
#include "memfd-noexec.h"
#include "memfd-service.h"
#include "parse.h"
#include "probe.h"
#include "serve.h"
#include "service.h"

void verb_serve_usage(FILE *f)
{
	fputs("Usage: memfd-noexec serve [--socket PATH] [--allow-user USER]...\n", f);
	fputs("                          [--allow-group GROUP]...\n", f);
	fputs("\n", f);
	fputs("Raises vm.memfd_noexec, and never lowers it, for rootless\n", f);
	fputs("containers, whose runtime may not write it.  A client sends\n", f);
	fputs("\"raise N\" (0, 1 or 2) with a pidfd of a process in the\n", f);
	fputs("container over a SOCK_SEQPACKET Unix socket; the container's PID\n", f);
	fputs("namespace is raised when it lies below the client's own and its\n", f);
	fputs("user namespace was created by the client's uid.  Requests count\n", f);
	fputs("against the user who owns the client's user namespaces, so that\n", f);
	fputs("a user's subordinate uids share one turn and one quota; beyond\n", f);
	fputs("it the service answers \"busy\" at once; a user with nothing\n", f);
	fputs("waiting still gets a place in a full table.  Must run as global\n", f);
	fputs("root.  Logs one line per request to stderr, at most 200 per\n", f);
	fputs("10 s, then one summary line for the rest.\n", f);
	fputs("\n", f);
	fprintf(f, "  --socket PATH        bind PATH, mode 0666 (default %s),\n",
		NSEXEC_SERVICE_SOCKET);
	fputs("                       unless systemd passes the socket\n", f);
	fputs("                       (LISTEN_FDS=1); removed on SIGTERM/SIGINT.\n", f);
	fputs("                       For tests and private setups only: the\n", f);
	fputs("                       runtimes (the patched runc, the hook)\n", f);
	fprintf(f, "                       always ask at %s\n", NSEXEC_SERVICE_SOCKET);
	fputs("  --allow-user USER    only this user (name or uid) may ask;\n", f);
	fputs("                       repeatable\n", f);
	fputs("  --allow-group GROUP  members of this group (name or gid) may\n", f);
	fputs("                       ask; repeatable.  Without either option\n", f);
	fputs("                       every local user may.\n", f);
}

/* A user name or uid, a group name or gid; numbers are taken as ids
 * without a lookup, since a runtime may act as a uid with no name (a
 * subordinate id).  (uid_t)-1 is no id.  0 or -ENOENT. */
static int resolve_id(const char *s, bool user, uint32_t *ret)
{
	struct passwd *pw;
	struct group *gr;
	uint64_t v;

	if (mt_parse_uint(s, UINT32_MAX - 1, &v, NULL) == 0) {
		*ret = (uint32_t)v;
		return 0;
	}
	if (user) {
		pw = getpwnam(s);
		if (!pw)
			return -ENOENT;
		*ret = pw->pw_uid;
	} else {
		gr = getgrnam(s);
		if (!gr)
			return -ENOENT;
		*ret = gr->gr_gid;
	}
	return 0;
}

static void option_allow(struct service_config *cfg, bool user, const char *arg)
{
	size_t *n = user ? &cfg->n_users : &cfg->n_groups;
	uint32_t id;

	if (*n >= SERVICE_MAX_ALLOW)
		cli_die(EXIT_USAGE, "too many --allow-%s options (at most %d)%s",
			user ? "user" : "group", SERVICE_MAX_ALLOW,
			user ? "; put the users in a group and use --allow-group" : "");
	if (resolve_id(arg, user, &id) < 0)
		cli_die(EXIT_USAGE,
			"unknown %s '%s' in --allow-%s: give a name from the %s database or a number",
			user ? "user" : "group", arg, user ? "user" : "group",
			user ? "password" : "group");
	if (user)
		cfg->users[(*n)++] = id;
	else
		cfg->groups[(*n)++] = id;
}

static void option_socket(struct service_config *cfg, const char *arg)
{
	struct sockaddr_un sa;

	if (!*arg || strlen(arg) >= sizeof(sa.sun_path))
		cli_die(EXIT_USAGE, "invalid --socket '%s': give a path of 1 to %zu bytes", arg,
			sizeof(sa.sun_path) - 1);
	cfg->socket_path = arg;
}

static void parse_options(int argc, char *argv[], struct service_config *cfg)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"socket", required_argument, NULL, 's'},
		{"allow-user", required_argument, NULL, 'u'},
		{"allow-group", required_argument, NULL, 'g'},
		{},
	};
	int c;

	while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			verb_serve_usage(stdout);
			exit(0);
		case 's':
			option_socket(cfg, optarg);
			break;
		case 'u':
		case 'g':
			option_allow(cfg, c == 'u', optarg);
			break;
		case ':':
			cli_die(EXIT_USAGE, "option '%s' needs a value", cli_bad_option(argv));
		default:
			cli_die(EXIT_USAGE,
				"unknown option '%s': allowed are --socket PATH, --allow-user USER, --allow-group GROUP, --help",
				cli_bad_option(argv));
		}
	}
	if (optind < argc)
		cli_die(EXIT_USAGE, "unexpected argument '%s': serve takes only options",
			argv[optind]);
}

/* MEMFD_TOOLKIT_FEATURES, for tests: the service's two switches. */
static void parse_features(struct service_config *cfg)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct mt_features f;

	mt_features_probe(&f);
	if (mt_features_disable(&f, getenv("MEMFD_TOOLKIT_FEATURES"), "MEMFD_TOOLKIT_FEATURES",
				&e) < 0)
		cli_die(EXIT_USAGE, "%s", mt_error_message(e));
	cfg->use_peerpidfd = f.so_peerpidfd;
	cfg->use_pidfd_ns = f.pidfd_get_pid_namespace;
}

static void log_line(enum service_log_kind kind, const char *line, void *userdata)
{
	if (kind == SERVICE_LOG_DEBUG)
		cli_debug("%s", line);
	else
		cli_error("%s", line);
}

int verb_serve(int argc, char *argv[])
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct service_config cfg;
	int r;

	service_config_init(&cfg);
	cfg.log = log_line;
	parse_options(argc, argv, &cfg);
	parse_features(&cfg);
	if (probe_can_set_level(&e) < 0)
		cli_die(1,
			"must run as global root (euid 0 in the initial user namespace, with CAP_SYS_ADMIN), which alone may write vm.memfd_noexec: %s",
			mt_error_message(e));
	r = service_run(&cfg, &e);
	if (r < 0)
		cli_die(1, "%s", mt_error_message(e));
	return 0;
}
