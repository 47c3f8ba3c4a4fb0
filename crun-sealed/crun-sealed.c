/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crun-sealed: a distribution crun, unchanged, run from its own binary on a
 * detached read-only overlayfs.
 *
 *   crun-sealed [--crun=PATH] [CRUN-ARGS...]
 *
 * crun counts a /proc/self/exe on a read-only filesystem as already
 * cloned, so it skips its own memfd copy, the one that cannot execute once
 * vm.memfd_noexec is 1 or 2.  Everything after the leading --crun= goes to
 * crun untouched, and this program execs crun (execveat on the overlay's
 * fd): crun keeps this process, its PID, stdio, signals and exit status.
 *
 * The checks, before anything runs (contrib/crun/README.md has the
 * argument):
 *  - the crun path (--crun=, else CRUN_SEALED_CRUN, else /usr/bin/crun) is
 *    absolute; PATH is never searched;
 *  - it is resolved once (realpath), then walked again from "/" one
 *    component at a time with O_NOFOLLOW, each directory opened O_PATH
 *    relative to the last: a component swapped for a symlink after the
 *    resolution fails the walk instead of being followed;
 *  - every directory on the way and the file itself are owned by root or
 *    by the caller (euid), and writable by neither group nor others (a
 *    directory may be if sticky).  Where global root is unmapped (a user
 *    namespace such as rootless podman's), root's files show as the
 *    overflow uid, and so do every other unmapped user's: an owner shown
 *    so is taken for root only on the packaged path, when the path
 *    resolves to /usr/bin/crun (which must itself be the file, not a
 *    symlink to elsewhere), which the system's packages install in its
 *    own directories; any other path is refused there with 126 (it can be
 *    checked from the initial user namespace, where owners show);
 *  - the file is a regular, executable file and no script (its
 *    interpreter would run from the writable original);
 *  - the same fd that passed the checks is the one the overlay opens crun
 *    from, and the overlay is the only method: where it cannot be made,
 *    this exits 126 with the reason and one line on what works instead.
 *    crun accepts only a memfd sealed exactly 0xf and would copy itself
 *    again from ours, so no copy is ever made.
 *
 * Environment: CRUN_SEALED_CRUN (see above), CRUN_SEALED_DEBUG=1 (the
 * loader's marker "cloned_binary: using overlay" on stderr), and
 * MEMFD_TOOLKIT_FEATURES (turns kernel features off for tests; it can only
 * make the overlay impossible, never allow a copy).
 *
 * Exit status: crun's; 2 for bad usage; 126 when crun is refused or no
 * overlay can be made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloned-binary.h"
#include "log.h"
#include "macro.h"

#define EXIT_USAGE 2
#define EXIT_CANNOT_EXEC 126
#define DEFAULT_CRUN "/usr/bin/crun"

extern char **environ;

static const char hint[] =
	"crun-sealed: crun cannot run from a copy: it would copy itself into a memfd again, which cannot execute at vm.memfd_noexec 1 or 2. What works instead: make the overlay possible (the reason above), or use a runtime that accepts a sealed copy: crun rebuilt with memfd-toolkit's loader (contrib/crun/build.sh) or the patched runc (contrib/runc/build.sh). Plain crun works only where vm.memfd_noexec is 0.";

/* Where the crun path came from, for the messages. */
struct source {
	const char *path;
	const char *from;
	bool packaged; /* it resolves to DEFAULT_CRUN itself */
};

/*
 * Who may change what runs: st (of the component shown as `shown`) must be
 * owned by root or by us, and writable by neither group nor others (a
 * directory may be, if sticky).  An owner shown as the overflow uid, where
 * global root is unmapped, may be root or any other unmapped user: it is
 * taken for root on the packaged path alone.  Dies with 126 otherwise.
 */
static void check_owner_mode(const struct source *s, const char *shown, const struct stat *st)
{
	mode_t perm = st->st_mode & 07777;
	long unmapped = cloned_binary_unmapped_uid();

	if (unmapped >= 0 && (long)st->st_uid == unmapped && !s->packaged)
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s shows as owned by uid %u, the overflow uid: global root is unmapped in this user namespace, and every owner unmapped here shows as that uid, root and any other user alike, so it cannot be told here whether someone else could replace what runs. Here only the packaged %s is taken on trust; run crun-sealed from the initial user namespace (where owners show) to use another crun",
			s->path, s->from, shown, (unsigned)st->st_uid, DEFAULT_CRUN);
	if (st->st_uid != 0 && st->st_uid != geteuid() && (long)st->st_uid != unmapped)
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s is owned by uid %u, neither root nor you, who could replace what runs",
			s->path, s->from, shown, (unsigned)st->st_uid);
	if ((perm & 022) && !(S_ISDIR(st->st_mode) && (perm & S_ISVTX)))
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s (mode %o) is writable by group or others, who could replace what runs; chmod go-w it",
			s->path, s->from, shown, (unsigned)perm);
}

/*
 * Opens real (an absolute path without symlinks, "." or "..") from "/",
 * one component at a time, O_PATH and O_NOFOLLOW, checking each on the
 * way, and returns the file reopened O_RDONLY (only once it is known to be
 * a regular file: opening a FIFO or a device could block or act).  A
 * component that is (now) a symlink fails with ELOOP, never followed.
 */
static int open_checked(const struct source *s, const char *real)
{
	_cleanup_close_ int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *walk = strdup(real);
	char proc[64];
	struct stat st, again;
	char *comp, *next;
	int fd;

	if (!walk)
		cli_die(EXIT_CANNOT_EXEC, "Failed to check the crun path: %s", strerror(ENOMEM));
	if (dir < 0 || fstat(dir, &st) < 0)
		cli_die(EXIT_CANNOT_EXEC, "Failed to open /: %m");
	check_owner_mode(s, "/", &st);
	for (comp = walk + 1;; comp = next) {
		next = strchr(comp, '/');
		if (next)
			*next = '\0'; /* walk: the path up to comp */
		fd = openat(dir, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0)
			cli_die(EXIT_CANNOT_EXEC,
				"Refusing the crun path '%s' from %s: Failed to open %s without following a symlink: %m",
				s->path, s->from, walk);
		if (next && !S_ISDIR(st.st_mode))
			cli_die(EXIT_CANNOT_EXEC,
				"Refusing the crun path '%s' from %s: %s is not a directory",
				s->path, s->from, walk);
		if (!next && !S_ISREG(st.st_mode))
			cli_die(EXIT_CANNOT_EXEC,
				"Refusing the crun path '%s' from %s: %s is not a regular file",
				s->path, s->from, real);
		check_owner_mode(s, walk, &st);
		(void)close(dir);
		dir = fd;
		if (!next)
			break;
		*next++ = '/';
	}
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dir);
	fd = open(proc, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &again) < 0)
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: Failed to open %s: %m", s->path,
			s->from, real);
	if (again.st_dev != st.st_dev || again.st_ino != st.st_ino)
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s changed while it was checked",
			s->path, s->from, real);
	return fd;
}

/* The crun path, refused unless absolute and one line. */
static void check_spelling(const struct source *s)
{
	if (strchr(s->path, '\n'))
		cli_die(EXIT_USAGE, "Refusing the crun path from %s: it contains a newline",
			s->from);
	if (s->path[0] != '/')
		cli_die(EXIT_USAGE,
			"Refusing the crun path '%s' from %s: it must be an absolute path (for example /usr/bin/crun)",
			s->path, s->from);
}

/* The leading --crun=PATH, if any; returns the index of crun's first argument. */
static int parse_args(int argc, char *argv[], struct source *s)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--crun=") == 0)
			cli_die(EXIT_USAGE, "option --crun= needs a value: --crun=/absolute/path");
		if (strcmp(a, "--crun") == 0)
			cli_die(EXIT_USAGE,
				"option --crun needs its value after '=' (--crun=PATH): every other argument goes to crun");
		if (strncmp(a, "--sealexec", 10) == 0 && (a[10] == '=' || a[10] == '\0'))
			cli_die(EXIT_USAGE,
				"option %s: crun-sealed no longer runs sealexec, it opens the overlay itself; drop the option",
				a);
		if (strncmp(a, "--crun=", 7) != 0)
			break;
		s->path = a + 7;
		s->from = "--crun";
	}
	return i;
}

static void debug_from_env(void)
{
	const char *v = getenv("CRUN_SEALED_DEBUG");

	if (!v || !*v || strcmp(v, "0") == 0)
		return;
	if (strcmp(v, "1") != 0)
		cli_die(EXIT_USAGE,
			"invalid CRUN_SEALED_DEBUG='%s'; allowed: 1 (the loader's marker on stderr), 0 or unset",
			v);
	cli_log_set_debug(true);
}

int main(int argc, char *argv[])
{
	_cleanup_error_ struct mt_error *err = NULL;
	struct cloned_binary_options opts = {.request = CLONED_BINARY_REQUEST_OVERLAY};
	struct mt_features features;
	_cleanup_free_ char *real = NULL;
	struct source s = {DEFAULT_CRUN, "the default", false};
	enum cloned_binary_method method;
	char magic[2];
	int first, src, fd, r;
	const char *e;

	cli_log_init("crun-sealed", NULL);
	e = getenv("CRUN_SEALED_CRUN");
	if (e && *e) {
		s.path = e;
		s.from = "CRUN_SEALED_CRUN";
	}
	first = parse_args(argc, argv, &s);
	debug_from_env();
	check_spelling(&s);

	real = realpath(s.path, NULL);
	if (!real) {
		if (errno == ENOENT)
			cli_die(EXIT_CANNOT_EXEC,
				"Refusing the crun path '%s' from %s: it does not exist (install Debian's crun, or set CRUN_SEALED_CRUN)",
				s.path, s.from);
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: Failed to resolve it: %m", s.path,
			s.from);
	}
	/* The path the package installs, not a symlink to elsewhere: where
	 * root is unmapped, its overflow-uid owners count as root (above). */
	s.packaged = strcmp(real, DEFAULT_CRUN) == 0;
	src = open_checked(&s, real);
	if (faccessat(src, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) < 0 &&
	    (errno != EINVAL || faccessat(AT_FDCWD, real, X_OK, AT_EACCESS) < 0))
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s is not executable", s.path, s.from,
			real);
	if (pread(src, magic, sizeof(magic), 0) == 2 && magic[0] == '#' && magic[1] == '!')
		cli_die(EXIT_CANNOT_EXEC,
			"Refusing the crun path '%s' from %s: %s is a script, whose interpreter would run from the writable original; crun is a binary",
			s.path, s.from, real);

	opts.debug = cli_log_debug_enabled();
	/* The loader's owner rule, as the walk above judged it. */
	opts.overflow_uid_is_root = s.packaged;
	opts.log = cli_log_line;
	e = getenv("MEMFD_TOOLKIT_FEATURES");
	if (e) {
		mt_features_probe(&features);
		if (mt_features_disable(&features, e, "MEMFD_TOOLKIT_FEATURES", &err) < 0)
			cli_die(EXIT_USAGE, "%s", mt_error_message(err));
		opts.features = &features;
	}
	r = cloned_binary_clone(src, &opts, &method, &fd, &err);
	if (r < 0) {
		cli_error("Failed to make a sealed copy of %s: %s", real, mt_error_message(err));
		cli_log_line(hint);
		return EXIT_CANNOT_EXEC;
	}
	(void)close(src);

	/* crun's argv[0] is its real path, as if it had been started so: its
	 * basename picks crun's handler ("crun-X" would ask for handler X). */
	argv[first - 1] = real;
	(void)cloned_binary_exec(fd, argv + first - 1, environ, &opts, &err);
	cli_error("Failed to execute %s from the overlay (%s): %s", real,
		  cloned_binary_method_to_string(method), mt_error_message(err));
	cli_log_line(hint);
	return EXIT_CANNOT_EXEC;
}
