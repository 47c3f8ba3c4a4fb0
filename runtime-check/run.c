/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime-check: running the test containers.  The private directory,
 * config.json, each container in a throwaway PID and mount namespace, and
 * the container's side of the report (runtime-check.h has the whole
 * design).
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

#include "errors.h"
#include "escape.h"
#include "fd-util.h"
#include "fork-report.h"
#include "json-writer.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "parse.h"
#include "internal.h"

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

/* ---- the container's side ----------------------------------------------- */

static const char *errno_name(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "EUNKNOWN";
}

int runtime_check_inside(FILE *f)
{
	_cleanup_close_ int fd = -EBADF;
	int level = mt_memfd_noexec_read();

	if (level < 0)
		return level; /* no report: the caller says why */
	fd = missing_memfd_create("memfd-noexec-check", MFD_CLOEXEC | MFD_EXEC);
	fprintf(f, INSIDE_TAG " level=%d mfd_exec=%s\n", level, fd >= 0 ? "ok" : errno_name(errno));
	return fflush(f) == 0 ? 0 : negative_errno();
}

/* ---- the private directory ---------------------------------------------- */

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

int runtime_check_ctx_done(struct check_ctx *c)
{
	int r = 0;

	if (c->dir)
		r = remove_tree(c->dir);
	c->self = mfree(c->self);
	if (r == 0)
		c->dir = mfree(c->dir);
	c->bundle = mfree(c->bundle);
	c->config = mfree(c->config);
	c->state = mfree(c->state);
	c->rootfs = mfree(c->rootfs);
	c->out = mfree(c->out);
	c->err = mfree(c->err);
	return r;
}

static int path_join(const char *dir, const char *name, char **ret)
{
	if (asprintf(ret, "%s/%s", dir, name) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

int runtime_check_make_dir(struct check_ctx *c)
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
	const char *const args[] = {c->self, RUNTIME_CHECK_INSIDE_ARGS, NULL};
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
	int r = policy_json_writer_new_object(&w);

	if (r < 0)
		return r;
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

void runtime_check_container_done(struct runtime_check_container *r)
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
 * caller's signal mask back, then exec argv with a clean environment.  A
 * bare fork(), not fork-report.h: the child execs and reports nothing; what
 * the runtime says goes to the capture files. */
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
static void namespace_run(const struct check_ctx *c, const sigset_t *mask,
			  struct runtime_check_report *rep)
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
/* What the namespace's parent hands on to its init. */
struct namespace_args {
	const struct check_ctx *c;
	const sigset_t *mask;
};

_noreturn_ static void namespace_init(int report_fd, const void *data)
{
	const struct namespace_args *a = data;
	const struct check_ctx *c = a->c;
	const sigset_t *mask = a->mask;
	struct runtime_check_report rep = {};
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
static void parse_inside(const char *text, struct runtime_check_container *res)
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
 * The throwaway namespace's parent (mt_fork_pipe()'s child): it unshares
 * PID and mount namespaces and hands the pipe on to their init, which runs
 * the container and writes its report to wr.
 */
_noreturn_ static void namespace_parent(int wr, const void *data)
{
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0) {
		struct runtime_check_report rep = {.step = STEP_MOUNT_PRIVATE,
						   .error = negative_errno()};

		(void)!write(wr, &rep, sizeof(rep));
		_exit(1);
	}
	(void)mt_fork_hand_on(namespace_init, data, wr);
	_exit(1);
}

/* Waits for the run and takes in its report and the container's output. */
static int collect_run(struct check_ctx *c, int rd, pid_t pid, struct runtime_check_container *res,
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
int runtime_check_run_one(struct check_ctx *c, const char *annotation, const sigset_t *mask,
			  struct runtime_check_container *res, struct mt_error **err)
{
	const struct namespace_args args = {c, mask};
	_cleanup_close_ int rd = -EBADF;
	char shown[200 * MT_ESCAPE_MAX_PER_CHAR + 1];
	pid_t pid;
	int r;

	*res = (struct runtime_check_container){.annotation = annotation, .level = -1};
	r = write_config(c, annotation);
	if (r == -EILSEQ)
		return mt_error_set(
			err, r,
			"Failed to write config.json: the path of this program, \"%s\", is not valid UTF-8, which JSON cannot carry; install memfd-noexec under a UTF-8 path",
			(mt_escape(shown, sizeof(shown), c->self, strlen(c->self), 200), shown));
	if (r < 0)
		return mt_error_set(err, r, "Failed to write config.json: %s", strerror(-r));
	/* Not mt_fork_report(): the run must end within its deadline
	 * (collect_run), whatever the runtime does with the pipe. */
	fflush(NULL);
	pid = mt_fork_pipe(namespace_parent, &args, &rd);
	if (pid < 0)
		return mt_error_set(err, pid, "Failed to fork the check's namespace: %s",
				    strerror(-pid));
	return collect_run(c, rd, pid, res, err);
}
