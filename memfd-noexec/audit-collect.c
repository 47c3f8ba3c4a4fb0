/* SPDX-License-Identifier: Apache-2.0 */
/*
 * memfd-noexec audit: collection.  Reads /proc, and nothing else, into
 * struct audit: per process its memfds (by dev and inode) and how it uses
 * each, per PID namespace its level.
 *
 * What /proc can show of a running process: whether it runs from a memfd
 * (/proc/PID/exe is "/memfd:NAME (deleted)"), which memfds it maps
 * executable (/proc/PID/maps), which it holds open (/proc/PID/fd), and each
 * memfd's mode and seals, through an fd of it (/proc/PID/exe opens the
 * file; /proc/PID/fd/N; or, with CAP_SYS_ADMIN in the initial user
 * namespace, /proc/PID/map_files).
 *
 * Cost: each process's fd table is read once and its maps once, streamed
 * line by line (no size cap: a process cannot make itself unreadable by
 * mapping much), into one list of memfds sorted by (dev, inode); each
 * memfd's mode and seals are read once, whatever its number of mappings
 * and fds.  So an audit is O(n log n) in fds and mappings.
 *
 * No fd is kept open from one process to the next: a PID namespace's
 * level is read when its first process is seen, through that process's
 * ns/pid opened for the read and closed after it.  The level is read as
 * the kernel reads it: by a task whose active PID namespace it is.  For
 * the auditor's own namespace that is a plain read; for another, a child
 * setns()es into it (which only moves its future children) and forks the
 * reader, which checks where it is and reads /proc/sys/vm/memfd_noexec
 * (O_RDONLY; nothing is ever written).  setns() needs CAP_SYS_ADMIN over
 * the namespace's owner: as a user, other namespaces' levels are
 * "unknown".
 *
 * Errors say which read failed and why; a process that exits while it is
 * read is counted as gone; running short of memory or fds stops the
 * audit (it is never reported as a process being unreadable).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "audit-internal.h"
#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing_syscall.h"
#include "nsexec.h"
#include "parse.h"

#define PF_KTHREAD_FLAG 0x00200000U /* include/linux/sched.h */
#define MAX_SMALL_FILE (1U << 20)   /* stat, status, comm, cgroup */

/* ---- small helpers ------------------------------------------------------ */

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

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_memfd_path(const char *path)
{
	return has_prefix(path, "/memfd:");
}

/* The audit cannot go on: never a verdict on the process being read. */
static bool fatal_error(int r)
{
	return r == -ENOMEM || r == -EMFILE || r == -ENFILE;
}

/* The process exited (or its fd was closed) while we read it. */
static bool gone_error(int r)
{
	return r == -ENOENT || r == -ESRCH;
}

/* Reads dirfd/name whole (NUL-terminated).  0 or -errno. */
static int read_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return negative_errno();
	return read_full_fd(fd, max, ret, ret_len);
}

/* readlinkat() into a malloc'd string (raw bytes).  0 or -errno. */
static int readlink_at(int dirfd, const char *name, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);

	if (n < 0)
		return negative_errno();
	buf[n] = '\0';
	*ret = strdup(buf);
	return *ret ? 0 : -ENOMEM;
}

int audit_parse_pid(const char *s, pid_t *ret)
{
	int v, r;

	r = mt_parse_int(s, INT_MAX, &v, NULL);
	if (r < 0)
		return r;
	if (v < 1)
		return -ERANGE;
	*ret = (pid_t)v;
	return 0;
}

/* ---- reading a memfd's mode and seals ------------------------------------ */

/*
 * Mode and seals of the file open at fd, into m.  With check_id, the file
 * must be m's (dev, ino), else -ESTALE (the fd or mapping changed under
 * us).  -EMEDIUMTYPE: no memfd (neither on shmem nor on hugetlbfs, or
 * F_GET_SEALS refuses it), only named like one.
 */
static int inspect_fd(int fd, struct audit_memfd *m, bool check_id)
{
	struct statfs sfs;
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if (check_id && (st.st_dev != m->dev || st.st_ino != m->ino))
		return -ESTALE;
	if ((unsigned long)sfs.f_type != (unsigned long)TMPFS_MAGIC &&
	    (unsigned long)sfs.f_type != (unsigned long)HUGETLBFS_MAGIC)
		return -EMEDIUMTYPE;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return errno == EINVAL ? -EMEDIUMTYPE : negative_errno();
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->id_known = true;
	m->mode = st.st_mode & 07777;
	m->seals = seals;
	m->hugetlb = (unsigned long)sfs.f_type == (unsigned long)HUGETLBFS_MAGIC;
	m->err = 0;
	return 0;
}

/* Opens dirfd/name read-only (never blocking, never a controlling tty)
 * and inspects it; m->via names the path, read or not.  0 or -errno. */
static int inspect_at(int dirfd, const char *name, pid_t pid, struct audit_memfd *m, bool check_id)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	snprintf(m->via, sizeof(m->via), "/proc/%d/%s", (int)pid, name);
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	r = fd < 0 ? negative_errno() : inspect_fd(fd, m, check_id);
	if (r < 0)
		m->err = -r;
	return r;
}

/* ---- the fd table: every memfd the process holds -------------------------- */

/* Adds an entry to p->memfds (the index is built later).  0 or -ENOMEM. */
static int add_memfd(struct audit_proc *p, const struct audit_memfd *from, const char *path)
{
	struct audit_memfd *m = grow(&p->memfds, &p->n_memfds, sizeof(*m));

	if (!m)
		return -ENOMEM;
	*m = *from;
	m->path = strdup(path);
	return m->path ? 0 : -ENOMEM;
}

/* One fd entry: a memfd's link, and its file's dev and inode (fstatat
 * follows the link to the file itself).  0, or -errno with the fd gone
 * (-ENOENT) or unreadable. */
static int read_fd_entry(int fdfd, const char *name, struct audit_proc *p)
{
	_cleanup_free_ char *link = NULL;
	struct stat st;
	int fd, r;

	if (mt_parse_int(name, INT_MAX, &fd, NULL) < 0)
		return 0; /* "." and ".." */
	r = readlink_at(fdfd, name, &link);
	if (r < 0)
		return r;
	if (!is_memfd_path(link))
		return 0;
	if (fstatat(fdfd, name, &st, 0) < 0)
		return negative_errno();
	return add_memfd(p,
			 &(struct audit_memfd){.dev = st.st_dev,
					       .ino = st.st_ino,
					       .id_known = true,
					       .err = ENODATA,
					       .fd = fd},
			 link);
}

static int read_fds(int dirfd, struct audit_proc *p)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	int fdfd, r;

	fdfd = openat(dirfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0)
		return negative_errno();
	d = fdopendir(fdfd);
	if (!d) {
		r = negative_errno();
		(void)close(fdfd);
		return r;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return errno ? -errno : 0;
		r = read_fd_entry(fdfd, de->d_name, p);
		if (r == -ENOENT)
			continue; /* closed since readdir() saw it */
		if (r < 0)
			return r;
	}
}

/* ---- /proc/PID/maps, streamed -------------------------------------------- */

/*
 * One hexadecimal field as the kernel writes maps (lowercase, 1 to 16
 * digits, no sign, no "0x"), then sep.  common/parse.h is decimal only:
 * maps is the one hexadecimal text the audit reads.  Returns the byte
 * after sep, or NULL.
 */
static const char *hex_field(const char *s, char sep, uint64_t *ret)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; (s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'); n++) {
		if (n == 16)
			return NULL;
		v = v << 4 | (uint64_t)(s[n] <= '9' ? s[n] - '0' : s[n] - 'a' + 10);
	}
	if (n == 0 || s[n] != sep)
		return NULL;
	*ret = v;
	return s + n + 1;
}

struct maps_line {
	uint64_t start, end, offset, major, minor, inode;
	char perms[5];
	const char *path; /* inside the line; "" for anonymous memory */
};

static bool one_of(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* "start-end perms offset major:minor inode [path]", every field checked.
 * 0 or -EBADMSG. */
static int parse_maps_line(const char *s, struct maps_line *ret)
{
	struct maps_line l = {};

	s = hex_field(s, '-', &l.start);
	s = s ? hex_field(s, ' ', &l.end) : NULL;
	if (!s || !one_of(s[0], "r-") || !one_of(s[1], "w-") || !one_of(s[2], "x-") ||
	    !one_of(s[3], "ps") || s[4] != ' ')
		return -EBADMSG;
	memcpy(l.perms, s, 4);
	s = hex_field(s + 5, ' ', &l.offset);
	s = s ? hex_field(s, ':', &l.major) : NULL;
	s = s ? hex_field(s, ' ', &l.minor) : NULL;
	if (!s || l.start > l.end || l.major > UINT32_MAX || l.minor > UINT32_MAX ||
	    mt_parse_uint(s, UINT64_MAX, &l.inode, &s) < 0 || (*s != ' ' && *s != '\0'))
		return -EBADMSG;
	s += strspn(s, " ");
	l.path = s;
	*ret = l;
	return 0;
}

/* Adds the line's mapping to p if it is an executable mapping of a memfd. */
static int add_mapping(struct audit_proc *p, char *line)
{
	struct audit_xmap *x;
	struct maps_line l;
	dev_t dev;
	int r;

	r = parse_maps_line(line, &l);
	if (r < 0)
		return r;
	if (l.perms[2] != 'x' || !is_memfd_path(l.path))
		return 0;
	dev = makedev((unsigned)l.major, (unsigned)l.minor);
	x = grow(&p->xmaps, &p->n_xmaps, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->start = (unsigned long)l.start;
	x->end = (unsigned long)l.end;
	memcpy(x->perms, l.perms, sizeof(x->perms));
	x->dev = dev;
	x->ino = (ino_t)l.inode;
	return add_memfd(p,
			 &(struct audit_memfd){.dev = dev,
					       .ino = (ino_t)l.inode,
					       .id_known = true,
					       .err = ENODATA,
					       .n_xmaps = 1,
					       .fd = -1},
			 l.path);
}

static void fclose_safe(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

static int read_maps(int dirfd, struct audit_proc *p)
{
	_cleanup_(fclose_safe) FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	ssize_t n;
	int fd, r;

	fd = openat(dirfd, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	f = fdopen(fd, "re");
	if (!f) {
		r = negative_errno();
		(void)close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		n = getline(&line, &size, f);
		if (n < 0)
			break;
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		r = add_mapping(p, line);
		if (r < 0)
			return r;
	}
	/* getline() leaves errno alone at the end of the file. */
	if (ferror(f) || errno != 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* ---- the index: one entry per memfd --------------------------------------- */

static int cmp_id(dev_t da, ino_t ia, dev_t db, ino_t ib)
{
	if (da != db)
		return da < db ? -1 : 1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return 0;
}

static int cmp_memfd(const void *a, const void *b)
{
	const struct audit_memfd *x = a, *y = b;

	/* The unknown executable (at most one) last. */
	if (x->id_known != y->id_known)
		return x->id_known ? -1 : 1;
	return cmp_id(x->dev, x->ino, y->dev, y->ino);
}

/* Merges entry from into into (the same file). */
static void merge_memfd(struct audit_memfd *into, struct audit_memfd *from)
{
	if (into->err == ENODATA && from->err != ENODATA) {
		/* from was read already (the executable): its result stands. */
		into->err = from->err;
		into->mode = from->mode;
		into->seals = from->seals;
		into->hugetlb = from->hugetlb;
		memcpy(into->via, from->via, sizeof(into->via));
	}
	into->exe = into->exe || from->exe;
	into->n_xmaps += from->n_xmaps;
	if (from->fd >= 0 && (into->fd < 0 || from->fd < into->fd))
		into->fd = from->fd;
	free(from->path);
	from->path = NULL;
}

/* The xmap's memfd, by (dev, ino), in the sorted index.  Always found. */
static size_t find_memfd(const struct audit_proc *p, const struct audit_xmap *x)
{
	size_t lo = 0, hi = p->n_memfds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct audit_memfd *m = &p->memfds[mid];
		int c = m->id_known ? cmp_id(m->dev, m->ino, x->dev, x->ino) : 1;

		if (c == 0)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int audit_index_memfds(struct audit_proc *p)
{
	size_t n = 0;

	if (p->n_memfds > 1)
		qsort(p->memfds, p->n_memfds, sizeof(*p->memfds), cmp_memfd);
	for (size_t i = 0; i < p->n_memfds; i++) {
		struct audit_memfd *m = &p->memfds[i];

		if (n > 0 && m->id_known && cmp_memfd(&p->memfds[n - 1], m) == 0) {
			merge_memfd(&p->memfds[n - 1], m);
			continue;
		}
		if (n != i)
			p->memfds[n] = *m;
		n++;
	}
	p->n_memfds = n;
	p->exe_memfd = false;
	for (size_t i = 0; i < n; i++)
		if (p->memfds[i].exe) {
			p->exe_memfd = true;
			p->exe_index = i;
		}
	for (size_t i = 0; i < p->n_xmaps; i++) {
		p->xmaps[i].memfd = find_memfd(p, &p->xmaps[i]);
		if (p->xmaps[i].memfd == SIZE_MAX)
			return -EPROTO; /* every xmap added an entry */
	}
	return 0;
}

/* Removes the memfds marked drop, and their mappings; new_index is
 * scratch space for n_memfds entries. */
static void drop_memfds(struct audit_proc *p, const bool *drop, size_t *new_index)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < p->n_memfds; i++) {
		if (drop[i]) {
			free(p->memfds[i].path);
			new_index[i] = SIZE_MAX;
			continue;
		}
		new_index[i] = n;
		p->memfds[n++] = p->memfds[i];
	}
	p->n_memfds = n;
	for (size_t i = 0; i < p->n_xmaps; i++) {
		size_t to = new_index[p->xmaps[i].memfd];

		if (to == SIZE_MAX)
			continue;
		p->xmaps[k] = p->xmaps[i];
		p->xmaps[k++].memfd = to;
	}
	p->n_xmaps = k;
	if (p->exe_memfd && new_index[p->exe_index] == SIZE_MAX)
		p->exe_memfd = false;
	else if (p->exe_memfd)
		p->exe_index = new_index[p->exe_index];
}

/*
 * Reads each memfd's mode and seals once: through its lowest fd, else its
 * first executable mapping's map_files entry.  A file that is no memfd
 * (only named like one) leaves the list with its mappings, and so does an
 * fd-only memfd closed meanwhile.  0 or -errno (fatal only).
 */
static int inspect_memfds(int dirfd, struct audit_proc *p)
{
	_cleanup_free_ size_t *first_map = NULL;
	_cleanup_free_ bool *drop = NULL;
	bool any = false;
	char name[64];
	int r;

	first_map = malloc((p->n_memfds + 1) * sizeof(*first_map));
	drop = calloc(p->n_memfds + 1, sizeof(*drop));
	if (!first_map || !drop)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_memfds; i++)
		first_map[i] = SIZE_MAX;
	for (size_t i = p->n_xmaps; i-- > 0;)
		first_map[p->xmaps[i].memfd] = i;

	for (size_t i = 0; i < p->n_memfds; i++) {
		struct audit_memfd *m = &p->memfds[i];

		if (m->err != ENODATA) {
			/* The executable, read already (or unknown). */
			drop[i] = m->err == EMEDIUMTYPE;
			any = any || drop[i];
			continue;
		}
		r = -ENOENT;
		if (m->fd >= 0) {
			snprintf(name, sizeof(name), "fd/%d", m->fd);
			r = inspect_at(dirfd, name, p->pid, m, true);
		}
		if (r < 0 && r != -EMEDIUMTYPE && first_map[i] != SIZE_MAX) {
			const struct audit_xmap *x = &p->xmaps[first_map[i]];

			snprintf(name, sizeof(name), "map_files/%lx-%lx", x->start, x->end);
			r = inspect_at(dirfd, name, p->pid, m, true);
		}
		if (fatal_error(r))
			return r;
		drop[i] = r == -EMEDIUMTYPE ||
			  (first_map[i] == SIZE_MAX && !m->exe && (gone_error(r) || r == -ESTALE));
		any = any || drop[i];
	}
	if (any)
		drop_memfds(p, drop, first_map);
	return 0;
}

/*
 * The executable, when it is a memfd: /proc/PID/exe opens the file itself
 * (with the same ptrace-read check as fd/).  When that fails, the
 * executable mapping of the same name stands for it; failing that, it
 * enters the list unread, with the error.  Before the index is built.
 */
static int add_exe(int dirfd, struct audit_proc *p)
{
	struct audit_memfd m = {.err = ENODATA, .fd = -1, .exe = true};
	int r;

	r = inspect_at(dirfd, "exe", p->pid, &m, false);
	if (fatal_error(r))
		return r;
	if (r < 0) {
		for (size_t i = 0; i < p->n_memfds; i++)
			if (p->memfds[i].n_xmaps > 0 && strcmp(p->memfds[i].path, p->exe) == 0) {
				p->memfds[i].exe = true;
				return 0;
			}
		m.id_known = false;
	}
	return add_memfd(p, &m, p->exe);
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
 * outwards (podman nests "container" below its scope).  1 found, 0 not,
 * or -ENOMEM. */
static int id_from_path(struct audit_proc *p, const char *path)
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
		p->ctr_id = strndup(comp[i] + off, len[i] - off - strip);
		p->runtime = rt;
		return p->ctr_id ? 1 : -ENOMEM;
	}
	return 0;
}

static int choose_cgroup(struct audit_proc *p, const char *const *cand, size_t n)
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
		p->cgroup = strdup(show);
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
static int read_cgroup(int dirfd, struct audit_proc *p)
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

/* ---- one process ------------------------------------------------------------ */

void audit_proc_done(struct audit_proc *p)
{
	for (size_t i = 0; i < p->n_memfds; i++)
		free(p->memfds[i].path);
	free(p->memfds);
	free(p->xmaps);
	free(p->comm);
	free(p->cgroup);
	free(p->ctr_id);
	free(p->exe);
	free(p->j.reason);
	*p = (struct audit_proc){};
}

/* State and flags from /proc/PID/stat (world-readable): after the comm in
 * parentheses, "S ppid pgrp session tty_nr tpgid flags ...".  0 or -errno. */
static int read_stat(int dirfd, char *ret_state, unsigned *ret_flags)
{
	_cleanup_free_ char *buf = NULL;
	const char *s;
	uint64_t flags;
	size_t len;
	int r;

	r = read_at(dirfd, "stat", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	s = strrchr(buf, ')'); /* comm may hold ')' itself */
	if (!s || s[1] != ' ' || s[2] == '\0' || s[3] != ' ')
		return -EBADMSG;
	*ret_state = s[2];
	s += 4;
	/* ppid, pgrp, session, tty_nr and tpgid (which may be -1): skipped. */
	for (int i = 0; i < 5; i++) {
		s = strchr(s, ' ');
		if (!s)
			return -EBADMSG;
		s++;
	}
	if (mt_parse_uint(s, UINT32_MAX, &flags, &s) < 0 || *s != ' ')
		return -EBADMSG;
	*ret_flags = (unsigned)flags;
	return 0;
}

/* The tab-separated numbers after a status key: each, and how many.
 * 0 or -EBADMSG. */
static int status_numbers(const char *s, uint64_t *first, uint64_t *last, unsigned *ret_n)
{
	unsigned n = 0;
	uint64_t v;

	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0')
			break;
		if (mt_parse_uint(s, INT32_MAX, &v, &s) < 0 || (*s != '\0' && *s != '\t'))
			return -EBADMSG;
		if (n++ == 0)
			*first = v;
		*last = v;
	}
	*ret_n = n;
	return n > 0 ? 0 : -EBADMSG;
}

/* NSpid (the PID in each namespace from procfs's down) and the real
 * uid, from /proc/PID/status (world-readable). */
static int read_status(int dirfd, struct audit_proc *p)
{
	_cleanup_free_ char *buf = NULL;
	char *line, *save = NULL;
	uint64_t first, last;
	unsigned n;
	size_t len;
	int r;

	r = read_at(dirfd, "status", MAX_SMALL_FILE, &buf, &len);
	if (r < 0)
		return r;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (has_prefix(line, "Uid:")) {
			/* The real uid first; uids go up to 2^32 - 2. */
			const char *s = line + 4 + strspn(line + 4, "\t ");

			if (mt_parse_uint(s, UINT32_MAX, &first, &s) < 0 ||
			    (*s != '\t' && *s != '\0'))
				return -EBADMSG;
			p->uid = (long)first;
		} else if (has_prefix(line, "NSpid:")) {
			r = status_numbers(line + 6, &first, &last, &n);
			if (r < 0)
				return r;
			p->ns_pid = (pid_t)last;
			p->ns_depth = n;
		}
	}
	return 0;
}

/* What anyone may read: comm, status, cgroup.  0 or -errno, with
 * p->err_what naming the step. */
static int read_public(int dirfd, struct audit_proc *p)
{
	_cleanup_free_ char *comm = NULL;
	size_t len;
	int r;

	p->err_what = "comm";
	r = read_at(dirfd, "comm", MAX_SMALL_FILE, &comm, &len);
	if (r < 0)
		return r;
	while (len > 0 && comm[len - 1] == '\n')
		comm[--len] = '\0';
	p->comm = TAKE_PTR(comm);
	p->err_what = "status";
	r = read_status(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = "cgroup";
	return read_cgroup(dirfd, p);
}

/* The executable and the PID namespace (ptrace-read access: the owner, or
 * CAP_SYS_PTRACE).  0 or -errno, with p->err_what naming the step. */
static int read_identity(int dirfd, struct audit_proc *p)
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
	return 0;
}

/* The memfds: the fd table once, the maps once, then the index, then each
 * memfd's mode and seals.  0 or -errno, with p->err_what naming the step. */
static int read_memfds(int dirfd, struct audit_proc *p)
{
	int r;

	p->err_what = "fd";
	r = read_fds(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = "maps";
	r = read_maps(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = "exe";
	if (is_memfd_path(p->exe)) {
		r = add_exe(dirfd, p);
		if (r < 0)
			return r;
	}
	p->err_what = "memfds";
	r = audit_index_memfds(p);
	if (r == 0)
		r = inspect_memfds(dirfd, p);
	if (r < 0)
		return r;
	p->err_what = NULL;
	return 0;
}

/* ---- PID namespaces ---------------------------------------------------------- */

/* The level of the namespace that ns/pid under dirfd is (ns), read now;
 * the fd is closed before this returns.  >= 0, or -errno. */
static int read_level(const struct audit_pidns *ns, int dirfd)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (ns->own)
		return mt_memfd_noexec_read();
	fd = openat(dirfd, "ns/pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_dev != ns->dev || st.st_ino != ns->ino)
		return -ESTALE;
	return nsexec_read_memfd_noexec(fd);
}

/* The process's PID namespace entry; when it is the first process seen
 * there, the entry is added and its level read.  0 or -errno (fatal). */
static int attach_ns(struct audit *a, struct audit_proc *p, int dirfd)
{
	struct audit_pidns *ns;

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
	ns->n_procs = 1;
	p->ns_index = a->n_ns - 1;
	ns->level = read_level(ns, dirfd);
	return fatal_error(ns->level) ? ns->level : 0;
}

static int keep(struct audit_proc **array, size_t *n, struct audit_proc *p)
{
	struct audit_proc *slot = grow(array, n, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	*slot = *p;
	*p = (struct audit_proc){};
	return 0;
}

/* In scope?  For a container, an unreadable process counts when its
 * NSpid depth matches (it may be there); others provably are not. */
static bool in_scope(const struct audit *a, const struct audit_proc *p, bool have_ns)
{
	if (a->scope != AUDIT_SCOPE_CONTAINER)
		return true;
	if (!have_ns)
		return p->ns_depth == a->target_depth;
	return p->ns_dev == a->target_dev && p->ns_ino == a->target_ino;
}

/* Reads /proc/PID into p.  1 if p is to be kept (readable or not), 0 if
 * the process is not to be listed (a kernel thread, a zombie, gone, out of
 * scope), or -errno (fatal, a->fail_* set). */
static int read_proc(struct audit *a, int dirfd, struct audit_proc *p)
{
	bool have_ns = false;
	unsigned flags = 0;
	char state = '?';
	int r;

	p->err_what = "stat";
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
		r = read_identity(dirfd, p);
	have_ns = r == 0;
	if (r == 0 && !in_scope(a, p, true))
		return 0;
	if (r == 0)
		r = read_memfds(dirfd, p);
	if (fatal_error(r)) {
		a->fail_pid = p->pid;
		a->fail_what = p->err_what;
		return r;
	}
	if (gone_error(r)) {
		a->gone++;
		return 0;
	}
	if (r < 0) {
		p->err = -r;
		if (!in_scope(a, p, have_ns))
			return 0;
	}
	return 1;
}

/* One process into a->procs or a->unreadable (or a count).  0 or -errno
 * (fatal); -ESRCH only for AUDIT_SCOPE_PID's target, which must exist. */
static int collect_proc(struct audit *a, pid_t pid)
{
	_cleanup_(audit_proc_done) struct audit_proc p = {.pid = pid, .uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	char path[32];
	int r;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	r = dirfd < 0 ? negative_errno() : 0;
	if (fatal_error(r)) {
		a->fail_pid = pid;
		a->fail_what = "";
		return r;
	}
	if (gone_error(r) && a->scope == AUDIT_SCOPE_PID)
		return -ESRCH;
	if (gone_error(r)) {
		a->gone++;
		return 0;
	}
	if (r < 0) {
		p.err = -r;
		p.err_what = "open";
		return keep(&a->unreadable, &a->n_unreadable, &p);
	}
	r = read_proc(a, dirfd, &p);
	if (r <= 0)
		return r;
	if (p.err)
		return keep(&a->unreadable, &a->n_unreadable, &p);
	r = attach_ns(a, &p, dirfd);
	if (r < 0) {
		a->fail_pid = pid;
		a->fail_what = "ns/pid";
		return r;
	}
	return keep(&a->procs, &a->n_procs, &p);
}

static int scan_all(struct audit *a)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t pid;
	int r;

	a->fail_pid = 0;
	a->fail_what = "";
	if (!d)
		return negative_errno();
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			return errno ? -errno : 0;
		if (audit_parse_pid(de->d_name, &pid) < 0)
			continue;
		r = collect_proc(a, pid);
		if (r < 0)
			return r;
	}
}

/* AUDIT_SCOPE_CONTAINER: the PID namespace of process a->target. */
static int resolve_container(struct audit *a)
{
	_cleanup_(audit_proc_done) struct audit_proc p = {.uid = -1};
	_cleanup_close_ int dirfd = -EBADF;
	struct stat st;
	char path[32];
	int r;

	a->fail_pid = a->target;
	a->fail_what = "ns/pid";
	snprintf(path, sizeof(path), "/proc/%d", (int)a->target);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return gone_error(negative_errno()) ? -ESRCH : negative_errno();
	if (fstatat(dirfd, "ns/pid", &st, 0) < 0)
		return gone_error(negative_errno()) ? -ESRCH : negative_errno();
	a->fail_what = "status";
	r = read_status(dirfd, &p);
	if (r < 0)
		return gone_error(r) ? -ESRCH : r;
	if (st.st_ino == PROC_PID_INIT_INO)
		return -EEXIST;
	a->target_dev = st.st_dev;
	a->target_ino = st.st_ino;
	a->target_depth = p.ns_depth;
	return 0;
}

int audit_collect(struct audit *a)
{
	struct stat st;
	int r;

	if (stat("/proc/thread-self/ns/pid", &st) == 0 || stat("/proc/self/ns/pid", &st) == 0) {
		a->have_self = true;
		a->self_dev = st.st_dev;
		a->self_ino = st.st_ino;
	}
	if (a->scope == AUDIT_SCOPE_CONTAINER) {
		r = resolve_container(a);
		if (r < 0)
			return r;
	}
	if (a->scope == AUDIT_SCOPE_PID)
		return collect_proc(a, a->target);
	return scan_all(a);
}

void audit_done(struct audit *a)
{
	for (size_t i = 0; i < a->n_procs; i++)
		audit_proc_done(&a->procs[i]);
	for (size_t i = 0; i < a->n_unreadable; i++)
		audit_proc_done(&a->unreadable[i]);
	free(a->procs);
	free(a->unreadable);
	free(a->ns);
	a->procs = a->unreadable = NULL;
	a->ns = NULL;
	a->n_procs = a->n_unreadable = a->n_ns = 0;
}
