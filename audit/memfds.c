/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: a process's memfds.  Its fd table once and its maps once,
 * streamed, into one list of memfds sorted by (dev, inode); each memfd's
 * mode and seals read once through an fd of it (collect.c describes the
 * whole collection and its cost).
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

#include "audit.h"
#include "collect-internal.h"
#include "fd-util.h"
#include "macro.h"
#include "memfd-sysctl.h"
#include "missing-syscall.h"
#include "nsexec.h"
#include "parse.h"

#define PF_KTHREAD_FLAG 0x00200000U /* include/linux/sched.h */

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

/* The memfds: the fd table once, the maps once, then the index, then each
 * memfd's mode and seals.  0 or -errno, with p->err_what naming the step. */
int audit_read_memfds(int dirfd, struct audit_proc *p)
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
