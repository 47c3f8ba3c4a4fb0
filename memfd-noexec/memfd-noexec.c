/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec: set vm.memfd_noexec for containers, per PID namespace.
 *
 *   memfd-noexec status [--json] [--no-probe]
 *   memfd-noexec run --level N [--proc] [--] CMD [ARG...]
 *   memfd-noexec hook
 *   memfd-noexec check --runtime PATH [--json]
 *   memfd-noexec serve [--socket PATH] [--allow-user U]... [--allow-group G]...
 *   memfd-noexec --help | --version
 *
 * Exit status: 0 success; 1 failure (status, hook); 2 bad usage; for run,
 * CMD's own status (128+N if killed by signal N), 125 if memfd-noexec
 * failed before CMD started, 126 if CMD could not be executed, 127 if it
 * was not found.
 *
 * Debug markers (MEMFD_NOEXEC_DEBUG=1) go to stderr as
 * "memfd-noexec: <marker>", e.g. "memfd-noexec: wrote 2",
 * "memfd-noexec: kept 1", "memfd-noexec: joined 2", "memfd-noexec: no
 * request".  MEMFD_TOOLKIT_FEATURES=-name,... turns probed features off.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "check_runtime.h"
#include "fd-util.h"
#include "kernel-features.h"
#include "log.h"
#include "json_writer.h"
#include "macro.h"
#include "nsexec.h"
#include "policy.h"
#include "probe.h"
#include "serve.h"
#include "memfd-sysctl.h"

#define EXIT_USAGE 2
#define EXIT_RUN_FAILED 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

static const char *prog = "memfd-noexec";

static void report_result(const struct nsexec_result *res)
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

/* The probed features, less those MEMFD_TOOLKIT_FEATURES turns off. */
static void features_or_die(struct mt_features *f)
{
	_cleanup_error_ struct mt_error *e = NULL;

	mt_features_probe(f);
	if (mt_features_disable(f, getenv("MEMFD_TOOLKIT_FEATURES"), "MEMFD_TOOLKIT_FEATURES", &e) <
	    0)
		cli_die(EXIT_USAGE, "%s", mt_error_message(e));
}

/* ---- usage -------------------------------------------------------------- */

static void usage_main(FILE *f)
{
	fprintf(f,
		"Usage: %s COMMAND [OPTIONS]\n       %s --help | --version\n\nSets vm.memfd_noexec for a PID namespace (Linux 6.3+):\n  0  memfd_create() makes executable memfds unless asked not to\n  1  memfds are non-executable and sealed unless MFD_EXEC\n  2  like 1, and MFD_EXEC is refused (EACCES)\n\nCommands:\n  status [--json] [--no-probe]  kernel support and the level here\n  run --level N [--] CMD...     run CMD in a new PID namespace at N\n  hook                          OCI hook (prestart/createRuntime):\n                                applies the container's memfd_noexec\n                                annotation; OCI state on stdin\n  audit [--json] [--pid N | --container-pid N | --all]\n                                what levels 1 and 2 would break\n  check --runtime PATH [--json] does that runtime honour the\n                                annotation? (runs test containers)\n  serve [--socket PATH] [--allow-user U]... [--allow-group G]...\n                                as root: raise the level for rootless\n                                containers that ask over a socket\n\nRun '%s COMMAND --help' for a command's options.\n",
		prog, prog, prog);
}

static void usage_status(FILE *f)
{
	fprintf(f,
		"Usage: %s status [--json] [--no-probe]\n\nPrints 'key: value' lines (or, with --json, one JSON object):\n  memfd_create, mfd_exec, seal_exec, memfd_noexec, o_tmpfile,\n  execveat       what the kernel has (as sealexec --features)\n  level          vm.memfd_noexec in this PID namespace\n  pid_namespace  initial or child\n  semantics      hierarchy, ratchet, absent or unknown; probed in\n                 throwaway PID namespaces (never this one) unless\n                 --no-probe\n  can_raise      whether this process could set the level for a\n                 namespace (global root with CAP_SYS_ADMIN)\n",
		prog);
}

static void usage_run(FILE *f)
{
	fprintf(f,
		"Usage: %s run --level N [--proc] [--] CMD [ARG...]\n\nCreates a PID namespace, sets its vm.memfd_noexec to N (0, 1 or 2)\nand runs CMD as its init.  A stricter inherited value is kept,\nwith a notice.  Needs global root.  Exits with CMD's status\n(128+N for signal N); 125 if the namespace could not be set up,\n126/127 if CMD could not be executed/found.\n\n  -l, --level N   0, 1 or 2\n  -p, --proc      also a mount namespace with a /proc of the new\n                  PID namespace (for runtimes such as runc)\n",
		prog);
}

static void usage_hook(FILE *f)
{
	fprintf(f,
		"Usage: %s hook\n\nAn OCI hook for the prestart or createRuntime stage.  Reads the\nOCI state from stdin and <bundle>/config.json.  If either asks\nfor a level (annotations[\"memfd_noexec\"], in the state or the\nconfig, or linux.sysctl[\"vm.memfd_noexec\"]; \"0\", \"1\" or \"2\";\nthey must agree), it sets vm.memfd_noexec in the PID namespace\nof the state's pid when that namespace was created for the\ncontainer, and only checks it when the container joined it.\nExits 0 when there is no request; otherwise fails (non-zero,\nmessage on stderr) unless the level is in place: container\ncreation fails closed.\n",
		prog);
}

/* ---- status ------------------------------------------------------------- */

struct status_info {
	struct mt_features f;
	int level;   /* or -errno */
	int initial; /* 1, 0, or -errno */
	enum nsexec_semantics sem;
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

	r = policy_json_writer_new(&w);
	if (r < 0)
		return r;
	(void)policy_json_writer_open_object(w, NULL);
	for (size_t i = 0; i < mt_features_count; i++)
		(void)policy_json_writer_add_bool(w, mt_feature_name(i),
						  mt_feature_value(&s->f, i));
	if (s->level >= 0)
		(void)policy_json_writer_add_int(w, "level", s->level);
	else
		(void)policy_json_writer_add_null(w, "level");
	(void)policy_json_writer_add_string(w, "pid_namespace", pidns_name(s->initial));
	(void)policy_json_writer_add_string(
		w, "semantics", s->probed ? nsexec_semantics_to_string(s->sem) : "not probed");
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
		printf("semantics: %s (%s)\n", nsexec_semantics_to_string(s->sem), s->sem_detail);
	else
		printf("semantics: %s\n", nsexec_semantics_to_string(s->sem));
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
	s->initial = nsexec_in_initial_pidns();
	s->can = nsexec_can_set_level(&s->can_reason);
	if (!s->f.memfd_noexec) {
		s->sem = NSEXEC_SEMANTICS_ABSENT;
		s->probed = true;
	} else if (probe) {
		r = nsexec_probe_semantics(&s->sem, s->sem_detail, sizeof(s->sem_detail));
		if (r < 0)
			cli_die(1, "Failed to probe the semantics: %s", strerror(-r));
		s->probed = true;
	}
}

static int cmd_status(int argc, char *argv[])
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

/* ---- run ---------------------------------------------------------------- */

/* run --proc: a mount namespace of its own with a /proc of the new PID
 * namespace, as a runtime started inside needs (unshare --mount-proc). */
static bool run_mount_proc;

_noreturn_ static void run_child(int sync_fd, char *argv[])
{
	char c;
	ssize_t n;

	/* Die with memfd-noexec, like unshare --kill-child. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	do
		n = read(sync_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1 || c != 'g')
		_exit(EXIT_RUN_FAILED); /* the parent failed and reported */
	(void)close(sync_fd);

	if (run_mount_proc &&
	    (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	     mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)) {
		cli_error("Failed to mount a /proc of the new PID namespace: %m");
		_exit(EXIT_RUN_FAILED);
	}
	execvp(argv[0], argv);
	cli_error("Failed to execute %s: %m", argv[0]);
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

/* Parses run's options; returns the level, leaves optind at CMD. */
static int run_options(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"level", required_argument, NULL, 'l'},
		{"proc", no_argument, NULL, 'p'},
		{},
	};
	int c, level = -1;

	while ((c = getopt_long(argc, argv, "+:hl:p", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_run(stdout);
			exit(0);
		case 'p':
			run_mount_proc = true;
			break;
		case 'l':
			level = mt_memfd_noexec_parse(optarg);
			if (level < 0)
				cli_die(EXIT_USAGE,
					"invalid --level '%s': allowed values are 0, 1 or 2",
					optarg);
			break;
		case ':':
			cli_die(EXIT_USAGE, "option '%s' needs a value: 0, 1 or 2",
				cli_bad_option(argv));
		default:
			cli_die(EXIT_USAGE,
				"unknown option '%s': allowed are --level N, --proc, --help",
				cli_bad_option(argv));
		}
	}
	if (level < 0)
		cli_die(EXIT_USAGE, "missing --level N (allowed values are 0, 1 or 2)");
	if (optind >= argc)
		cli_die(EXIT_USAGE, "missing the command to run after --level %d", level);
	return level;
}

/* Forks CMD as PID 1 of a new PID namespace, waiting on the sync pipe. */
static pid_t run_spawn(char *argv[], int *ret_sync)
{
	int sync[2];
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to create a pipe: %m");
	if (unshare(CLONE_NEWPID | (run_mount_proc ? CLONE_NEWNS : 0)) < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to create a PID namespace: %m%s",
			errno == EPERM
				? " (needs CAP_SYS_ADMIN; setting vm.memfd_noexec needs global root)"
				: "");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		cli_die(EXIT_RUN_FAILED, "Failed to fork: %m");
	if (pid == 0) {
		(void)close(sync[1]);
		run_child(sync[0], argv);
	}
	(void)close(sync[0]);
	*ret_sync = sync[1];
	return pid;
}

static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			cli_die(EXIT_RUN_FAILED, "Failed to wait for the command: %m");
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUN_FAILED;
}

static int cmd_run(int argc, char *argv[])
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct nsexec_request req = {.origin = NSEXEC_ORIGIN_CREATED};
	struct nsexec_result res;
	int sync_fd, r;
	pid_t pid;

	req.level = run_options(argc, argv);
	pid = run_spawn(argv + optind, &sync_fd);

	/* The child is PID 1 of the new namespace and waits; set its level
	 * from out here, through the same path the hook uses. */
	r = nsexec_apply_memfd_noexec(pid, &req, &res, &e);
	if (r < 0) {
		(void)kill(pid, SIGKILL);
		(void)close(sync_fd);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		cli_die(EXIT_RUN_FAILED, "%s", mt_error_message(e));
	}
	report_result(&res);

	if (write(sync_fd, "g", 1) != 1) {
		(void)kill(pid, SIGKILL);
		cli_die(EXIT_RUN_FAILED, "Failed to start the command: %m");
	}
	(void)close(sync_fd);
	return wait_status(pid);
}

/* ---- hook --------------------------------------------------------------- */

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
	 * no memfd was made under the old value. */
	if (st->status && strcmp(st->status, "creating") != 0 && strcmp(st->status, "created") != 0)
		return mt_error_set(
			e, -EINVAL,
			"Refusing to act on a container in status \"%s\": vm.memfd_noexec must be set before the container's process runs. Register the hook for the prestart or createRuntime stage.",
			st->status);
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
	    st->level != cfg.level)
		return mt_error_set(
			e, -EINVAL,
			"Refusing the OCI state: its annotations[\"memfd_noexec\"] = \"%d\" differs from the \"%d\" that %s/config.json asks for. Make them equal.",
			st->level, cfg.level, st->bundle);
	*req = (struct nsexec_request){
		.level = st->level != POLICY_LEVEL_NONE ? st->level : cfg.level,
		.origin = NSEXEC_ORIGIN_FIND_OUT,
		.keeps_sys_admin = cfg.keeps_sys_admin,
	};
	return 0;
}

static int cmd_hook(int argc, char *argv[])
{
	_cleanup_(policy_state_done) struct policy_state st = {};
	_cleanup_error_ struct mt_error *e = NULL;
	struct nsexec_request req;
	struct nsexec_result res;

	hook_options(argc, argv);
	if (hook_read_state(&st, &e) < 0 || hook_request(&st, &req, &e) < 0) {
		cli_error("%s", mt_error_message(e));
		return 1;
	}
	if (req.level == POLICY_LEVEL_NONE) {
		cli_debug("no request");
		return 0;
	}
	if (nsexec_apply_memfd_noexec(st.pid, &req, &res, &e) < 0) {
		cli_error("%s", mt_error_message(e));
		return 1;
	}
	report_result(&res);
	return 0;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char *argv[])
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char *argv[]);
	} commands[] = {
		{"status", cmd_status},	     {"run", cmd_run},
		{"hook", cmd_hook},	     {"audit", nsexec_audit_main},
		{"check", nsexec_cmd_check}, {"serve", nsexec_serve_main},
	};

	cli_log_init(prog, "MEMFD_NOEXEC_DEBUG");
	if (argc < 2) {
		usage_main(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage_main(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("%s %s\n", prog, PROJECT_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		cli_log_set_verb(commands[i].name);
		/* getopt sees the command as argv[0]. */
		optind = 1;
		opterr = 0;
		return commands[i].fn(argc - 1, argv + 1);
	}
	cli_die(EXIT_USAGE,
		"unknown command '%s': allowed are status, run, hook, audit, check, serve (or --help, --version)",
		argv[1]);
}
