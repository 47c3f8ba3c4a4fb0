/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec audit: what would break at vm.memfd_noexec 1 or 2.
 *
 * What the levels do (Linux 6.6+, measured on 6.18; see the README's
 * "vm.memfd_noexec across kernels"):
 *   level 1: memfd_create() without an exec flag gives a 0666 memfd with
 *            F_SEAL_EXEC (as MFD_NOEXEC_SEAL); MFD_EXEC still gives 0777.
 *   level 2: the same, and MFD_EXEC fails with EACCES.
 * The level is read from the PID namespace of the task that calls
 * memfd_create(); it changes nothing for memfds that exist already.
 *
 * So a program breaks at a level if it makes a memfd there that it then
 * cannot use as it means to:
 *  - it asks for MFD_EXEC: refused at 2 (its fallback, if any, may save
 *    it: the patched runc then clones into an unlinked file);
 *  - it asks for nothing and then execve()s the memfd: at 1 and 2 the
 *    memfd is 0666 and sealed, so execve() fails with EACCES (runc 1.1.5
 *    rootless: "could not ensure we are a cloned binary");
 *  - it asks for nothing and maps the memfd PROT_EXEC (a JIT's double
 *    mapping, a dlopen() of /proc/self/fd/N): NOT broken.  mmap() of a
 *    memfd looks neither at its x bits nor at F_SEAL_EXEC, at any level
 *    (measured: tests/helpers/audit-flagless map runs generated code at
 *    1 and 2).  vm.memfd_noexec only governs execve().
 *
 * What /proc can show of a running process: whether it runs from a memfd
 * (/proc/PID/exe is "/memfd:NAME (deleted)"), which memfds it maps
 * executable (/proc/PID/maps), and each memfd's mode and seals, through an
 * fd of it (/proc/PID/exe opens the file; /proc/PID/fd/N; or, with
 * CAP_SYS_ADMIN in the initial user namespace, /proc/PID/map_files).  The
 * kernel keeps no record of the flags a memfd was created with, so:
 *  - x bits with F_SEAL_EXEC: the seal was added after creation while the
 *    file was executable (F_SEAL_EXEC forbids changing x bits, and
 *    MFD_NOEXEC_SEAL takes them away), i.e. the memfd was made executable
 *    on purpose by a program that knows the 6.3 API: we take that as
 *    MFD_EXEC ("breaks at 2 only").  A program could in principle make it
 *    without a flag at level 0 and seal it; we do not claim otherwise.
 *  - x bits without F_SEAL_EXEC: made without a flag at level 0, or with
 *    MFD_EXEC.  Both give 0777 and the same seals.  For a process that runs
 *    from it that means "breaks at 1 and 2" or "at 2 only"; for one that
 *    only maps it, "fine" or "breaks at 2 only".  We show the worse and
 *    say "worst case".
 *  - F_SEAL_EXEC without x bits: made with MFD_NOEXEC_SEAL, or without a
 *    flag at level 1 or 2: it cannot be executed, only mapped, and mapping
 *    works at every level: "fine at 2".
 *  - mode and seals unreadable (a user auditing a process that is not
 *    dumpable, a mapping whose fd is closed without CAP_SYS_ADMIN): worst
 *    case, and the report says what could not be read.
 * Whatever level 2 breaks, level 1 breaks only a subset of; so "breaks
 * at 1 and 2", "breaks at 2 only" and "fine at 2" cover every case.
 *
 * Where a memfd is made matters too: runc makes runc init's clone in its
 * own PID namespace, before the container's exists, so the container's
 * level (the memfd_noexec annotation) never reaches it; the host's
 * sysctl does.  The report notes a process whose namespace is already at
 * the level its verdict says would break it.
 *
 * The level of a PID namespace is read as the kernel reads it: by a task
 * whose active PID namespace it is.  For the auditor's own namespace that
 * is a plain read; for another, a child setns()es into it (which only
 * moves its future children) and forks the reader, which checks where it
 * is and reads /proc/sys/vm/memfd_noexec (O_RDONLY; nothing is ever
 * written).  setns() needs CAP_SYS_ADMIN over the namespace's owner: as a
 * user, other namespaces' levels are "unknown".
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "fd-util.h"
#include "json_writer.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing_syscall.h"
#include "nsexec.h"

#define PF_KTHREAD_FLAG 0x00200000U /* include/linux/sched.h */
#define MAX_PROC_FILE (64U << 20)   /* a huge process's maps */
#define MAX_SMALL_FILE (1U << 20)   /* stat, status, cgroup */
#define EXIT_USAGE 2

static const char prog[] = "memfd-noexec audit";

enum verdict {
	VERDICT_FINE,	    /* fine at 1 and 2 */
	VERDICT_BREAKS_2,   /* breaks at 2 only */
	VERDICT_BREAKS_1_2, /* breaks at 1 and 2 */
};

enum basis {
	BASIS_NONE,	  /* no executable memfd at all */
	BASIS_SEALS,	  /* decided by the x bits and F_SEAL_EXEC */
	BASIS_WORST_CASE, /* two origins look alike; the worse is shown */
	BASIS_UNREADABLE, /* mode and seals unreadable; worst case shown */
};

/* One memfd, as far as it could be read. */
struct memfd {
	dev_t dev;
	ino_t ino;
	int err; /* 0: mode and seals below are real; else the errno */
	mode_t mode;
	int seals;
	bool hugetlb;
	char via[80]; /* the /proc path it was read through */
};

/* An executable mapping of a memfd. */
struct xmap {
	unsigned long start, end;
	char perms[5];
	char *path;
	bool of_exe; /* part of the executable's own image */
	struct memfd m;
};

struct judgement {
	enum verdict verdict;
	enum basis basis;
	const char *tag; /* short form, for the summary; NULL when fine */
	char *reason;
};

struct proc {
	pid_t pid;
	pid_t ns_pid;	   /* innermost NSpid, 0 if unknown */
	unsigned ns_depth; /* entries in NSpid */
	long uid;	   /* real uid from status, -1 if unknown */
	char *comm;
	char *cgroup;
	char *ctr_id;
	const char *runtime;
	char *exe;
	bool exe_memfd;
	struct memfd exe_m;
	struct xmap *maps;
	size_t n_maps;
	dev_t ns_dev;
	ino_t ns_ino;
	int err;	      /* unreadable: the errno */
	const char *err_what; /* and what could not be read */
	size_t ns_index;
	struct judgement j;
};

struct pidns {
	dev_t dev;
	ino_t ino;
	int fd;	   /* for setns(), or -errno of its open() */
	int level; /* >= 0, or -errno */
	bool initial, own;
	const struct proc *label_from; /* whose container id names it */
	enum verdict verdict;
	const struct proc *worst; /* the process that sets the verdict */
	size_t n_procs, n_listed;
};

enum scope { SCOPE_ALL, SCOPE_PID, SCOPE_CONTAINER };

struct audit {
	enum scope scope;
	pid_t target;
	dev_t target_dev; /* SCOPE_CONTAINER: the namespace */
	ino_t target_ino;
	unsigned target_depth;
	bool have_self;
	dev_t self_dev;
	ino_t self_ino;
	struct proc *procs;
	size_t n_procs;
	struct proc *unreadable;
	size_t n_unreadable;
	struct pidns *ns;
	size_t n_ns;
	unsigned kthreads, zombies, gone;
};

/* ---- small helpers ------------------------------------------------------ */

_printf_(1, 2) static void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}

/* Grows *array (of elem-sized items, *n used) by one zeroed slot. */
static void *grow(void *array_p, size_t *n, size_t elem)
{
	void **array = array_p;
	char *p;

	if (*n >= SIZE_MAX / elem - 1)
		return NULL;
	p = realloc(*array, (*n + 1) * elem);
	if (!p)
		return NULL;
	*array = p;
	memset(p + *n * elem, 0, elem);
	return p + (*n)++ * elem;
}

/*
 * A copy of src[0..n) that is safe to print and valid UTF-8: printable
 * ASCII stays, every other byte (and the backslash) becomes \xNN.  Names
 * in /proc (comm, memfd names, cgroups) are chosen by whoever runs there.
 */
static char *sanitize(const char *src, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *out = malloc(n * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			*o++ = (char)c;
			continue;
		}
		*o++ = '\\';
		*o++ = 'x';
		*o++ = hex[c >> 4];
		*o++ = hex[c & 0xf];
	}
	*o = '\0';
	return out;
}

/* Reads dirfd/name whole (NUL-terminated).  0 or -errno. */
static int read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return negative_errno();
	return read_full_fd(fd, max, ret, ret_len);
}

/* readlinkat() into a sanitized malloc'd string.  0 or -errno. */
static int readlink_at(int dirfd, const char *name, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf));

	if (n < 0)
		return negative_errno();
	*ret = sanitize(buf, (size_t)n);
	return *ret ? 0 : -ENOMEM;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_memfd_path(const char *path)
{
	return has_prefix(path, "/memfd:");
}

/* Strict decimal PID, 1..INT_MAX. */
static int parse_pid(const char *s, pid_t *ret)
{
	long long v = 0;

	if (!s || !*s || strlen(s) > 10)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (*p - '0');
	}
	if (v < 1 || v > INT_MAX)
		return -EINVAL;
	*ret = (pid_t)v;
	return 0;
}

/* ---- the level of a PID namespace --------------------------------------- */

/* ---- reading a memfd's mode and seals ------------------------------------ */

/*
 * Mode and seals of the file open at fd, into m.  With check_id, the file
 * must be m's (dev, ino), else -ESTALE (the fd or mapping changed under
 * us).  -EINVAL from F_GET_SEALS: not a memfd, only named like one.
 */
static int inspect_fd(int fd, struct memfd *m, bool check_id)
{
	struct statfs sfs;
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (check_id && (st.st_dev != m->dev || st.st_ino != m->ino))
		return -ESTALE;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return negative_errno();
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->mode = st.st_mode & 07777;
	m->seals = seals;
	m->hugetlb = fstatfs(fd, &sfs) == 0 &&
		     (unsigned long)sfs.f_type == (unsigned long)HUGETLBFS_MAGIC;
	m->err = 0;
	return 0;
}

/* Opens dirfd/name read-only (never blocking, never a controlling tty)
 * and inspects it; records where from.  0 or -errno. */
static int inspect_at(int dirfd, const char *name, pid_t pid, struct memfd *m, bool check_id)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	r = inspect_fd(fd, m, check_id);
	if (r < 0)
		return r;
	snprintf(m->via, sizeof(m->via), "/proc/%d/%s", (int)pid, name);
	return 0;
}

/* Finds an fd of the process that is memfd m (by dev, ino) and inspects
 * it.  0, -ENOENT if none is open, or the last -errno. */
static int inspect_from_fds(int dirfd, pid_t pid, struct memfd *m)
{
	_cleanup_(closedirp) DIR *d = NULL;
	char name[32], link[PATH_MAX];
	struct dirent *de;
	int fdfd, r = -ENOENT;

	fdfd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0)
		return negative_errno();
	d = fdopendir(fdfd);
	if (!d) {
		r = negative_errno();
		(void)close(fdfd);
		return r;
	}
	while ((de = readdir(d))) {
		struct stat st;
		ssize_t n;

		if (de->d_name[0] == '.' || strlen(de->d_name) > 20)
			continue;
		n = readlinkat(fdfd, de->d_name, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (!is_memfd_path(link) || fstatat(fdfd, de->d_name, &st, 0) < 0 ||
		    st.st_dev != m->dev || st.st_ino != m->ino)
			continue;
		if (snprintf(name, sizeof(name), "fd/%s", de->d_name) >= (int)sizeof(name))
			continue; /* cannot happen: d_name is at most 20 bytes here */
		r = inspect_at(dirfd, name, pid, m, true);
		if (r == 0)
			return 0;
	}
	return r;
}

/* An executable mapping's memfd: an fd of it, else map_files (needs
 * CAP_SYS_ADMIN in the initial user namespace). */
static void inspect_mapping(int dirfd, pid_t pid, struct xmap *x)
{
	char name[64];
	int r;

	r = inspect_from_fds(dirfd, pid, &x->m);
	if (r == 0)
		return;
	snprintf(name, sizeof(name), "map_files/%lx-%lx", x->start, x->end);
	r = inspect_at(dirfd, name, pid, &x->m, true);
	x->m.err = r < 0 ? -r : 0;
}

/* The executable's memfd: /proc/PID/exe opens the file itself (with the
 * same ptrace-read check as fd/); else as a mapping of it. */
static void inspect_exe(int dirfd, struct proc *p)
{
	int r;

	r = inspect_at(dirfd, "exe", p->pid, &p->exe_m, false);
	if (r == 0)
		return;
	p->exe_m.err = -r;
	for (size_t i = 0; i < p->n_maps; i++) {
		struct xmap *x = &p->maps[i];

		if (strcmp(x->path, p->exe) != 0)
			continue;
		p->exe_m.dev = x->m.dev;
		p->exe_m.ino = x->m.ino;
		inspect_mapping(dirfd, p->pid, x);
		if (x->m.err == 0) {
			p->exe_m = x->m;
			return;
		}
	}
}

/* ---- /proc/PID/maps --------------------------------------------------------
 */

/* Adds line's mapping to p if it is an executable mapping of a memfd. */
static int add_mapping(struct proc *p, char *line)
{
	unsigned long start, end, off, inode;
	unsigned int maj, min;
	char perms[5];
	struct xmap *x;
	int n = 0;

	if (sscanf(line, "%lx-%lx %4s %lx %x:%x %lu %n", &start, &end, perms, &off, &maj, &min,
		   &inode, &n) < 7 ||
	    n == 0)
		return 0;
	if (perms[2] != 'x' || !is_memfd_path(line + n))
		return 0;
	x = grow(&p->maps, &p->n_maps, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->start = start;
	x->end = end;
	memcpy(x->perms, perms, sizeof(perms));
	x->m.dev = makedev(maj, min);
	x->m.ino = (ino_t)inode;
	x->m.err = ENODATA;
	x->path = sanitize(line + n, strlen(line + n));
	return x->path ? 0 : -ENOMEM;
}

static int read_maps(int dirfd, struct proc *p)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	size_t len;
	int r;

	r = read_at(dirfd, "maps", MAX_PROC_FILE, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		r = add_mapping(p, line);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Each executable memfd mapping's mode and seals: the executable's own
 * (same file), one read earlier for the same file, or read now. */
static void inspect_mappings(int dirfd, struct proc *p)
{
	for (size_t i = 0; i < p->n_maps; i++) {
		struct xmap *x = &p->maps[i];
		bool done = false;

		if (p->exe_memfd &&
		    ((p->exe_m.err == 0 && x->m.dev == p->exe_m.dev && x->m.ino == p->exe_m.ino) ||
		     strcmp(x->path, p->exe) == 0)) {
			x->of_exe = true;
			x->m = p->exe_m;
			continue;
		}
		for (size_t k = 0; k < i && !done; k++) {
			if (p->maps[k].m.dev != x->m.dev || p->maps[k].m.ino != x->m.ino)
				continue;
			x->m = p->maps[k].m;
			done = true;
		}
		if (!done)
			inspect_mapping(dirfd, p->pid, x);
	}
}

/* ---- container ids from cgroup paths ------------------------------------- */

/* A runtime's container id: runc allows [A-Za-z0-9_+.-], 1 to 1024
 * characters; podman and docker use 64 hex digits. */
static bool id_ok(const char *s, size_t n)
{
	if (n == 0 || n > 1024 || (n <= 2 && strncmp(s, "..", n) == 0))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_+.-", s[i]))
			return false;
	return true;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* "<prefix><id>.scope", the systemd cgroup drivers' units. */
static const char *scope_runtime(const char *c, size_t n, size_t *ret_off)
{
	static const struct {
		const char *prefix, *runtime;
	} units[] = {
		{"libpod-conmon-", "podman (conmon)"},
		{"libpod-", "podman"},
		{"docker-", "docker"},
		{"runc-", "runc"},
		{"crio-conmon-", "cri-o (conmon)"},
		{"crio-", "cri-o"},
		{"cri-containerd-", "containerd"},
	};

	if (!has_suffix(c, n, ".scope"))
		return NULL;
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		size_t k = strlen(units[i].prefix);

		if (n > k + 6 && memcmp(c, units[i].prefix, k) == 0 && id_ok(c + k, n - k - 6)) {
			*ret_off = k;
			return units[i].runtime;
		}
	}
	return NULL;
}

/* The cgroupfs drivers: <parent>/<id>. */
static const char *parent_runtime(const char *parent, size_t pn, const char *c, size_t n,
				  size_t *ret_off)
{
	*ret_off = 0;
	if (pn == 13 && memcmp(parent, "libpod_parent", pn) == 0 && n > 7 &&
	    memcmp(c, "libpod-", 7) == 0 && id_ok(c + 7, n - 7)) {
		*ret_off = 7;
		return "podman";
	}
	if (!id_ok(c, n))
		return NULL;
	if ((pn == 6 && memcmp(parent, "docker", 6) == 0) ||
	    (pn == 4 && memcmp(parent, "moby", 4) == 0))
		return "docker";
	if ((pn == 7 && memcmp(parent, "default", 7) == 0) ||
	    (pn == 6 && memcmp(parent, "k8s.io", 6) == 0))
		return "containerd";
	if (pn > 3 && memcmp(parent, "pod", 3) == 0)
		return "kubernetes";
	return NULL;
}

/* A lone top-level component that is no systemd unit: runc's cgroupfs
 * default, "/<id>". */
static bool toplevel_id(const char *c, size_t n)
{
	static const char *const units[] = {".slice", ".scope", ".service", ".mount", ".socket"};

	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (has_suffix(c, n, units[i]))
			return false;
	return id_ok(c, n);
}

/* Finds a container id in one cgroup path, from the innermost component
 * outwards (podman nests "container" below its scope). */
static int id_from_path(struct proc *p, const char *path)
{
	const char *comp[64], *c;
	size_t len[64], k = 0, off;
	const char *rt;

	for (c = path; *c && k < ELEMENTSOF(comp);) {
		size_t n = strcspn(c, "/");

		if (n > 0) {
			comp[k] = c;
			len[k++] = n;
		}
		c += n + (c[n] == '/');
	}
	for (size_t i = k; i-- > 0;) {
		size_t strip = 6; /* ".scope" */

		rt = scope_runtime(comp[i], len[i], &off);
		if (!rt) {
			strip = 0;
			off = 0;
			if (i > 0)
				rt = parent_runtime(comp[i - 1], len[i - 1], comp[i], len[i], &off);
		}
		if (!rt && k == 1 && toplevel_id(comp[0], len[0]))
			rt = "runc (cgroupfs)";
		if (!rt)
			continue;
		p->ctr_id = sanitize(comp[i] + off, len[i] - off - strip);
		p->runtime = rt;
		return p->ctr_id ? 1 : -ENOMEM;
	}
	return 0;
}

static int choose_cgroup(struct proc *p, const char *const *cand, size_t n)
{
	const char *show = NULL;
	int r;

	for (size_t i = 0; i < n; i++) {
		r = id_from_path(p, cand[i]);
		if (r < 0)
			return r;
		if (r > 0) {
			show = cand[i];
			break;
		}
		if (!show && strcmp(cand[i], "/") != 0)
			show = cand[i];
	}
	if (!show && n > 0)
		show = cand[0];
	if (show) {
		p->cgroup = sanitize(show, strlen(show));
		if (!p->cgroup)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The cgroup to show and the container id in it.  Candidates in order:
 * the unified hierarchy ("0::"), name=systemd, then every v1 controller;
 * the first that names a container wins, else the first that is not "/".
 */
static int read_cgroup(int dirfd, struct proc *p)
{
	_cleanup_free_ char *buf = NULL;
	const char *paths[64], *cand[64];
	int kind[64]; /* 0 unified, 1 name=systemd, 2 another v1 hierarchy */
	size_t len, n = 0, k = 0;
	char *line, *save = NULL;
	int r;

	r = read_at(dirfd, "cgroup", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line && n < 64;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c2 = '\0';
		kind[n] = c2 == line + 2 && line[0] == '0'	? 0
			  : strcmp(c1 + 1, "name=systemd") == 0 ? 1
								: 2;
		paths[n++] = c2 + 1;
	}
	for (int want = 0; want < 3; want++)
		for (size_t i = 0; i < n; i++)
			if (kind[i] == want)
				cand[k++] = paths[i];
	return choose_cgroup(p, cand, k);
}

/* ---- one process ------------------------------------------------------------
 */

static void proc_done(struct proc *p)
{
	for (size_t i = 0; i < p->n_maps; i++)
		free(p->maps[i].path);
	free(p->maps);
	free(p->comm);
	free(p->cgroup);
	free(p->ctr_id);
	free(p->exe);
	free(p->j.reason);
	*p = (struct proc){};
}

/* State and flags from /proc/PID/stat (world-readable).  0 or -errno. */
static int read_stat(int dirfd, char *ret_state, unsigned *ret_flags)
{
	_cleanup_free_ char *buf = NULL;
	const char *p;
	size_t len;
	int r;

	r = read_at(dirfd, "stat", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	p = strrchr(buf, ')'); /* comm may hold ')' itself */
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", ret_state, ret_flags) != 2)
		return -EBADMSG;
	return 0;
}

/* NSpid (the PID in each namespace from procfs's down) and the real
 * uid, from /proc/PID/status (world-readable). */
static int read_status(int dirfd, struct proc *p)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	size_t len;
	int r;

	r = read_at(dirfd, "status", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (has_prefix(line, "Uid:")) {
			p->uid = strtol(line + 4, NULL, 10);
		} else if (has_prefix(line, "NSpid:")) {
			char *s = line + 6, *end;
			long v;

			while ((v = strtol(s, &end, 10)), end != s) {
				p->ns_pid = (pid_t)v;
				p->ns_depth++;
				s = end;
			}
		}
	}
	return 0;
}

/* What anyone may read: comm, status, cgroup.  0 or -errno. */
static int read_public(int dirfd, struct proc *p)
{
	_cleanup_free_ char *comm = NULL;
	size_t len;
	int r;

	r = read_at(dirfd, "comm", MAX_SMALL_FILE, &comm, &len);
	if (r < 0)
		return r;
	while (len > 0 && comm[len - 1] == '\n')
		len--;
	p->comm = sanitize(comm, len);
	if (!p->comm)
		return -ENOMEM;
	r = read_status(dirfd, p);
	if (r < 0)
		return r;
	return read_cgroup(dirfd, p);
}

/* What needs ptrace-read access (the owner, or CAP_SYS_PTRACE): the
 * executable, the PID namespace, the mappings; then the memfds' modes and
 * seals.  0 or -errno, with p->err_what naming the step. */
static int read_private(int dirfd, struct proc *p)
{
	struct stat st;
	int r;

	p->err_what = "exe";
	r = readlink_at(dirfd, "exe", &p->exe);
	if (r < 0)
		return r;
	p->err_what = "ns/pid";
	if (fstatat(dirfd, "ns/pid", &st, 0) < 0)
		return negative_errno();
	p->ns_dev = st.st_dev;
	p->ns_ino = st.st_ino;
	p->err_what = "maps";
	r = read_maps(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = NULL;
	p->exe_memfd = is_memfd_path(p->exe);
	if (p->exe_memfd)
		inspect_exe(dirfd, p);
	inspect_mappings(dirfd, p);
	return 0;
}

/* The process's PID namespace entry, added (with an fd for setns) when
 * it is the first process seen there.  0 or -ENOMEM. */
static int attach_ns(struct audit *a, struct proc *p, int dirfd)
{
	struct pidns *ns;

	for (size_t i = 0; i < a->n_ns; i++)
		if (a->ns[i].dev == p->ns_dev && a->ns[i].ino == p->ns_ino) {
			p->ns_index = i;
			a->ns[i].n_procs++;
			return 0;
		}
	ns = grow(&a->ns, &a->n_ns, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	ns->dev = p->ns_dev;
	ns->ino = p->ns_ino;
	ns->initial = p->ns_ino == PROC_PID_INIT_INO;
	ns->own = a->have_self && a->self_dev == p->ns_dev && a->self_ino == p->ns_ino;
	ns->fd = openat(dirfd, "ns/pid", O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0)
		ns->fd = negative_errno();
	ns->level = -ENODATA;
	ns->n_procs = 1;
	p->ns_index = a->n_ns - 1;
	return 0;
}

static int keep(struct proc **array, size_t *n, struct proc *p)
{
	struct proc *slot = grow(array, n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	*slot = *p;
	*p = (struct proc){};
	return 0;
}

static bool gone_error(int r)
{
	return r == -ENOENT || r == -ESRCH;
}

/* In scope?  For a container, an unreadable process counts when its
 * NSpid depth matches (it may be there); others provably are not. */
static bool in_scope(const struct audit *a, const struct proc *p)
{
	if (a->scope != SCOPE_CONTAINER)
		return true;
	if (p->err)
		return p->ns_depth == a->target_depth;
	return p->ns_dev == a->target_dev && p->ns_ino == a->target_ino;
}

/* Reads /proc/PID/<what> into p; 1 if p is to be kept, 0 if the process
 * is not to be listed (a kernel thread, a zombie, gone), or -ENOMEM. */
static int read_proc(struct audit *a, int dirfd, struct proc *p)
{
	unsigned flags = 0;
	char state = '?';
	int r;

	r = read_stat(dirfd, &state, &flags);
	if (r == 0 && (flags & PF_KTHREAD_FLAG)) {
		a->kthreads++;
		return 0;
	}
	if (r == 0 && (state == 'Z' || state == 'X')) {
		a->zombies++;
		return 0;
	}
	if (r == 0)
		r = read_public(dirfd, p);
	if (r == 0)
		r = read_private(dirfd, p);
	if (r == -ENOMEM)
		return r;
	if (gone_error(r)) {
		a->gone++;
		return 0;
	}
	if (r < 0) {
		p->err = -r;
		if (!p->err_what)
			p->err_what = "stat";
	}
	return 1;
}

/* One process into a->procs or a->unreadable (or a count).  0 or
 * -ENOMEM; -ESRCH only for SCOPE_PID's target, which must exist. */
static int collect_proc(struct audit *a, pid_t pid)
{
	_cleanup_(proc_done) struct proc p = {.pid = pid, .uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	char path[32];
	int r;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		if (a->scope == SCOPE_PID)
			return -ESRCH;
		a->gone++;
		return 0;
	}
	r = read_proc(a, dirfd, &p);
	if (r <= 0 || !in_scope(a, &p))
		return r;
	if (p.err)
		return keep(&a->unreadable, &a->n_unreadable, &p);
	r = attach_ns(a, &p, dirfd);
	if (r < 0)
		return r;
	return keep(&a->procs, &a->n_procs, &p);
}

static int scan_all(struct audit *a)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t pid;
	int r;

	if (!d)
		return negative_errno();
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return errno ? -errno : 0;
		if (parse_pid(de->d_name, &pid) < 0)
			continue;
		r = collect_proc(a, pid);
		if (r < 0)
			return r;
	}
}

/* SCOPE_CONTAINER: the PID namespace of process a->target. */
static int resolve_container(struct audit *a)
{
	_cleanup_(proc_done) struct proc p = {.uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	struct stat st;
	char path[32];
	int r;

	snprintf(path, sizeof(path), "/proc/%d", (int)a->target);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return gone_error(negative_errno()) ? -ESRCH : negative_errno();
	if (fstatat(dirfd, "ns/pid", &st, 0) < 0)
		return negative_errno();
	r = read_status(dirfd, &p);
	if (r < 0)
		return r;
	if (st.st_ino == PROC_PID_INIT_INO)
		return -EEXIST;
	a->target_dev = st.st_dev;
	a->target_ino = st.st_ino;
	a->target_depth = p.ns_depth;
	return 0;
}

/* ---- verdicts
 * ----------------------------------------------------------------- */

static const char *verdict_str(enum verdict v)
{
	switch (v) {
	case VERDICT_FINE:
		return "fine at 2";
	case VERDICT_BREAKS_2:
		return "breaks at 2 only";
	default:
		return "breaks at 1 and 2";
	}
}

static const char *basis_str(enum basis b)
{
	static const char *const names[] = {"no executable memfd", "seals", "worst case",
					    "unreadable"};

	return names[b];
}

static bool worst_case(enum basis b)
{
	return b == BASIS_WORST_CASE || b == BASIS_UNREADABLE;
}

/* "seal,shrink,..." for seals, into buf. */
static const char *seal_names(int seals, char *buf, size_t size)
{
	static const char *const names[] = {"seal",  "shrink",	     "grow",
					    "write", "future_write", "exec"};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (seals & (1 << i) && off < size)
			off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? "," : "",
						names[i]);
	if (seals & ~0x3f && off < size)
		snprintf(buf + off, size - off, "%s0x%x", off ? "," : "",
			 (unsigned)(seals & ~0x3f));
	return buf;
}

_printf_(4, 5) static int judge_set(struct judgement *j, enum verdict v, enum basis b,
				    const char *fmt, ...)
{
	va_list ap;
	int r;

	free(j->reason);
	j->reason = NULL;
	j->verdict = v;
	j->basis = b;
	va_start(ap, fmt);
	r = vasprintf(&j->reason, fmt, ap);
	va_end(ap);
	if (r < 0) {
		j->reason = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The process runs from memfd m (execve() worked, so it was executable
 * when executed). */
static int judge_exe(const struct memfd *m, struct judgement *j)
{
	if (m->err) {
		j->tag = "runs from a memfd (seals unreadable)";
		return judge_set(
			j, VERDICT_BREAKS_1_2, BASIS_UNREADABLE,
			"runs from a memfd whose mode and seals could not be read (%s): it was made executable, either with MFD_EXEC (refused at 2) or without a flag at level 0 (not executable at 1 and 2); worst case shown",
			strerror(m->err));
	}
	if (m->seals & F_SEAL_EXEC) {
		j->tag = "runs from an MFD_EXEC memfd";
		return judge_set(
			j, VERDICT_BREAKS_2, BASIS_SEALS,
			"runs from a memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made executable on purpose, i.e. with MFD_EXEC, which level 2 refuses (EACCES) unless the program falls back to a file; level 1 allows it",
			(unsigned)m->mode, (unsigned)m->seals);
	}
	j->tag = "runs from a memfd without F_SEAL_EXEC";
	return judge_set(
		j, VERDICT_BREAKS_1_2, BASIS_WORST_CASE,
		"runs from an executable memfd without F_SEAL_EXEC (mode %04o, seals 0x%x): made without an exec flag at level 0, it would come out 0666 and sealed at 1 and 2, and execve() fails (EACCES); made with MFD_EXEC, only level 2 refuses it; the kernel keeps no record of which, so the worst case is shown",
		(unsigned)m->mode, (unsigned)m->seals);
}

/* The process maps memfd m executable, and does not run from it. */
static int judge_map(const struct memfd *m, struct judgement *j)
{
	if (m->err) {
		j->tag = "maps a memfd executable (seals unreadable)";
		return judge_set(
			j, VERDICT_BREAKS_2, BASIS_UNREADABLE,
			"maps a memfd executable whose mode and seals could not be read (%s): mapping a memfd PROT_EXEC works at every level, but if it was made with MFD_EXEC, level 2 refuses to create it; worst case shown",
			m->err == EPERM
				? "not open as an fd, and /proc/PID/map_files needs CAP_SYS_ADMIN"
				: strerror(m->err));
	}
	if ((m->seals & F_SEAL_EXEC) && !(m->mode & 0111)) {
		j->tag = NULL;
		return judge_set(
			j, VERDICT_FINE, BASIS_SEALS,
			"maps a non-executable memfd (mode %04o, seals 0x%x, F_SEAL_EXEC) executable: made with MFD_NOEXEC_SEAL or without a flag at level 1 or 2, and mmap(PROT_EXEC) ignores x bits and F_SEAL_EXEC at every level",
			(unsigned)m->mode, (unsigned)m->seals);
	}
	if (m->seals & F_SEAL_EXEC) {
		j->tag = "maps an MFD_EXEC memfd executable";
		return judge_set(
			j, VERDICT_BREAKS_2, BASIS_SEALS,
			"maps a memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made executable on purpose, i.e. with MFD_EXEC, which level 2 refuses (EACCES); level 1 allows it",
			(unsigned)m->mode, (unsigned)m->seals);
	}
	j->tag = "maps a memfd without F_SEAL_EXEC executable";
	return judge_set(
		j, VERDICT_BREAKS_2, BASIS_WORST_CASE,
		"maps a memfd without F_SEAL_EXEC (mode %04o, seals 0x%x) executable: made without an exec flag (as JITs do), it keeps working at 1 and 2, since mmap(PROT_EXEC) ignores x bits and F_SEAL_EXEC; made with MFD_EXEC, level 2 refuses to create it; the kernel keeps no record of which, so the worst case is shown",
		(unsigned)m->mode, (unsigned)m->seals);
}

/* Appends to j->reason. */
_printf_(2, 3) static int reason_append(struct judgement *j, const char *fmt, ...)
{
	_cleanup_free_ char *more = NULL;
	char *joined = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&more, fmt, ap);
	va_end(ap);
	if (r < 0) {
		more = NULL;
		return -ENOMEM;
	}
	if (asprintf(&joined, "%s%s", j->reason ? j->reason : "", more) < 0)
		return -ENOMEM;
	free(j->reason);
	j->reason = joined;
	return 0;
}

/* The worst of the process's findings; the executable first on a tie. */
static int judge_proc(struct proc *p, int level)
{
	struct judgement cur = {};
	const struct memfd *worst_m = NULL;
	int r = 0;

	r = judge_set(&p->j, VERDICT_FINE, BASIS_NONE,
		      "no executable memfd: it neither runs from a memfd nor maps one executable");
	if (r == 0 && p->exe_memfd) {
		r = judge_exe(&p->exe_m, &p->j);
		worst_m = &p->exe_m;
	}
	for (size_t i = 0; r == 0 && i < p->n_maps; i++) {
		if (p->maps[i].of_exe)
			continue;
		r = judge_map(&p->maps[i].m, &cur);
		if (r == 0 && (!worst_m || cur.verdict > p->j.verdict)) {
			free(p->j.reason);
			p->j = cur;
			cur = (struct judgement){};
			worst_m = &p->maps[i].m;
		}
	}
	free(cur.reason);
	if (r == 0 && worst_m && worst_m->err == 0 && worst_m->hugetlb)
		r = reason_append(
			&p->j,
			"; it is on hugetlbfs, where the kernel does not enforce F_SEAL_EXEC");
	if (r == 0 && p->j.verdict != VERDICT_FINE &&
	    level >= (p->j.verdict == VERDICT_BREAKS_2 ? 2 : 1))
		r = reason_append(
			&p->j,
			"; note: its PID namespace is already at %d, so the memfd was made before that or in another PID namespace (a runtime makes runc init's clone in its own)",
			level);
	return r;
}

/* ---- namespaces: levels, verdicts, labels ----------------------------------
 */

static void read_levels(struct audit *a)
{
	for (size_t i = 0; i < a->n_ns; i++) {
		struct pidns *ns = &a->ns[i];

		if (ns->own)
			ns->level = mt_memfd_noexec_read();
		else if (ns->fd < 0)
			ns->level = ns->fd;
		else
			ns->level = nsexec_read_memfd_noexec(ns->fd);
		if (ns->fd >= 0)
			ns->fd = safe_close(ns->fd);
	}
}

/* Judges every process and sums up per namespace. */
static int judge_all(struct audit *a)
{
	int r;

	for (size_t i = 0; i < a->n_procs; i++) {
		struct proc *p = &a->procs[i];
		struct pidns *ns = &a->ns[p->ns_index];

		r = judge_proc(p, ns->level);
		if (r < 0)
			return r;
		if (!ns->worst || p->j.verdict > ns->verdict) {
			ns->verdict = p->j.verdict;
			ns->worst = p;
		}
		if (p->ctr_id && (!ns->label_from || p->ns_pid == 1))
			ns->label_from = p;
	}
	return 0;
}

/* "host", the container id, or "pidns:[N]". */
static const char *ns_label(const struct pidns *ns, char *buf, size_t size)
{
	if (ns->initial)
		return "host";
	if (ns->label_from)
		return ns->label_from->ctr_id;
	snprintf(buf, size, "pidns:[%ju]", (uintmax_t)ns->ino);
	return buf;
}

static void level_text(int level, char *buf, size_t size)
{
	if (level >= 0)
		snprintf(buf, size, "vm.memfd_noexec=%d", level);
	else if (level == -ENOENT)
		snprintf(buf, size,
			 "vm.memfd_noexec absent (Linux before 6.3, or no CONFIG_PID_NS)");
	else if (level == -EPERM || level == -EACCES)
		snprintf(
			buf, size,
			"vm.memfd_noexec unknown (%s: reading another PID namespace's value needs root)",
			strerror(-level));
	else
		snprintf(buf, size, "vm.memfd_noexec unknown (%s)", strerror(-level));
}

/* --all lists processes with an executable memfd and counts the rest; a
 * --pid or --container-pid audit lists every process. */
static bool listed(const struct audit *a, const struct proc *p)
{
	return a->scope != SCOPE_ALL || p->exe_memfd || p->n_maps > 0;
}

/* ---- text report ------------------------------------------------------------
 */

static void print_memfd(const char *what, const char *path, const struct memfd *m)
{
	char names[96];

	if (m->err) {
		printf("    %s %s: mode and seals unreadable (%s)\n", what, path, strerror(m->err));
		return;
	}
	printf("    %s %s: mode %04o, seals 0x%x (%s)%s, read through %s\n", what, path,
	       (unsigned)m->mode, (unsigned)m->seals, seal_names(m->seals, names, sizeof(names)),
	       m->hugetlb ? ", hugetlbfs" : "", m->via);
}

static void print_proc(const struct audit *a, const struct proc *p, const struct pidns *ns)
{
	printf("  %d %s", (int)p->pid, p->comm);
	if (p->ns_pid > 0 && p->ns_pid != p->pid)
		printf(" (PID %d inside)", (int)p->ns_pid);
	if (p->ctr_id && (!ns->label_from || strcmp(p->ctr_id, ns->label_from->ctr_id) != 0))
		printf(" [%s %s]", p->runtime, p->ctr_id);
	printf(": %s%s\n", verdict_str(p->j.verdict),
	       worst_case(p->j.basis) ? " (worst case)" : "");
	printf("    why: %s\n", p->j.reason);
	if (p->exe_memfd)
		print_memfd("exe", p->exe, &p->exe_m);
	else if (a->scope != SCOPE_ALL)
		printf("    exe %s\n", p->exe);
	for (size_t i = 0; i < p->n_maps; i++) {
		const struct xmap *x = &p->maps[i];
		char what[80];

		snprintf(what, sizeof(what), "map %lx-%lx %s", x->start, x->end, x->perms);
		if (x->of_exe)
			printf("    %s: the executable's own image\n", what);
		else
			print_memfd(what, x->path, &x->m);
	}
}

static void print_ns(const struct audit *a, size_t idx)
{
	const struct pidns *ns = &a->ns[idx];
	size_t shown = 0, others = 0;
	char level[160];

	printf("PID namespace %ju", (uintmax_t)ns->ino);
	if (ns->initial)
		printf(" (the host's)");
	if (ns->own)
		printf(" (this audit's)");
	if (ns->label_from)
		printf(", container %s (%s, cgroup %s)", ns->label_from->ctr_id,
		       ns->label_from->runtime, ns->label_from->cgroup);
	level_text(ns->level, level, sizeof(level));
	printf(": %s\n", level);
	for (size_t i = 0; i < a->n_procs; i++) {
		const struct proc *p = &a->procs[i];

		if (p->ns_index != idx)
			continue;
		if (listed(a, p)) {
			print_proc(a, p, ns);
			shown++;
		} else {
			others++;
		}
	}
	if (others > 0)
		printf("  %zu %sprocess%s: fine at 2 (no executable memfd)\n", others,
		       shown ? "other " : "", others == 1 ? "" : "es");
	putchar('\n');
}

static void print_unreadable(const struct audit *a)
{
	int col = 4;

	if (a->n_unreadable == 0)
		return;
	printf("unreadable: %zu process%s, not audited (reading another user's process needs root):\n   ",
	       a->n_unreadable, a->n_unreadable == 1 ? "" : "es");
	for (size_t i = 0; i < a->n_unreadable; i++) {
		const struct proc *p = &a->unreadable[i];
		char item[160];
		int n;

		n = snprintf(item, sizeof(item), " %d %s (%s: %s)%s", (int)p->pid,
			     p->comm ? p->comm : "?", p->err_what, strerror(p->err),
			     i + 1 < a->n_unreadable ? "," : "");
		if (col + n > 79 && col > 4) {
			printf("\n   ");
			col = 4;
		}
		fputs(item, stdout);
		col += n;
	}
	printf("\n\n");
}

/* ---- summary
 * ------------------------------------------------------------------ */

static size_t count_ns(const struct audit *a, enum verdict at_least)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_ns; i++)
		n += a->ns[i].verdict >= at_least;
	return n;
}

/* Processes in namespace idx whose verdict is at least at_least. */
static size_t count_procs(const struct audit *a, size_t idx, enum verdict at_least)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_procs; i++)
		n += a->procs[i].ns_index == idx && a->procs[i].j.verdict >= at_least;
	return n;
}

/* "<label> (<comm>[<pid>]: <tag>[, worst case])" for each namespace whose
 * verdict is at least at_least (just the label with short). */
static void list_breaking(FILE *f, const struct audit *a, enum verdict at_least, bool short_form)
{
	const char *sep = ": ";
	char buf[48];
	size_t n;

	for (size_t i = 0; i < a->n_ns; i++) {
		const struct pidns *ns = &a->ns[i];
		const struct proc *w = ns->worst;

		if (ns->verdict < at_least || !w)
			continue;
		fprintf(f, "%s%s", sep, ns_label(ns, buf, sizeof(buf)));
		sep = ", ";
		if (short_form)
			continue;
		fprintf(f, " (%s[%d]: %s%s", w->comm, (int)w->pid, w->j.tag,
			worst_case(w->j.basis) ? ", worst case" : "");
		n = count_procs(a, i, at_least);
		if (n > 1)
			fprintf(f, "; and %zu more", n - 1);
		fputc(')', f);
	}
}

/* The one summary line, malloc'd.  0 or -ENOMEM. */
static int summary_line(const struct audit *a, char **ret)
{
	size_t containers = 0, size = 0;
	bool host = false;
	char *buf = NULL;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_ns; i++) {
		host = host || a->ns[i].initial;
		containers += !a->ns[i].initial;
	}
	fprintf(f, "%zu container%s%s, %zu process%s audited", containers,
		containers == 1 ? "" : "s", host ? " and the host" : "", a->n_procs,
		a->n_procs == 1 ? "" : "es");
	fprintf(f, "; %zu would break at level 2", count_ns(a, VERDICT_BREAKS_2));
	list_breaking(f, a, VERDICT_BREAKS_2, false);
	fprintf(f, "; %zu would break at level 1", count_ns(a, VERDICT_BREAKS_1_2));
	list_breaking(f, a, VERDICT_BREAKS_1_2, true);
	fprintf(f, "; %zu unreadable", a->n_unreadable);
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

static int print_text(const struct audit *a)
{
	_cleanup_free_ char *line = NULL;
	int r;

	for (size_t i = 0; i < a->n_ns; i++)
		print_ns(a, i);
	print_unreadable(a);
	printf("not audited: %u kernel thread%s, %u zombie%s, %u gone while reading\n", a->kthreads,
	       a->kthreads == 1 ? "" : "s", a->zombies, a->zombies == 1 ? "" : "s", a->gone);
	r = summary_line(a, &line);
	if (r < 0)
		return r;
	printf("summary: %s\n", line);
	return 0;
}

/* ---- JSON report
 * ---------------------------------------------------------------- */

typedef struct policy_json_writer jw;

static void json_str_or_null(jw *w, const char *key, const char *s)
{
	if (s)
		(void)policy_json_writer_add_string(w, key, s);
	else
		(void)policy_json_writer_add_null(w, key);
}

static void json_memfd(jw *w, const struct memfd *m)
{
	char mode[8], names[96];

	if (m->err) {
		(void)policy_json_writer_add_null(w, "mode");
		(void)policy_json_writer_add_null(w, "seals");
		(void)policy_json_writer_add_string(w, "error", strerror(m->err));
		return;
	}
	snprintf(mode, sizeof(mode), "%04o", (unsigned)m->mode);
	(void)policy_json_writer_add_string(w, "mode", mode);
	(void)policy_json_writer_add_int(w, "seals", m->seals);
	(void)policy_json_writer_add_string(w, "seal_names",
					    seal_names(m->seals, names, sizeof(names)));
	(void)policy_json_writer_add_bool(w, "hugetlb", m->hugetlb);
	(void)policy_json_writer_add_string(w, "read_via", m->via);
	(void)policy_json_writer_add_null(w, "error");
}

static void json_maps(jw *w, const struct proc *p)
{
	char hex[24];

	(void)policy_json_writer_open_array(w, "exec_maps");
	for (size_t i = 0; i < p->n_maps; i++) {
		const struct xmap *x = &p->maps[i];

		(void)policy_json_writer_open_object(w, NULL);
		snprintf(hex, sizeof(hex), "%lx", x->start);
		(void)policy_json_writer_add_string(w, "start", hex);
		snprintf(hex, sizeof(hex), "%lx", x->end);
		(void)policy_json_writer_add_string(w, "end", hex);
		(void)policy_json_writer_add_string(w, "perms", x->perms);
		(void)policy_json_writer_add_string(w, "path", x->path);
		(void)policy_json_writer_add_int(w, "inode", (long long)x->m.ino);
		(void)policy_json_writer_add_bool(w, "of_exe", x->of_exe);
		json_memfd(w, &x->m);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

/* What every process entry has, readable or not. */
static void json_proc_head(jw *w, const struct proc *p)
{
	(void)policy_json_writer_add_int(w, "pid", p->pid);
	if (p->ns_pid > 0)
		(void)policy_json_writer_add_int(w, "ns_pid", p->ns_pid);
	else
		(void)policy_json_writer_add_null(w, "ns_pid");
	json_str_or_null(w, "comm", p->comm);
	if (p->uid >= 0)
		(void)policy_json_writer_add_int(w, "uid", p->uid);
	else
		(void)policy_json_writer_add_null(w, "uid");
	json_str_or_null(w, "cgroup", p->cgroup);
	json_str_or_null(w, "container_id", p->ctr_id);
	json_str_or_null(w, "runtime", p->runtime);
}

static void json_proc(jw *w, const struct proc *p)
{
	(void)policy_json_writer_open_object(w, NULL);
	json_proc_head(w, p);
	(void)policy_json_writer_add_string(w, "verdict", verdict_str(p->j.verdict));
	(void)policy_json_writer_add_string(w, "basis", basis_str(p->j.basis));
	(void)policy_json_writer_add_bool(w, "breaks_at_1", p->j.verdict == VERDICT_BREAKS_1_2);
	(void)policy_json_writer_add_bool(w, "breaks_at_2", p->j.verdict != VERDICT_FINE);
	json_str_or_null(w, "tag", p->j.tag);
	(void)policy_json_writer_add_string(w, "reason", p->j.reason);
	(void)policy_json_writer_open_object(w, "exe");
	(void)policy_json_writer_add_string(w, "path", p->exe);
	(void)policy_json_writer_add_bool(w, "memfd", p->exe_memfd);
	if (p->exe_memfd)
		json_memfd(w, &p->exe_m);
	(void)policy_json_writer_close_object(w);
	json_maps(w, p);
	(void)policy_json_writer_close_object(w);
}

static void json_level(jw *w, int level)
{
	char text[160];

	if (level >= 0) {
		(void)policy_json_writer_add_int(w, "level", level);
		(void)policy_json_writer_add_null(w, "level_error");
		return;
	}
	level_text(level, text, sizeof(text));
	(void)policy_json_writer_add_null(w, "level");
	(void)policy_json_writer_add_string(w, "level_error", text);
}

static void json_ns(jw *w, const struct audit *a, size_t idx)
{
	const struct pidns *ns = &a->ns[idx];
	char buf[48];

	(void)policy_json_writer_open_object(w, NULL);
	(void)policy_json_writer_add_int(w, "pid_namespace", (long long)ns->ino);
	(void)policy_json_writer_add_string(w, "label", ns_label(ns, buf, sizeof(buf)));
	(void)policy_json_writer_add_bool(w, "initial", ns->initial);
	(void)policy_json_writer_add_bool(w, "own", ns->own);
	json_level(w, ns->level);
	if (ns->label_from) {
		(void)policy_json_writer_open_object(w, "container");
		(void)policy_json_writer_add_string(w, "id", ns->label_from->ctr_id);
		(void)policy_json_writer_add_string(w, "runtime", ns->label_from->runtime);
		json_str_or_null(w, "cgroup", ns->label_from->cgroup);
		(void)policy_json_writer_close_object(w);
	} else {
		(void)policy_json_writer_add_null(w, "container");
	}
	(void)policy_json_writer_add_string(w, "verdict", verdict_str(ns->verdict));
	(void)policy_json_writer_open_array(w, "processes");
	for (size_t i = 0; i < a->n_procs; i++)
		if (a->procs[i].ns_index == idx)
			json_proc(w, &a->procs[i]);
	(void)policy_json_writer_close_array(w);
	(void)policy_json_writer_close_object(w);
}

static void json_unreadable(jw *w, const struct audit *a)
{
	char what[160];

	(void)policy_json_writer_open_array(w, "unreadable");
	for (size_t i = 0; i < a->n_unreadable; i++) {
		const struct proc *p = &a->unreadable[i];

		(void)policy_json_writer_open_object(w, NULL);
		json_proc_head(w, p);
		snprintf(what, sizeof(what), "%s: %s", p->err_what, strerror(p->err));
		(void)policy_json_writer_add_string(w, "error", what);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

static void json_breaking(jw *w, const char *key, const struct audit *a, enum verdict at_least)
{
	char buf[48];

	(void)policy_json_writer_open_array(w, key);
	for (size_t i = 0; i < a->n_ns; i++) {
		const struct pidns *ns = &a->ns[i];

		if (ns->verdict < at_least || !ns->worst)
			continue;
		(void)policy_json_writer_open_object(w, NULL);
		(void)policy_json_writer_add_string(w, "label", ns_label(ns, buf, sizeof(buf)));
		(void)policy_json_writer_add_int(w, "pid_namespace", (long long)ns->ino);
		(void)policy_json_writer_add_int(w, "pid", ns->worst->pid);
		(void)policy_json_writer_add_string(w, "comm", ns->worst->comm);
		(void)policy_json_writer_add_string(w, "tag", ns->worst->j.tag);
		(void)policy_json_writer_add_bool(w, "worst_case", worst_case(ns->worst->j.basis));
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

static void json_summary(jw *w, const struct audit *a, const char *line)
{
	size_t containers = 0;
	bool host = false;

	for (size_t i = 0; i < a->n_ns; i++) {
		host = host || a->ns[i].initial;
		containers += !a->ns[i].initial;
	}
	(void)policy_json_writer_open_object(w, "summary");
	(void)policy_json_writer_add_int(w, "containers", (long long)containers);
	(void)policy_json_writer_add_bool(w, "host", host);
	(void)policy_json_writer_add_int(w, "processes", (long long)a->n_procs);
	(void)policy_json_writer_add_int(w, "unreadable", (long long)a->n_unreadable);
	(void)policy_json_writer_add_int(w, "kernel_threads", a->kthreads);
	(void)policy_json_writer_add_int(w, "zombies", a->zombies);
	(void)policy_json_writer_add_int(w, "gone", a->gone);
	json_breaking(w, "break_at_2", a, VERDICT_BREAKS_2);
	json_breaking(w, "break_at_1", a, VERDICT_BREAKS_1_2);
	(void)policy_json_writer_add_string(w, "line", line);
	(void)policy_json_writer_close_object(w);
}

static int print_json(const struct audit *a)
{
	_cleanup_(policy_json_writer_freep) jw *w = NULL;
	_cleanup_free_ char *line = NULL;
	static const char *const scopes[] = {"all", "pid", "container-pid"};
	int r;

	r = summary_line(a, &line);
	if (r < 0)
		return r;
	r = policy_json_writer_new(&w);
	if (r < 0)
		return r;
	(void)policy_json_writer_open_object(w, NULL);
	(void)policy_json_writer_add_string(w, "scope", scopes[a->scope]);
	(void)policy_json_writer_add_int(w, "euid", (long long)geteuid());
	(void)policy_json_writer_open_array(w, "namespaces");
	for (size_t i = 0; i < a->n_ns; i++)
		json_ns(w, a, i);
	(void)policy_json_writer_close_array(w);
	json_unreadable(w, a);
	json_summary(w, a, line);
	(void)policy_json_writer_close_object(w);
	return policy_json_writer_print(w, stdout);
}

/* ---- the command
 * ------------------------------------------------------------------ */

void nsexec_audit_usage(FILE *f)
{
	fprintf(f,
		"Usage: memfd-noexec audit [--json] [--pid N | --container-pid N | --all]\n\nReads /proc (and changes nothing) to tell, per process and per\nPID namespace (container), what raising vm.memfd_noexec would\nbreak: \"fine at 2\", \"breaks at 2 only\" or \"breaks at 1 and 2\",\nwith the reason; \"(worst case)\" where the kernel cannot tell\nhow a memfd was made.  Ends with a summary line.\n\n  --all              every process /proc shows (default)\n  --pid N            process N only\n  --container-pid N  the PID namespace of process N (a container's\n                     init), every process in it\n  --json             one JSON document instead of text\n\nPIDs are as this /proc shows them.  As root every process and\nevery namespace's level can be read; a user reads their own\nprocesses, the level of their own PID namespace only, and gets\nthe others listed as unreadable.  Exit status: 0 audited\n(whatever the verdicts), 1 failure, 2 bad usage.\n");
}

static void audit_done(struct audit *a)
{
	for (size_t i = 0; i < a->n_procs; i++)
		proc_done(&a->procs[i]);
	for (size_t i = 0; i < a->n_unreadable; i++)
		proc_done(&a->unreadable[i]);
	for (size_t i = 0; i < a->n_ns; i++)
		a->ns[i].fd = safe_close(a->ns[i].fd);
	free(a->procs);
	free(a->unreadable);
	free(a->ns);
}

/* Sets the scope; refuses a second one.  0 or exits. */
static int set_scope(struct audit *a, enum scope s, const char *opt, const char *arg, bool *chosen)
{
	if (*chosen) {
		msg("only one of --all, --pid N, --container-pid N may be given ('%s' comes after another)",
		    opt);
		return -EINVAL;
	}
	*chosen = true;
	a->scope = s;
	if (s != SCOPE_ALL && parse_pid(arg, &a->target) < 0) {
		msg("invalid %s '%s': a process ID is a decimal number from 1 to %d", opt, arg,
		    INT_MAX);
		return -EINVAL;
	}
	return 0;
}

/* Options into a and *json.  0, 1 for --help (printed), or -EINVAL
 * (reported). */
static int parse_options(int argc, char *argv[], struct audit *a, bool *json)
{
	static const struct option options[] = {
		{"help", no_argument, NULL, 'h'},
		{"json", no_argument, NULL, 'j'},
		{"all", no_argument, NULL, 'a'},
		{"pid", required_argument, NULL, 'p'},
		{"container-pid", required_argument, NULL, 'c'},
		{},
	};
	bool chosen = false;
	int c, r = 0;

	optind = 1;
	opterr = 0;
	while (r == 0 && (c = getopt_long(argc, argv, "+:hjap:c:", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			nsexec_audit_usage(stdout);
			return 1;
		case 'j':
			*json = true;
			break;
		case 'a':
			r = set_scope(a, SCOPE_ALL, "--all", NULL, &chosen);
			break;
		case 'p':
			r = set_scope(a, SCOPE_PID, "--pid", optarg, &chosen);
			break;
		case 'c':
			r = set_scope(a, SCOPE_CONTAINER, "--container-pid", optarg, &chosen);
			break;
		case ':':
			msg("option '%s' needs a process ID", argv[optind - 1]);
			return -EINVAL;
		default:
			msg("unknown option '%s': allowed are --json, --all, --pid N, --container-pid N, --help",
			    argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (r == 0 && optind < argc) {
		msg("unexpected argument '%s': audit takes only options (see --help)",
		    argv[optind]);
		return -EINVAL;
	}
	return r;
}

/* Collects the processes of the chosen scope.  0, or 1 after a message. */
static int collect(struct audit *a)
{
	struct stat st;
	int r;

	if (stat("/proc/thread-self/ns/pid", &st) == 0 || stat("/proc/self/ns/pid", &st) == 0) {
		a->have_self = true;
		a->self_dev = st.st_dev;
		a->self_ino = st.st_ino;
	}
	if (a->scope == SCOPE_CONTAINER) {
		r = resolve_container(a);
		if (r == -EEXIST) {
			msg("process %d is in the initial PID namespace, so it is no container's init; use --pid %d for it or --all for the host",
			    (int)a->target, (int)a->target);
			return 1;
		}
		if (r < 0) {
			msg("Failed to read the PID namespace of process %d: %s%s", (int)a->target,
			    strerror(-r),
			    r == -EACCES ? " (another user's process: run as root)" : "");
			return 1;
		}
	}
	r = a->scope == SCOPE_PID ? collect_proc(a, a->target) : scan_all(a);
	if (r == -ESRCH) {
		msg("no process %d in /proc", (int)a->target);
		return 1;
	}
	if (r < 0) {
		msg("Failed to read /proc: %s", strerror(-r));
		return 1;
	}
	return 0;
}

int nsexec_audit_main(int argc, char *argv[])
{
	_cleanup_(audit_done) struct audit a = {.scope = SCOPE_ALL};
	bool json = false;
	int r;

	r = parse_options(argc, argv, &a, &json);
	if (r != 0)
		return r > 0 ? 0 : EXIT_USAGE;
	if (collect(&a) != 0)
		return 1;
	read_levels(&a);
	r = judge_all(&a);
	if (r == 0)
		r = json ? print_json(&a) : print_text(&a);
	if (r < 0) {
		msg("Failed to write the report: %s", strerror(-r));
		return 1;
	}
	if (fflush(stdout) != 0) {
		msg("Failed to write the report: %m");
		return 1;
	}
	return 0;
}
