/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec check --runtime PATH [--json]
 *
 * Tells whether an OCI runtime binary honours the memfd_noexec annotation,
 * by running containers with it rather than by reading its version:
 *
 *   1. annotations["memfd_noexec"] = "2": the container reports the
 *      vm.memfd_noexec it sees and what memfd_create(MFD_EXEC) gives;
 *   2. if it saw 2: the annotation "3", which an honouring runtime must
 *      refuse (a bad value has to fail creation, not run unprotected);
 *   3. if 1 failed: a control container without the annotation, which
 *      separates "refuses the annotation" from "cannot run containers
 *      here at all".
 *
 * Verdicts: honours (exit 0), ignores (the container runs unprotected),
 * refuses, cannot-tell (exit 1 for all three).
 *
 * Safety.  The check itself never writes vm.memfd_noexec.  Each runtime
 * runs as PID 1's child in a throwaway PID namespace with a private mount
 * namespace and a fresh /proc, so even a runtime that wrote the sysctl in
 * its own namespace would change only that throwaway one, never the
 * caller's or the host's; the container gets a PID namespace of its own
 * below it.  After each run the throwaway namespace's own level is read
 * back: a runtime that changed it (and so would change the host's when
 * run there) is reported as a danger, never as honouring.  Everything
 * lives in a private directory under /run (or /tmp) that is removed
 * afterwards, and the container is deleted with the runtime's own
 * `delete -f` inside the same namespace (where its PIDs mean what the
 * runtime's state says).
 *
 * The rootfs.  The container runs this very program (`check --inside`),
 * so it needs no image.  A root.path of "/" does not work: runc 1.1.5
 * fails with "pivot_root .: device or resource busy".  So, in the private
 * mount namespace, "/" is bound recursively onto an empty directory
 * <dir>/rootfs, which is then the read-only root.path; runc 1.1.5 (stock
 * and patched) and crun 1.8.1 both run it.  crun refuses hybrid cgroup
 * hierarchies ("cgroups in hybrid mode not supported"), so on a hybrid
 * host the cgroup2 mount at /sys/fs/cgroup/unified is detached inside the
 * private mount namespace (nowhere else); that changes nothing about the
 * annotation.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "memfd-noexec.h"
#include "errors.h"
#include "escape.h"
#include "fd-util.h"
#include "json_writer.h"
#include "log.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing_syscall.h"
#include "parse.h"
#include "probe.h"

#define EXIT_USAGE 2

/* Generous: a cold runtime binary on a loaded machine can take seconds. */
#define RUN_TIMEOUT_MS 30000
#define DELETE_TIMEOUT_MS 10000
#define MAX_CAPTURE (64 * 1024)
#define MAX_MESSAGE 400

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* What the container prints: "memfd-noexec-check: level=2 mfd_exec=EACCES" */
#define INSIDE_TAG "memfd-noexec-check:"

static const char *const runtime_env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	NULL,
};

/* ---- reporting ---------------------------------------------------------- */

static void usage_check(FILE *f)
{
	static const char *const lines[] = {
		"Usage: memfd-noexec check --runtime PATH [--json]",
		"",
		"Tells whether the OCI runtime at PATH honours the memfd_noexec",
		"annotation, by running small containers with it (as root): one",
		"annotated \"2\" must see vm.memfd_noexec=2, one annotated \"3\"",
		"must be refused.  The containers run this program from a",
		"read-only bind of \"/\"; nothing is pulled.  The runtime runs in",
		"a throwaway PID and mount namespace: neither this namespace's",
		"level nor the host's can change.  Its state and bundle live in a",
		"private directory that is removed afterwards.",
		"",
		"Verdicts: honours (exit 0); ignores: containers run unprotected;",
		"refuses; cannot-tell, e.g. when the level here is already 2",
		"(exit 1 for these).  Exit 2: bad usage, or PATH is not an",
		"executable file.",
		"",
		"  -r, --runtime PATH  the runtime binary (runc, crun, ...)",
		"  -j, --json          one JSON object instead of text",
		"      --inside        (internal) what the test container runs",
		NULL,
	};

	print_lines(f, lines);
}

/* ---- the container's side ----------------------------------------------- */

static const char *errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "EUNKNOWN";
}

/* Runs inside the test container: one line on stdout. */
static int check_inside(void)
{
	_cleanup_close_ int fd = -EBADF;
	int level = mt_memfd_noexec_read();

	if (level < 0) {
		/* No report: the caller shows this line as the reason. */
		cli_error("Failed to read vm.memfd_noexec inside the test container: %s",
			  strerror(-level));
		return 1;
	}
	fd = missing_memfd_create("memfd-noexec-check", MFD_CLOEXEC | MFD_EXEC);
	printf(INSIDE_TAG " level=%d mfd_exec=%s\n", level, fd >= 0 ? "ok" : errno_name(errno));
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- the private directory ---------------------------------------------- */

struct check_ctx {
	const char *runtime; /* as given, for exec */
	char *self;	     /* this program, for the container */
	char *dir;	     /* the private directory; NULL once removed */
	char *bundle, *config, *state, *rootfs, *out, *err;
	char id[64];
	int level_here;
};

static void *mfree(void *p)
{
	free(p);
	return NULL;
}

static int remove_error;

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (remove(path) < 0 && errno != ENOENT && remove_error == 0)
		remove_error = negative_errno();
	return 0;
}

/* Removes dir and everything below it, not crossing into mounts. */
static int remove_tree(const char *dir)
{
	remove_error = 0;
	if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0)
		return negative_errno();
	return remove_error;
}

static void check_ctx_done(struct check_ctx *c)
{
	int r;

	if (c->dir) {
		r = remove_tree(c->dir);
		if (r < 0)
			cli_error(
				"Failed to remove the private directory %s: %s; remove it by hand",
				c->dir, strerror(-r));
	}
	c->self = mfree(c->self);
	c->dir = mfree(c->dir);
	c->bundle = mfree(c->bundle);
	c->config = mfree(c->config);
	c->state = mfree(c->state);
	c->rootfs = mfree(c->rootfs);
	c->out = mfree(c->out);
	c->err = mfree(c->err);
}

static int path_join(const char *dir, const char *name, char **ret)
{
	if (asprintf(ret, "%s/%s", dir, name) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int make_private_dir(struct check_ctx *c)
{
	static const char *const parents[] = {"/run", "/tmp"};
	int r = -ENOENT;

	for (size_t i = 0; i < ELEMENTSOF(parents) && !c->dir; i++) {
		_cleanup_free_ char *t = NULL;

		if (asprintf(&t, "%s/memfd-noexec-check.XXXXXX", parents[i]) < 0)
			return -ENOMEM;
		if (!mkdtemp(t)) {
			r = negative_errno();
			continue;
		}
		c->dir = TAKE_PTR(t);
	}
	if (!c->dir)
		return r;
	if (path_join(c->dir, "bundle", &c->bundle) < 0 ||
	    path_join(c->bundle, "config.json", &c->config) < 0 ||
	    path_join(c->dir, "state", &c->state) < 0 ||
	    path_join(c->dir, "rootfs", &c->rootfs) < 0 || path_join(c->dir, "out", &c->out) < 0 ||
	    path_join(c->dir, "err", &c->err) < 0)
		return -ENOMEM;
	if (mkdir(c->bundle, 0700) < 0 || mkdir(c->state, 0700) < 0 || mkdir(c->rootfs, 0755) < 0)
		return negative_errno();
	return 0;
}

/* ---- config.json -------------------------------------------------------- */

/* Errors of the writer are sticky: the callers check the end result. */
static void add_strings(struct policy_json_writer *w, const char *key, const char *const *items)
{
	(void)policy_json_writer_open_array(w, key);
	for (; *items; items++)
		(void)policy_json_writer_add_string(w, NULL, *items);
	(void)policy_json_writer_close_array(w);
}

/* Runs this program as root, without capabilities: a container keeping
 * CAP_SYS_ADMIN could undo its level, and an honouring runtime refuses to
 * promise one then. */
static void add_process(struct policy_json_writer *w, const struct check_ctx *c)
{
	const char *const args[] = {c->self, "check", "--inside", NULL};
	const char *const env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	const char *const none[] = {NULL};

	(void)policy_json_writer_open_object(w, "process");
	(void)policy_json_writer_add_bool(w, "terminal", false);
	(void)policy_json_writer_open_object(w, "user");
	(void)policy_json_writer_add_int(w, "uid", 0);
	(void)policy_json_writer_add_int(w, "gid", 0);
	(void)policy_json_writer_close_object(w);
	add_strings(w, "args", args);
	add_strings(w, "env", env);
	(void)policy_json_writer_add_string(w, "cwd", "/");
	(void)policy_json_writer_add_bool(w, "noNewPrivileges", true);
	(void)policy_json_writer_open_object(w, "capabilities");
	add_strings(w, "bounding", none);
	add_strings(w, "effective", none);
	add_strings(w, "permitted", none);
	(void)policy_json_writer_close_object(w);
	(void)policy_json_writer_close_object(w);
}

/* A fresh /proc and a small /dev; the rootfs is a read-only bind of "/". */
static void add_mounts(struct policy_json_writer *w)
{
	static const struct {
		const char *destination, *type;
		const char *const options[4];
	} mounts[] = {
		{"/proc", "proc", {"nosuid", "noexec", "nodev", NULL}},
		{"/dev", "tmpfs", {"nosuid", "mode=755", "size=1024k", NULL}},
	};

	(void)policy_json_writer_open_array(w, "mounts");
	for (size_t i = 0; i < ELEMENTSOF(mounts); i++) {
		(void)policy_json_writer_open_object(w, NULL);
		(void)policy_json_writer_add_string(w, "destination", mounts[i].destination);
		(void)policy_json_writer_add_string(w, "type", mounts[i].type);
		/* The source of a pseudo filesystem: its type, by custom. */
		(void)policy_json_writer_add_string(w, "source", mounts[i].type);
		add_strings(w, "options", mounts[i].options);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

static void add_namespaces(struct policy_json_writer *w)
{
	static const char *const types[] = {"pid", "mount", "ipc", "uts", "network"};

	(void)policy_json_writer_open_object(w, "linux");
	(void)policy_json_writer_open_array(w, "namespaces");
	for (size_t i = 0; i < ELEMENTSOF(types); i++) {
		(void)policy_json_writer_open_object(w, NULL);
		(void)policy_json_writer_add_string(w, "type", types[i]);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
	(void)policy_json_writer_close_object(w);
}

/* The document for one container; annotation NULL: none. */
static int build_config(const struct check_ctx *c, const char *annotation,
			struct policy_json_writer **ret)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	int r = policy_json_writer_new(&w);

	if (r < 0)
		return r;
	(void)policy_json_writer_open_object(w, NULL);
	(void)policy_json_writer_add_string(w, "ociVersion", "1.0.2");
	add_process(w, c);
	(void)policy_json_writer_open_object(w, "root");
	(void)policy_json_writer_add_string(w, "path", c->rootfs);
	(void)policy_json_writer_add_bool(w, "readonly", true);
	(void)policy_json_writer_close_object(w);
	(void)policy_json_writer_add_string(w, "hostname", "memfd-noexec-check");
	add_mounts(w);
	if (annotation) {
		(void)policy_json_writer_open_object(w, "annotations");
		(void)policy_json_writer_add_string(w, "memfd_noexec", annotation);
		(void)policy_json_writer_close_object(w);
	}
	add_namespaces(w);
	(void)policy_json_writer_close_object(w);
	*ret = TAKE_PTR(w);
	return 0;
}

/* Writes config.json for one container; -EILSEQ if a path is not UTF-8. */
static int write_config(const struct check_ctx *c, const char *annotation)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	_cleanup_close_ int fd = -EBADF;
	FILE *f;
	int r;

	r = build_config(c, annotation, &w);
	if (r < 0)
		return r;
	fd = open(c->config, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	f = fdopen(fd, "w");
	if (!f)
		return negative_errno();
	TAKE_FD(fd);
	r = policy_json_writer_print(w, f);
	if (fclose(f) != 0 && r >= 0)
		r = negative_errno();
	return r;
}

/* ---- running the runtime ------------------------------------------------ */

enum run_step {
	STEP_NONE = 0,
	STEP_MOUNT_PRIVATE,
	STEP_MOUNT_PROC,
	STEP_BIND_ROOT,
	STEP_OPEN_OUTPUT,
	STEP_SPAWN,
	STEP_WAIT,
};

static const char *run_step_to_string(enum run_step s)
{
	switch (s) {
	case STEP_MOUNT_PRIVATE:
		return "make the mount namespace private";
	case STEP_MOUNT_PROC:
		return "mount a fresh /proc";
	case STEP_BIND_ROOT:
		return "bind \"/\" onto the container's root";
	case STEP_OPEN_OUTPUT:
		return "open the output files";
	case STEP_SPAWN:
		return "start the runtime";
	case STEP_WAIT:
		return "wait for the runtime";
	default:
		return "set up the check";
	}
}

/* What the namespace's init reports to the caller, over a pipe. */
struct run_report {
	int step;	   /* enum run_step that failed, or STEP_NONE */
	int error;	   /* its -errno */
	int status;	   /* wait status of `runtime run` */
	bool timed_out;	   /* `runtime run` was killed after the timeout */
	bool delete_clean; /* `runtime delete -f` exited 0 */
	int level_after;   /* the throwaway namespace's level afterwards */
};

/* One container's outcome, as the caller sees it. */
struct run_result {
	const char *annotation; /* "2", "3", or NULL for the control */
	bool done;		/* this run took place */
	bool ran;		/* the container printed its report */
	int level;		/* what it saw, or -1 */
	char mfd_exec[32];	/* "ok" or an errno name */
	struct run_report rep;
	char *message; /* the last line the runtime printed on stderr */
};

static void run_result_done(struct run_result *r)
{
	free(r->message);
	r->message = NULL;
}

/* Waits for pid at most timeout_ms; then kills it.  0, or -ETIMEDOUT
 * (killed and reaped), or -errno of waitpid. */
static int wait_deadline(pid_t pid, int timeout_ms, int *ret_status)
{
	/* A 5 ms tick: simple, and negligible next to a container start. */
	const struct timespec tick = {.tv_nsec = 5 * 1000 * 1000};
	int status, waited = 0;

	for (;;) {
		pid_t p = waitpid(pid, &status, WNOHANG);

		if (p == pid) {
			*ret_status = status;
			return 0;
		}
		if (p < 0 && errno != EINTR)
			return negative_errno();
		if (waited >= timeout_ms) {
			(void)kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			return -ETIMEDOUT;
		}
		(void)nanosleep(&tick, NULL);
		waited += 5;
	}
}

/* In a forked child: stdin from /dev/null, stdout/stderr to the fds, the
 * caller's signal mask back, then exec argv with a clean environment. */
static pid_t spawn(char *const argv[], int out_fd, int err_fd, const sigset_t *mask)
{
	pid_t pid = fork();
	int null_fd;

	if (pid != 0)
		return pid;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)sigprocmask(SIG_SETMASK, mask, NULL);
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
	    dup2(err_fd, STDERR_FILENO) < 0)
		_exit(126);
	execve(argv[0], argv, (char *const *)runtime_env);
	dprintf(STDERR_FILENO, "memfd-noexec check: Failed to execute %s: %s\n", argv[0],
		strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* Detaches the cgroup2 mount of a hybrid hierarchy (private namespace
 * only): crun refuses hybrid hosts.  Best effort. */
static void hide_hybrid_cgroup2(void)
{
	struct statfs top, unified;

	if (statfs("/sys/fs/cgroup", &top) < 0 || top.f_type != (typeof(top.f_type))TMPFS_MAGIC)
		return;
	if (statfs("/sys/fs/cgroup/unified", &unified) < 0 ||
	    unified.f_type != (typeof(unified.f_type))CGROUP2_SUPER_MAGIC)
		return;
	(void)umount2("/sys/fs/cgroup/unified", MNT_DETACH);
}

/* The mounts of the private namespace.  0, or -errno and the step. */
static int namespace_mounts(const struct check_ctx *c, enum run_step *ret_step)
{
	*ret_step = STEP_MOUNT_PRIVATE;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return negative_errno();
	*ret_step = STEP_MOUNT_PROC;
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return negative_errno();
	hide_hybrid_cgroup2();
	*ret_step = STEP_BIND_ROOT;
	if (mount("/", c->rootfs, NULL, MS_BIND | MS_REC, NULL) < 0)
		return negative_errno();
	*ret_step = STEP_NONE;
	return 0;
}

/* Runs the container and deletes it; fills *rep. */
static void namespace_run(const struct check_ctx *c, const sigset_t *mask, struct run_report *rep)
{
	_cleanup_close_ int out_fd = -EBADF, err_fd = -EBADF, null_fd = -EBADF;
	char *run_argv[] = {(char *)c->runtime, (char *)"--root", c->state,	 (char *)"run",
			    (char *)"--bundle", c->bundle,	  (char *)c->id, NULL};
	char *delete_argv[] = {(char *)c->runtime, (char *)"--root", c->state, (char *)"delete",
			       (char *)"-f",	   (char *)c->id,    NULL};
	int status, r;
	pid_t pid;

	out_fd = open(c->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err_fd = open(c->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd < 0 || err_fd < 0 || null_fd < 0) {
		rep->step = STEP_OPEN_OUTPUT;
		rep->error = negative_errno();
		return;
	}

	pid = spawn(run_argv, out_fd, err_fd, mask);
	if (pid < 0) {
		rep->step = STEP_SPAWN;
		rep->error = negative_errno();
		return;
	}
	r = wait_deadline(pid, RUN_TIMEOUT_MS, &rep->status);
	if (r == -ETIMEDOUT)
		rep->timed_out = true;
	else if (r < 0) {
		rep->step = STEP_WAIT;
		rep->error = r;
	}

	/* Always, even after a failed run: the runtime may have left its
	 * state and cgroups behind. */
	pid = spawn(delete_argv, null_fd, null_fd, mask);
	if (pid > 0 && wait_deadline(pid, DELETE_TIMEOUT_MS, &status) == 0)
		rep->delete_clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	/* The runtime's own namespace: a runtime that wrote the sysctl
	 * there would write the host's when run on the host. */
	rep->level_after = mt_memfd_noexec_read();
}

/* PID 1 of the throwaway PID namespace: sets up the mounts, runs the
 * container, deletes it, and reports on report_fd. */
_noreturn_ static void namespace_init(const struct check_ctx *c, int report_fd,
				      const sigset_t *mask)
{
	struct run_report rep = {};
	enum run_step step;
	int r;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	r = namespace_mounts(c, &step);
	if (r < 0) {
		rep.step = step;
		rep.error = r;
	} else {
		namespace_run(c, mask, &rep);
	}
	(void)!write(report_fd, &rep, sizeof(rep));
	_exit(rep.step == STEP_NONE ? 0 : 1);
}

/* Reads a whole small file (at most MAX_CAPTURE bytes; more is cut). */
static char *read_capture(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = calloc(1, MAX_CAPTURE + 1);

	if (buf && fd >= 0)
		(void)read_up_to(fd, buf, MAX_CAPTURE);
	return buf;
}

/* The last non-empty line of text, printable ASCII only, at most
 * MAX_MESSAGE bytes; NULL if there is none. */
static char *last_line(const char *text)
{
	const char *end = text + strlen(text), *start;
	char *m;
	size_t n;

	while (end > text && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	start = end;
	while (start > text && start[-1] != '\n')
		start--;
	n = (size_t)(end - start);
	if (n == 0)
		return NULL;
	if (n > MAX_MESSAGE)
		n = MAX_MESSAGE;
	m = strndup(start, n);
	if (!m)
		return NULL;
	for (char *p = m; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return m;
}

/* Finds the container's report in its stdout. */
static void parse_inside(const char *text, struct run_result *res)
{
	static const char tag[] = INSIDE_TAG " level=", mid[] = " mfd_exec=";
	const char *p = strstr(text, tag);
	size_t n = 0;
	int level;

	if (!p || mt_parse_int(p + strlen(tag), 2, &level, &p) < 0 ||
	    strncmp(p, mid, strlen(mid)) != 0)
		return;
	p += strlen(mid);
	/* The errno name or "ok": letters and digits, as the inside prints. */
	while (n < sizeof(res->mfd_exec) - 1 && isalnum((unsigned char)p[n]))
		n++;
	if (n == 0)
		return;
	res->ran = true;
	res->level = level;
	memcpy(res->mfd_exec, p, n);
	res->mfd_exec[n] = '\0';
}

/*
 * Forks the throwaway namespace's parent: it unshares PID and mount
 * namespaces and forks their init, which runs the container and writes
 * its report to wr.  Returns the parent's pid, or -errno.
 */
static pid_t spawn_namespace(struct check_ctx *c, int rd, int wr, const sigset_t *mask,
			     struct mt_error **err)
{
	pid_t pid, init;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return mt_error_set(err, negative_errno(), "Failed to fork: %m");
	if (pid > 0)
		return pid;
	(void)close(rd);
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0) {
		struct run_report rep = {.step = STEP_MOUNT_PRIVATE, .error = negative_errno()};

		(void)!write(wr, &rep, sizeof(rep));
		_exit(1);
	}
	init = fork();
	if (init == 0)
		namespace_init(c, wr, mask);
	if (init < 0)
		_exit(1);
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Waits for the run and takes in its report and the container's output. */
static int collect_run(struct check_ctx *c, int rd, pid_t pid, struct run_result *res,
		       struct mt_error **err)
{
	_cleanup_free_ char *out = NULL, *errout = NULL;
	int status, r;

	r = wait_deadline(pid, RUN_TIMEOUT_MS + DELETE_TIMEOUT_MS + 10000, &status);
	if (r == -ETIMEDOUT)
		return mt_error_set(err, r, "Failed to finish the run in time (killed)");
	if (r < 0)
		return mt_error_set(err, r, "Failed to wait for the run: %s", strerror(-r));
	if (read_up_to(rd, &res->rep, sizeof(res->rep)) != sizeof(res->rep))
		return mt_error_set(err, -EPROTO,
				    "Failed to get a report from the namespace's init");
	if (res->rep.step != STEP_NONE) {
		r = res->rep.error < 0 ? res->rep.error : -EIO;
		return mt_error_set(err, r, "Failed to %s: %s", run_step_to_string(res->rep.step),
				    strerror(-r));
	}
	res->done = true;
	out = read_capture(c->out);
	errout = read_capture(c->err);
	if (!out || !errout)
		return mt_error_set(err, -ENOMEM, "Failed to read the container's output");
	parse_inside(out, res);
	res->message = last_line(errout);
	return 0;
}

/*
 * Runs one container with the annotation (NULL: none) and fills *res.
 * Returns 0 when the run took place (whatever the runtime did), -errno
 * when the check itself could not run it (then *err says why).
 */
static int run_one(struct check_ctx *c, const char *annotation, const sigset_t *mask,
		   struct run_result *res, struct mt_error **err)
{
	_cleanup_close_ int rd = -EBADF, wr = -EBADF;
	char shown[200 * MT_ESCAPE_MAX_PER_CHAR + 1];
	int p[2], r;
	pid_t pid;

	*res = (struct run_result){.annotation = annotation, .level = -1};
	r = write_config(c, annotation);
	if (r == -EILSEQ)
		return mt_error_set(
			err, r,
			"Failed to write config.json: the path of this program, \"%s\", is not valid UTF-8, which JSON cannot carry; install memfd-noexec under a UTF-8 path",
			(mt_escape(shown, sizeof(shown), c->self, strlen(c->self), 200), shown));
	if (r < 0)
		return mt_error_set(err, r, "Failed to write config.json: %s", strerror(-r));
	if (pipe2(p, O_CLOEXEC) < 0)
		return mt_error_set(err, negative_errno(), "Failed to create a pipe: %m");
	rd = p[0];
	wr = p[1];
	pid = spawn_namespace(c, rd, wr, mask, err);
	if (pid < 0)
		return pid;
	wr = safe_close(wr);
	return collect_run(c, rd, pid, res, err);
}

/* ---- verdict ------------------------------------------------------------ */

enum verdict {
	VERDICT_HONOURS,
	VERDICT_IGNORES,
	VERDICT_REFUSES,
	VERDICT_CANNOT_TELL,
};

static const char *verdict_to_string(enum verdict v)
{
	switch (v) {
	case VERDICT_HONOURS:
		return "honours";
	case VERDICT_IGNORES:
		return "ignores";
	case VERDICT_REFUSES:
		return "refuses";
	default:
		return "cannot-tell";
	}
}

struct check_outcome {
	enum verdict verdict;
	char *reason;
	struct run_result runs[3]; /* "2", "3", control */
};

static void outcome_done(struct check_outcome *o)
{
	free(o->reason);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		run_result_done(&o->runs[i]);
}

_printf_(3, 4) static int set_verdict(struct check_outcome *o, enum verdict v, const char *fmt, ...)
{
	va_list ap;
	int r;

	o->verdict = v;
	free(o->reason);
	va_start(ap, fmt);
	r = vasprintf(&o->reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		o->reason = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* "exit status 1" / "killed by signal 9" / "timed out" */
static void describe_exit(const struct run_result *r, char *buf, size_t n)
{
	if (r->rep.timed_out)
		snprintf(buf, n, "timed out after %d s", RUN_TIMEOUT_MS / 1000);
	else if (WIFEXITED(r->rep.status))
		snprintf(buf, n, "exit status %d", WEXITSTATUS(r->rep.status));
	else if (WIFSIGNALED(r->rep.status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(r->rep.status));
	else
		snprintf(buf, n, "wait status 0x%x", (unsigned)r->rep.status);
}

static const char *msg_or(const struct run_result *r)
{
	return r->message ? r->message : "(it printed nothing on stderr)";
}

static int changed_own_level(const struct check_ctx *c, struct check_outcome *o,
			     const struct run_result *r)
{
	return set_verdict(
		o, VERDICT_CANNOT_TELL,
		"DANGER: with the annotation \"%s\" the runtime changed vm.memfd_noexec of the PID namespace it runs in (from %d to %d): started on the host, it would change the host's level.  (The check ran it in a throwaway namespace: nothing here changed.)",
		r->annotation ? r->annotation : "", c->level_here, r->rep.level_after);
}

/* After "2" ran at level 2: does "3" fail, as a bad value must? */
static int decide_three(struct check_ctx *c, const sigset_t *mask, struct check_outcome *o,
			struct mt_error **err)
{
	struct run_result *three = &o->runs[1];
	int r;

	r = run_one(c, "3", mask, three, err);
	if (r < 0)
		return r;
	if (three->rep.level_after != c->level_here)
		return changed_own_level(c, o, three);
	if (three->ran)
		return set_verdict(
			o, VERDICT_IGNORES,
			"it accepts the invalid value \"3\" and runs the container (at level %d): a mistyped annotation runs without the protection it asked for instead of failing",
			three->level);
	if (three->rep.timed_out)
		return set_verdict(
			o, VERDICT_CANNOT_TELL,
			"the container annotated \"3\" timed out instead of being refused");
	return set_verdict(
		o, VERDICT_HONOURS,
		"a container annotated \"2\" saw vm.memfd_noexec=2 (here: %d), and \"3\" was refused",
		c->level_here);
}

/* "2" failed: because of the annotation, or does nothing run here? */
static int decide_failed(struct check_ctx *c, const sigset_t *mask, struct check_outcome *o,
			 struct mt_error **err)
{
	struct run_result *two = &o->runs[0], *ctl = &o->runs[2];
	char how[64];
	int r;

	r = run_one(c, NULL, mask, ctl, err);
	if (r < 0)
		return r;
	describe_exit(two, how, sizeof(how));
	if (ctl->ran)
		return set_verdict(
			o, VERDICT_REFUSES,
			"a container annotated \"2\" failed (%s: %s), while one without the annotation ran",
			how, msg_or(two));
	return set_verdict(
		o, VERDICT_CANNOT_TELL,
		"the runtime cannot run the check's container here even without the annotation (%s: %s)",
		how, msg_or(two));
}

/*
 * Runs the containers and decides.  Returns 0 with a verdict in *o, or
 * -errno when the check itself failed (message printed).
 */
static int decide(struct check_ctx *c, const sigset_t *mask, struct check_outcome *o)
{
	_cleanup_error_ struct mt_error *err = NULL;
	struct run_result *two = &o->runs[0];
	int r;

	r = run_one(c, "2", mask, two, &err);
	if (r >= 0 && two->rep.level_after != c->level_here)
		return changed_own_level(c, o, two);
	if (r >= 0 && two->ran && two->level == 2)
		r = decide_three(c, mask, o, &err);
	else if (r >= 0 && two->ran)
		r = set_verdict(
			o, VERDICT_IGNORES,
			"a container annotated \"2\" ran at vm.memfd_noexec=%d (MFD_EXEC: %s): it runs UNPROTECTED, without any error.  Use the memfd-noexec OCI hook with this runtime, or a runtime that honours the annotation",
			two->level, two->mfd_exec);
	else if (r >= 0 && two->rep.timed_out)
		r = set_verdict(o, VERDICT_CANNOT_TELL, "the container annotated \"2\" timed out");
	else if (r >= 0)
		r = decide_failed(c, mask, o, &err);
	if (r < 0 && err)
		cli_error("%s", mt_error_message(err));
	return r;
}

/* ---- output ------------------------------------------------------------- */

/* s escaped by the one escaper (common/escape.h), for display; NULL if out
 * of memory. */
static char *escaped(const char *s)
{
	size_t len = strlen(s), size = len * MT_ESCAPE_MAX_PER_CHAR + 1;
	char *m = malloc(size);

	if (m)
		(void)mt_escape(m, size, s, len, SIZE_MAX);
	return m;
}

static void print_run_text(const struct run_result *r)
{
	char how[64];

	if (!r->done)
		return;
	if (r->annotation)
		printf("annotation \"%s\": ", r->annotation);
	else
		printf("no annotation: ");
	if (r->ran) {
		printf("ran at level %d (MFD_EXEC: %s)\n", r->level, r->mfd_exec);
		return;
	}
	describe_exit(r, how, sizeof(how));
	printf("failed (%s%s): %s\n", how,
	       strcmp(how, "exit status 0") == 0 ? ", but the container printed no report" : "",
	       msg_or(r));
}

static int print_text(const char *runtime, const struct check_ctx *c, const struct check_outcome *o)
{
	printf("runtime: %s\n", runtime);
	if (c->level_here >= 0)
		printf("level here: %d\n", c->level_here);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		print_run_text(&o->runs[i]);
	printf("verdict: %s\n", verdict_to_string(o->verdict));
	printf("reason: %s\n", o->reason);
	return fflush(stdout) == 0 ? 0 : negative_errno();
}

static void add_run_json(struct policy_json_writer *w, const struct run_result *r)
{
	char how[64];

	if (!r->done)
		return;
	(void)policy_json_writer_open_object(w, !r->annotation			  ? "control"
						: strcmp(r->annotation, "2") == 0 ? "annotation_2"
										  : "annotation_3");
	(void)policy_json_writer_add_bool(w, "ran", r->ran);
	if (r->ran) {
		(void)policy_json_writer_add_int(w, "level", r->level);
		(void)policy_json_writer_add_string(w, "mfd_exec", r->mfd_exec);
	} else {
		(void)policy_json_writer_add_null(w, "level");
		(void)policy_json_writer_add_null(w, "mfd_exec");
	}
	describe_exit(r, how, sizeof(how));
	(void)policy_json_writer_add_string(w, "runtime_exit", how);
	(void)policy_json_writer_add_string(w, "message", r->message);
	(void)policy_json_writer_add_bool(w, "deleted", r->rep.delete_clean);
	(void)policy_json_writer_close_object(w);
}

static int print_json(const char *runtime, const struct check_ctx *c, const struct check_outcome *o)
{
	_cleanup_(policy_json_writer_freep) struct policy_json_writer *w = NULL;
	int r;

	r = policy_json_writer_new(&w);
	if (r < 0)
		return r;
	(void)policy_json_writer_open_object(w, NULL);
	(void)policy_json_writer_add_string(w, "runtime", runtime);
	if (c->level_here >= 0)
		(void)policy_json_writer_add_int(w, "level_here", c->level_here);
	else
		(void)policy_json_writer_add_null(w, "level_here");
	(void)policy_json_writer_add_string(w, "verdict", verdict_to_string(o->verdict));
	(void)policy_json_writer_add_string(w, "reason", o->reason);
	for (size_t i = 0; i < ELEMENTSOF(o->runs); i++)
		add_run_json(w, &o->runs[i]);
	(void)policy_json_writer_close_object(w);
	return policy_json_writer_print(w, stdout);
}

/* ---- the command -------------------------------------------------------- */

/* Checks that path names an executable regular file; exits 2 if not. */
static int validate_runtime(const char *path)
{
	struct stat st;

	if (!strchr(path, '/')) {
		cli_error(
			"--runtime '%s' is a name, not a path: give the binary's path, e.g. --runtime \"$(command -v %s)\"",
			path, path);
		return -EINVAL;
	}
	if (stat(path, &st) < 0) {
		cli_error(
			"Failed to find the runtime '%s': %m; --runtime needs the path of an OCI runtime binary such as /usr/sbin/runc",
			path);
		return negative_errno();
	}
	if (!S_ISREG(st.st_mode)) {
		cli_error(
			"The runtime '%s' is not a regular file; --runtime needs the path of an OCI runtime binary such as /usr/sbin/runc",
			path);
		return -EINVAL;
	}
	if (access(path, X_OK) < 0) {
		cli_error("The runtime '%s' is not executable: %m", path);
		return negative_errno();
	}
	return 0;
}

/* The verdict without running anything, when the setup rules it out. */
static int precheck(struct check_ctx *c, struct check_outcome *o)
{
	_cleanup_error_ struct mt_error *reason = NULL;
	int r;

	c->level_here = mt_memfd_noexec_read();
	if (c->level_here == -ENOENT)
		return set_verdict(
			o, VERDICT_CANNOT_TELL,
			"this kernel has no vm.memfd_noexec (it needs Linux 6.3 or later, with CONFIG_PID_NS): no runtime can honour the annotation here");
	if (c->level_here < 0)
		return set_verdict(o, VERDICT_CANNOT_TELL,
				   "Failed to read vm.memfd_noexec here: %s",
				   strerror(-c->level_here));
	if (c->level_here >= 2)
		return set_verdict(
			o, VERDICT_CANNOT_TELL,
			"vm.memfd_noexec is already 2 in this PID namespace, and every container below it inherits 2: honouring and ignoring the annotation look the same.  Run the check from a PID namespace at 0 or 1 (e.g. the host's)");
	r = probe_can_set_level(&reason);
	if (r == -EPERM)
		return set_verdict(
			o, VERDICT_CANNOT_TELL,
			"the check needs global root, as a rootful runtime would run (%s)",
			mt_error_message(reason));
	if (r < 0)
		return set_verdict(o, VERDICT_CANNOT_TELL,
				   "Failed to tell whether this process is privileged: %s",
				   mt_error_message(reason));
	return 1;
}

static int check_runtime(const char *runtime, bool json)
{
	struct check_ctx c = {.runtime = runtime, .level_here = -1};
	struct check_outcome o = {};
	_cleanup_free_ char *shown = NULL;
	sigset_t block, old;
	int r, status = 1;

	shown = escaped(runtime);
	if (!shown) {
		cli_error("Failed to allocate memory");
		return 1;
	}

	r = precheck(&c, &o);
	if (r == 1) {
		/* Finish and clean up even on ^C: the signals wait until the
		 * private directory is gone.  Children restore the mask. */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGHUP);
		sigaddset(&block, SIGQUIT);
		(void)sigprocmask(SIG_BLOCK, &block, &old);

		c.self = realpath("/proc/self/exe", NULL);
		snprintf(c.id, sizeof(c.id), "memfd-noexec-check-%d", (int)getpid());
		if (!c.self) {
			cli_error("Failed to find this program's path (/proc/self/exe): %m");
			r = -errno;
		} else if ((r = make_private_dir(&c)) < 0) {
			cli_error("Failed to create a private directory in /run or /tmp: %s",
				  strerror(-r));
		} else {
			r = decide(&c, &old, &o);
		}
		check_ctx_done(&c);
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (r < 0) {
		outcome_done(&o);
		return 1;
	}

	/* JSON carries the path itself (the writer escapes it) when it can. */
	r = json ? print_json(mt_utf8_valid(runtime, strlen(runtime)) ? runtime : shown, &c, &o)
		 : print_text(shown, &c, &o);
	if (r < 0)
		cli_error("Failed to print the result: %s", strerror(-r));
	else if (o.verdict == VERDICT_HONOURS)
		status = 0;
	if (o.verdict == VERDICT_IGNORES)
		cli_error(
			"WARNING: %s IGNORES the memfd_noexec annotation: containers that ask for it run UNPROTECTED",
			shown);
	outcome_done(&o);
	return status;
}

int verb_check(int argc, char *argv[])
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"runtime", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"inside", no_argument, NULL, 'I'},
		{},
	};
	const char *runtime = NULL;
	bool json = false, inside = false;
	int c;

	while ((c = getopt_long(argc, argv, "+:hr:j", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage_check(stdout);
			return 0;
		case 'r':
			runtime = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'I':
			inside = true;
			break;
		case ':':
			cli_error("option '%s' needs a value: the path of an OCI runtime binary",
				  argv[optind - 1]);
			return EXIT_USAGE;
		default:
			cli_error("unknown option '%s': allowed are --runtime PATH, --json, --help",
				  optopt > 0 && optopt < 128 ? (char[]){'-', (char)optopt, 0}
							     : argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s': check takes --runtime PATH [--json]",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if (inside)
		return check_inside();
	if (!runtime || !*runtime) {
		cli_error("missing --runtime PATH (e.g. --runtime /usr/sbin/runc)");
		return EXIT_USAGE;
	}
	if (validate_runtime(runtime) < 0)
		return EXIT_USAGE;
	return check_runtime(runtime, json);
}
