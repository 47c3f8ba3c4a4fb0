/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sealexec: run a program from a sealed, W^X copy of itself.
 *
 *   sealexec [--debug] [--method=auto|memfd|tmpfile] [--tmpdir=DIR] [--]
 *            PROGRAM [ARG...]
 *   sealexec --features [--json]
 *   sealexec --check FILE
 *
 * Exit status: PROGRAM's (sealexec execs it); 2 for a bad option or a
 * program that cannot be found; 126 when no sealed copy could be made or
 * executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloned_binary.h"
#include "macro.h"

#define EXIT_USAGE 2
#define EXIT_CANNOT_EXEC 126

extern char **environ;

_noreturn_ _printf_(2, 3) static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("sealexec: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void usage(FILE *f)
{
	fputs("Usage: sealexec [OPTIONS] [--] PROGRAM [ARG...]\n"
	      "       sealexec --features [--json]\n"
	      "       sealexec --check FILE\n"
	      "\n"
	      "Run PROGRAM (looked up in PATH) from a sealed, write-protected\n"
	      "copy, so that nothing can overwrite the file it was started "
	      "from.\n"
	      "\n"
	      "  -d, --debug            print which method was used\n"
	      "                         (also SEALEXEC_DEBUG=1)\n"
	      "  -m, --method=METHOD    auto (default), memfd or tmpfile\n"
	      "  -t, --tmpdir=DIR       directory for the tmpfile method\n"
	      "                         (default: $SEALEXEC_TMPDIR, "
	      "$XDG_RUNTIME_DIR,\n"
	      "                         /run, /tmp, /var/tmp, /dev/shm)\n"
	      "      --features         print the probed kernel features\n"
	      "      --json             with --features: print one JSON "
	      "object\n"
	      "      --check FILE       exit 0 if FILE is a sealed clone, 1 if "
	      "not\n"
	      "  -h, --help             show this help\n"
	      "  -V, --version          show the version\n"
	      "\n"
	      "Exit status: PROGRAM's; 2 for bad usage or a missing program;\n"
	      "126 if no sealed copy could be made or executed.\n"
	      "CLONED_BINARY_FEATURES=-name,... turns probed features off for\n"
	      "testing (names as printed by --features).\n",
	      f);
}

/* Feature names, shared by --features and CLONED_BINARY_FEATURES. */
#define FEATURE_TABLE(f)                                \
	{                                               \
		{"memfd_create", &(f)->memfd_create},   \
			{"mfd_exec", &(f)->mfd_exec},   \
			{"seal_exec", &(f)->seal_exec}, \
			{"o_tmpfile", &(f)->o_tmpfile}, \
			{"execveat", &(f)->execveat},   \
	}

struct feature_ref {
	const char *name;
	bool *value;
};

/* Applies "-name,-name" from CLONED_BINARY_FEATURES; features only go off. */
static void apply_feature_env(void)
{
	const char *env = getenv("CLONED_BINARY_FEATURES");
	struct cloned_binary_features f;
	_cleanup_free_ char *copy = NULL;
	char *save = NULL;

	if (!env || !*env)
		return;

	cloned_binary_features(&f);
	struct feature_ref table[] = FEATURE_TABLE(&f);

	copy = strdup(env);
	if (!copy)
		die(EXIT_CANNOT_EXEC,
		    "Failed to parse CLONED_BINARY_FEATURES: %s",
		    strerror(ENOMEM));
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		bool found = false;

		if (tok[0] != '-')
			die(EXIT_USAGE,
			    "CLONED_BINARY_FEATURES: '%s' must start with '-' "
			    "(features can only be turned off)",
			    tok);
		for (size_t i = 0; i < ELEMENTSOF(table); i++)
			if (strcmp(tok + 1, table[i].name) == 0) {
				*table[i].value = false;
				found = true;
			}
		if (!found)
			die(EXIT_USAGE,
			    "CLONED_BINARY_FEATURES: unknown feature '%s'; "
			    "allowed: "
			    "memfd_create, mfd_exec, seal_exec, o_tmpfile, "
			    "execveat",
			    tok + 1);
	}
	cloned_binary_features_override(&f);
	if (cloned_binary_debug_enabled())
		fprintf(stderr,
			"cloned_binary: features overridden by "
			"CLONED_BINARY_FEATURES=%s\n",
			env);
}

static int print_features(bool json)
{
	struct cloned_binary_features f;
	char level[16];
	int r;

	cloned_binary_features(&f);
	struct feature_ref table[] = FEATURE_TABLE(&f);

	r = cloned_binary_memfd_noexec();
	if (r >= 0)
		(void)snprintf(level, sizeof(level), "%d", r);
	else if (r == -ENOENT)
		(void)snprintf(level, sizeof(level), "absent");
	else
		(void)snprintf(level, sizeof(level), "unreadable");

	if (json) {
		fputc('{', stdout);
		for (size_t i = 0; i < ELEMENTSOF(table); i++)
			printf("\"%s\":%s,", table[i].name,
			       *table[i].value ? "true" : "false");
		if (r >= 0)
			printf("\"memfd_noexec\":%d}\n", r);
		else
			printf("\"memfd_noexec\":\"%s\"}\n", level);
	} else {
		for (size_t i = 0; i < ELEMENTSOF(table); i++)
			printf("%s: %s\n", table[i].name,
			       *table[i].value ? "yes" : "no");
		printf("memfd_noexec: %s\n", level);
	}
	return fflush(stdout) == 0 ? 0 : EXIT_CANNOT_EXEC;
}

static int check_file(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		die(EXIT_USAGE, "Failed to open %s: %m", path);
	r = cloned_binary_is_sealed(fd);
	if (r < 0)
		die(EXIT_CANNOT_EXEC, "Failed to inspect %s: %s", path,
		    strerror(-r));
	printf("%s: %s\n", path, r ? "sealed clone" : "not a sealed clone");
	return r ? 0 : 1;
}

/* Finds PROGRAM like execvp(3) would; returns an O_RDONLY fd or exits. */
static int open_program(const char *prog)
{
	const char *path = getenv("PATH");
	_cleanup_free_ char *dirs = NULL;
	char *save = NULL;
	int fd, last = ENOENT;

	if (!*prog)
		die(EXIT_USAGE, "PROGRAM must not be empty");

	if (strchr(prog, '/')) {
		fd = open(prog, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(errno == ENOENT ? EXIT_USAGE : EXIT_CANNOT_EXEC,
			    "Failed to open program %s: %m", prog);
		return fd;
	}

	dirs = strdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	if (!dirs)
		die(EXIT_CANNOT_EXEC, "Failed to allocate PATH: %s",
		    strerror(ENOMEM));
	for (char *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		_cleanup_free_ char *cand = NULL;
		struct stat st;

		if (asprintf(&cand, "%s/%s", d, prog) < 0)
			die(EXIT_CANNOT_EXEC, "Failed to allocate path: %s",
			    strerror(ENOMEM));
		if (stat(cand, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (access(cand, X_OK) < 0) {
			last = errno;
			continue;
		}
		fd = open(cand, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		last = errno;
	}
	die(last == ENOENT ? EXIT_USAGE : EXIT_CANNOT_EXEC,
	    "Failed to find program %s in PATH (%s): %s", prog,
	    path && *path ? path : "default", strerror(last));
}

int main(int argc, char *argv[])
{
	enum {
		OPT_FEATURES = 0x100,
		OPT_JSON,
		OPT_CHECK,
	};
	static const struct option options[] = {
		{"debug", no_argument, NULL, 'd'},
		{"method", required_argument, NULL, 'm'},
		{"tmpdir", required_argument, NULL, 't'},
		{"features", no_argument, NULL, OPT_FEATURES},
		{"json", no_argument, NULL, OPT_JSON},
		{"check", required_argument, NULL, OPT_CHECK},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{}};
	struct cloned_binary_options opts = {};
	bool features = false, json = false;
	const char *check = NULL;
	enum cloned_binary_method method;
	_cleanup_close_ int src = -EBADF;
	int c, fd, r;

	opterr = 0;
	/* '+': stop at PROGRAM, so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+dm:t:hV", options, NULL)) != -1) {
		switch (c) {
		case 'd':
			cloned_binary_set_debug(true);
			break;
		case 'm':
			r = cloned_binary_request_from_string(optarg);
			if (r < 0)
				die(EXIT_USAGE,
				    "invalid --method '%s'; allowed: auto, "
				    "memfd, tmpfile",
				    optarg);
			opts.request = r;
			break;
		case 't':
			if (optarg[0] != '/')
				die(EXIT_USAGE,
				    "--tmpdir '%s' must be an absolute path",
				    optarg);
			opts.tmpdir = optarg;
			break;
		case OPT_FEATURES:
			features = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_CHECK:
			check = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("sealexec %s\n", PROJECT_VERSION);
			return 0;
		default:
			if (optopt && strchr("mt", optopt))
				die(EXIT_USAGE,
				    "option -%c needs an argument; see --help",
				    optopt);
			die(EXIT_USAGE, "unknown option '%s'; see --help",
			    argv[optind - 1]);
		}
	}

	apply_feature_env();

	if (json && !features)
		die(EXIT_USAGE, "--json only goes with --features");
	if (features) {
		if (optind < argc)
			die(EXIT_USAGE, "--features takes no PROGRAM");
		return print_features(json);
	}
	if (check) {
		if (optind < argc)
			die(EXIT_USAGE, "--check takes no PROGRAM");
		return check_file(check);
	}
	if (optind >= argc) {
		usage(stderr);
		die(EXIT_USAGE, "missing PROGRAM");
	}

	src = open_program(argv[optind]);

	{
		char magic[2];

		if (pread(src, magic, sizeof(magic), 0) == 2 &&
		    magic[0] == '#' && magic[1] == '!')
			die(EXIT_CANNOT_EXEC,
			    "%s is a script; sealexec runs only binaries, "
			    "since the "
			    "interpreter could not read a close-on-exec copy. "
			    "Run "
			    "the interpreter instead: sealexec sh %s",
			    argv[optind], argv[optind]);
	}

	r = cloned_binary_clone(src, &opts, &method, &fd);
	if (r < 0)
		die(EXIT_CANNOT_EXEC, "Failed to make a sealed copy of %s: %s",
		    argv[optind], cloned_binary_last_error());
	src = safe_close(src);

	r = cloned_binary_exec(fd, argv + optind, environ);
	die(EXIT_CANNOT_EXEC,
	    "Failed to execute the sealed copy of %s (%s): %s", argv[optind],
	    cloned_binary_method_to_string(method), cloned_binary_last_error());
}
