/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealexec: run a program from a sealed, W^X copy of itself.
 *
 *   sealexec [--debug] [--method=auto|overlay|memfd|tmpfile]
 *            [--tmpdir=DIR] [--hint=TEXT] [--] PROGRAM [ARG...]
 *   sealexec --features [--json]
 *   sealexec --check FILE
 *
 * Exit status: PROGRAM's (sealexec execs it); 2 for a bad option or a
 * program that cannot be found; 126 when no sealed copy could be made or
 * executed.
 *
 * The library reads no environment; this tool fills its options from the
 * command line and from SEALEXEC_DEBUG, SEALEXEC_TMPDIR, XDG_RUNTIME_DIR
 * and MEMFD_TOOLKIT_FEATURES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "log.h"
#include "macro.h"
#include "memfd-sysctl.h"

#define EXIT_USAGE 2
#define EXIT_CANNOT_EXEC 126

extern char **environ;

static void usage(FILE *f)
{
	fputs("Usage: sealexec [OPTIONS] [--] PROGRAM [ARG...]\n"
	      "       sealexec --features [--json]\n"
	      "       sealexec --check FILE\n"
	      "\n"
	      "Run PROGRAM (looked up in PATH) so that nothing can overwrite the code\n"
	      "it runs: from the file itself on a detached read-only overlay (no copy)\n"
	      "where no one but root and you can rewrite that file, else from a sealed,\n"
	      "write-protected copy.\n"
	      "\n"
	      "  -d, --debug            print which method was used\n"
	      "                         (also SEALEXEC_DEBUG=1)\n"
	      "  -m, --method=METHOD    auto (default), overlay, memfd or tmpfile\n"
	      "  -t, --tmpdir=DIR       the only directory for the tmpfile method\n"
	      "                         (default: $SEALEXEC_TMPDIR, $XDG_RUNTIME_DIR,\n"
	      "                         /run, /tmp, /var/tmp, /dev/shm; directories\n"
	      "                         others control are skipped)\n"
	      "      --hint=TEXT        if no sealed copy can be made or executed,\n"
	      "                         also print the line TEXT (what works instead)\n"
	      "      --features         print the probed kernel features\n"
	      "      --json             with --features: print one JSON object\n"
	      "      --check FILE       exit 0 if FILE is a sealed clone, 1 if not\n"
	      "  -h, --help             show this help\n"
	      "  -V, --version          show the version\n"
	      "\n"
	      "The overlay is not a copy: it runs PROGRAM's own file, which overlayfs\n"
	      "keeps from being written through the overlay.  So it is used only when\n"
	      "PROGRAM and every directory above it are owned by root or by you and are\n"
	      "writable by neither group nor others (a sticky directory may be; a POSIX\n"
	      "ACL that lets others write shows in the group bits).  Otherwise auto\n"
	      "makes a sealed copy, and --method=overlay refuses with the reason.\n"
	      "--check reports an overlay file as sealed only if it is owned so, and,\n"
	      "where its superblock cannot be proven read-only, fails closed.\n"
	      "\n"
	      "Exit status: PROGRAM's; 2 for bad usage or a missing program;\n"
	      "126 if no sealed copy could be made or executed.\n"
	      "MEMFD_TOOLKIT_FEATURES=-name,... turns probed features off for\n"
	      "testing (names as printed by --features).\n",
	      f);
}

struct args {
	struct cloned_binary_options opts;
	struct mt_features features;
	const char *tmpdirs[3];
	const char *hint; /* --hint: a caller's line after a clone or exec failure */
	bool show_features, json;
	const char *check;
	char **program; /* NULL-terminated argv of PROGRAM */
};

static int print_features(const struct mt_features *f, bool json)
{
	int level = f->memfd_noexec ? mt_memfd_noexec_read() : -ENOENT;

	for (size_t i = 0; i < mt_features_count; i++) {
		bool v = mt_feature_value(f, i);

		if (json)
			printf("%s\"%s\":%s", i ? "," : "{", mt_feature_name(i),
			       v ? "true" : "false");
		else
			printf("%s: %s\n", mt_feature_name(i), v ? "yes" : "no");
	}
	if (json && level >= 0)
		printf(",\"level\":%d}\n", level);
	else if (json)
		printf(",\"level\":null}\n");
	else if (level >= 0)
		printf("level: %d\n", level);
	else
		printf("level: none (%s)\n", strerror(-level));
	return fflush(stdout) == 0 ? 0 : EXIT_CANNOT_EXEC;
}

static int check_file(const char *path, const struct cloned_binary_options *o)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		cli_die(EXIT_USAGE, "Failed to open %s: %m", path);
	r = cloned_binary_is_sealed(fd, o);
	if (r < 0)
		cli_die(EXIT_CANNOT_EXEC, "Failed to inspect %s: %s", path, strerror(-r));
	printf("%s: %s\n", path, r ? "sealed clone" : "not a sealed clone");
	return r ? 0 : 1;
}

/* Opens prog as given, or found in PATH like execvp(3); -errno if not. */
static int open_in_path(const char *prog, const char *path)
{
	_cleanup_free_ char *dirs = strdup(path);
	char *save = NULL;
	int last = -ENOENT;

	if (!dirs)
		return -ENOMEM;
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *cand = NULL;
		struct stat st;
		int fd;

		if (asprintf(&cand, "%s/%s", d, prog) < 0)
			return -ENOMEM;
		if (stat(cand, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (access(cand, X_OK) < 0) {
			last = negative_errno();
			continue;
		}
		fd = open(cand, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		last = negative_errno();
	}
	return last;
}

/* Finds PROGRAM and refuses scripts; returns an O_RDONLY fd or exits. */
static int open_program(const char *prog)
{
	const char *path = getenv("PATH");
	char magic[2];
	int fd;

	if (!*prog)
		cli_die(EXIT_USAGE, "PROGRAM must not be empty");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	if (strchr(prog, '/')) {
		fd = open(prog, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			cli_die(errno == ENOENT ? EXIT_USAGE : EXIT_CANNOT_EXEC,
				"Failed to open program %s: %m", prog);
		/* As execve() would: a copy must not run what the original
		 * may not (the overlay method keeps its mode anyway). */
		if (faccessat(AT_FDCWD, prog, X_OK, AT_EACCESS) < 0) {
			if (errno != EACCES)
				cli_die(EXIT_CANNOT_EXEC,
					"Failed to check that program %s is executable: %m", prog);
			cli_die(EXIT_CANNOT_EXEC,
				"Refusing program %s: it is not executable (%m); chmod +x it, or run it with its interpreter",
				prog);
		}
	} else {
		fd = open_in_path(prog, path);
		if (fd < 0)
			cli_die(fd == -ENOENT ? EXIT_USAGE : EXIT_CANNOT_EXEC,
				"Failed to find program %s in PATH (%s): %s", prog, path,
				strerror(-fd));
	}
	if (pread(fd, magic, sizeof(magic), 0) == 2 && magic[0] == '#' && magic[1] == '!')
		cli_die(EXIT_CANNOT_EXEC,
			"%s is a script; sealexec runs only binaries, since the interpreter could not read a close-on-exec copy. Run the interpreter instead: sealexec sh %s",
			prog, prog);
	return fd;
}

static void parse_option(struct args *a, int c, char *argv[])
{
	int r;

	switch (c) {
	case 'd':
		cli_log_set_debug(true);
		break;
	case 'm':
		r = cloned_binary_request_from_string(optarg);
		if (r < 0)
			cli_die(EXIT_USAGE,
				"invalid --method '%s'; allowed: auto, overlay, memfd, tmpfile",
				optarg);
		a->opts.request = r;
		break;
	case 't':
		if (optarg[0] != '/')
			cli_die(EXIT_USAGE, "--tmpdir '%s' must be an absolute path", optarg);
		a->opts.tmpdir = optarg;
		break;
	case 'H':
		/* One line: a control character would forge or split lines. */
		for (const char *p = optarg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				cli_die(EXIT_USAGE,
					"invalid --hint: it must be one line of printable text without control characters");
		if (!*optarg)
			cli_die(EXIT_USAGE, "invalid --hint: it must not be empty");
		a->hint = optarg;
		break;
	case 'F':
		a->show_features = true;
		break;
	case 'J':
		a->json = true;
		break;
	case 'C':
		a->check = optarg;
		break;
	case ':':
		cli_die(EXIT_USAGE, "option %s needs an argument; see --help",
			cli_bad_option(argv));
	default:
		cli_die(EXIT_USAGE, "unknown option '%s'; see --help", cli_bad_option(argv));
	}
}

/* The options that come from the environment rather than the flags. */
static void options_from_env(struct args *a)
{
	_cleanup_error_ struct mt_error *err = NULL;
	const char *e;
	size_t n = 0;

	/* --debug, or SEALEXEC_DEBUG=1 (cli_log_init()); the loader's markers
	 * go out as our other lines do. */
	a->opts.debug = cli_log_debug_enabled();
	a->opts.log = cli_log_line;
	mt_features_probe(&a->features);
	if (mt_features_disable(&a->features, getenv("MEMFD_TOOLKIT_FEATURES"),
				"MEMFD_TOOLKIT_FEATURES", &err) < 0)
		cli_die(EXIT_USAGE, "%s", mt_error_message(err));
	a->opts.features = &a->features;
	/* Candidates only: the library applies its ownership, mode and
	 * filesystem rules to them, so root skips a user's directory. */
	e = getenv("SEALEXEC_TMPDIR");
	if (e && *e)
		a->tmpdirs[n++] = e;
	e = getenv("XDG_RUNTIME_DIR");
	if (e && *e)
		a->tmpdirs[n++] = e;
	a->tmpdirs[n] = NULL;
	a->opts.tmpdirs = a->tmpdirs;
}

static void parse_args(struct args *a, int argc, char *argv[])
{
	static const struct option options[] = {
		{"debug", no_argument, NULL, 'd'},
		{"method", required_argument, NULL, 'm'},
		{"tmpdir", required_argument, NULL, 't'},
		{"features", no_argument, NULL, 'F'},
		{"json", no_argument, NULL, 'J'},
		{"check", required_argument, NULL, 'C'},
		{"hint", required_argument, NULL, 'H'}, /* for wrappers */
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{}};
	int c;

	opterr = 0;
	/* '+': stop at PROGRAM, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+:dm:t:hV", options, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == 'V') {
			printf("sealexec %s\n", PROJECT_VERSION);
			exit(0);
		}
		parse_option(a, c, argv);
	}
	if (a->json && !a->show_features)
		cli_die(EXIT_USAGE, "--json only goes with --features");
	if ((a->show_features || a->check) && optind < argc)
		cli_die(EXIT_USAGE, "--%s takes no PROGRAM",
			a->show_features ? "features" : "check");
	if (!a->show_features && !a->check && optind >= argc) {
		usage(stderr);
		cli_die(EXIT_USAGE, "missing PROGRAM");
	}
	a->program = argv + optind;
}

/* After the error line: the caller's --hint line, as given, then 126. */
_noreturn_ static void die_with_hint(const char *hint)
{
	if (hint)
		cli_log_line(hint);
	exit(EXIT_CANNOT_EXEC);
}

int main(int argc, char *argv[])
{
	_cleanup_error_ struct mt_error *err = NULL;
	enum cloned_binary_method method;
	struct args a = {};
	int src, fd, r;

	cli_log_init("sealexec", "SEALEXEC_DEBUG");
	parse_args(&a, argc, argv);
	options_from_env(&a);
	if (a.show_features)
		return print_features(&a.features, a.json);
	if (a.check)
		return check_file(a.check, &a.opts);

	src = open_program(a.program[0]);
	r = cloned_binary_clone(src, &a.opts, &method, &fd, &err);
	if (r < 0) {
		cli_error("Failed to make a sealed copy of %s: %s", a.program[0],
			  mt_error_message(err));
		die_with_hint(a.hint);
	}
	(void)close(src);

	(void)cloned_binary_exec(fd, a.program, environ, &a.opts, &err);
	cli_error("Failed to execute the sealed copy of %s (%s): %s", a.program[0],
		  cloned_binary_method_to_string(method), mt_error_message(err));
	die_with_hint(a.hint);
}
