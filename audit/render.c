/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: rendering, as text or as one JSON document (through
 * policy/json-writer.h).  Names from /proc (comm, memfd names, cgroups) are
 * chosen by whoever runs there: the text shows them through mt_escape()
 * (printable ASCII only); the JSON carries them as they are when they are
 * UTF-8, else escaped the same way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "escape.h"
#include "json-writer.h"
#include "macro.h"

/* ---- names and memfds ------------------------------------------------------ */

/* s, escaped, to f. */
static void put_name(FILE *f, const char *s)
{
	size_t len = strlen(s);
	char buf[256];

	while (len > 0) {
		size_t k = mt_escape(buf, sizeof(buf), s, len, SIZE_MAX);

		fputs(buf, f);
		if (k == 0)
			break; /* cannot happen: buf holds any one escape */
		s += k;
		len -= k;
	}
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

/* "/proc/1/fd/3: Permission denied" */
static const char *memfd_error(const struct audit_memfd *m, char *buf, size_t size)
{
	if (m->via[0])
		snprintf(buf, size, "%s: %s", m->via, strerror(m->err));
	else
		snprintf(buf, size, "%s", strerror(m->err));
	return buf;
}

/* Held only: neither run from nor mapped executable. */
static bool fd_only(const struct audit_memfd *m)
{
	return !m->exe && m->n_xmaps == 0;
}

/* "host", the container id, or "pidns:[N]". */
static const char *ns_label(const struct audit_pidns *ns, char *buf, size_t size)
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
			"vm.memfd_noexec unknown (%s: reading another PID namespace's value needs CAP_SYS_ADMIN over the user namespace that owns it)",
			strerror(-level));
	else
		snprintf(buf, size, "vm.memfd_noexec unknown (%s)", strerror(-level));
}

/* ---- text report ------------------------------------------------------------ */

static void print_memfd(const char *what, const char *path, const struct audit_memfd *m)
{
	char names[96], err[128];

	printf("    %s ", what);
	put_name(stdout, path);
	if (m->err) {
		printf(": mode and seals unreadable (%s)\n", memfd_error(m, err, sizeof(err)));
		return;
	}
	printf(": mode %04o, seals 0x%x (%s)%s, read through %s\n", (unsigned)m->mode,
	       (unsigned)m->seals, seal_names(m->seals, names, sizeof(names)),
	       m->hugetlb ? ", hugetlbfs" : "", m->via);
}

static void print_proc(const struct audit *a, const struct audit_proc *p,
		       const struct audit_pidns *ns)
{
	printf("  %d ", (int)p->pid);
	put_name(stdout, p->comm);
	if (p->ns_pid > 0 && p->ns_pid != p->pid)
		printf(" (PID %d inside)", (int)p->ns_pid);
	if (p->ctr_id && (!ns->label_from || strcmp(p->ctr_id, ns->label_from->ctr_id) != 0))
		printf(" [%s %s]", p->runtime, p->ctr_id);
	printf(": %s%s\n", audit_verdict_str(p->j.verdict),
	       audit_worst_case(p->j.basis) ? " (worst case)" : "");
	printf("    why: %s\n", p->j.reason);
	if (p->can_lower)
		printf("    CAN LOWER THE LEVEL: it holds CAP_SYS_ADMIN in the initial user namespace (the container has no user namespace of its own), so it may write vm.memfd_noexec down from %d to %d; drop CAP_SYS_ADMIN from it, or give the container a user namespace\n",
		       ns->level, ns->parent_level >= 0 ? ns->parent_level : 0);
	if (p->exe_memfd) {
		print_memfd("exe", p->exe, &p->memfds[p->exe_index]);
	} else if (a->scope != AUDIT_SCOPE_ALL) {
		printf("    exe ");
		put_name(stdout, p->exe);
		putchar('\n');
	}
	for (size_t i = 0; i < p->n_xmaps; i++) {
		const struct audit_xmap *x = &p->xmaps[i];
		const struct audit_memfd *m = audit_xmap_memfd(p, x);
		char what[80];

		snprintf(what, sizeof(what), "map %lx-%lx %s", x->start, x->end, x->perms);
		if (m->exe) {
			printf("    %s: the executable's own image\n", what);
		} else {
			print_memfd(what, m->path, m);
		}
	}
	for (size_t i = 0; i < p->n_memfds; i++) {
		const struct audit_memfd *m = &p->memfds[i];
		char what[32];

		if (!fd_only(m))
			continue;
		snprintf(what, sizeof(what), "fd %d", m->fd);
		print_memfd(what, m->path, m);
	}
}

static void print_ns(const struct audit *a, size_t idx)
{
	const struct audit_pidns *ns = &a->ns[idx];
	size_t shown = 0, others = 0;
	char level[192];

	printf("PID namespace %ju", (uintmax_t)ns->ino);
	if (ns->initial)
		printf(" (the host's)");
	if (ns->own)
		printf(" (this audit's)");
	if (ns->label_from) {
		printf(", container %s (%s, cgroup ", ns->label_from->ctr_id,
		       ns->label_from->runtime);
		put_name(stdout, ns->label_from->cgroup ? ns->label_from->cgroup : "?");
		putchar(')');
	}
	level_text(ns->level, level, sizeof(level));
	printf(": %s\n", level);
	for (size_t i = 0; i < a->n_procs; i++) {
		const struct audit_proc *p = &a->procs[i];

		if (p->ns_index != idx)
			continue;
		if (audit_listed(a, p)) {
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

/* " 12 comm (maps: Permission denied)" */
static char *unreadable_item(const struct audit_proc *p, bool last)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	fprintf(f, " %d ", (int)p->pid);
	put_name(f, p->comm ? p->comm : "?");
	fprintf(f, " (%s: %s)%s", p->err_what, strerror(p->err), last ? "" : ",");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int print_unreadable(const struct audit *a)
{
	bool denied = false;
	size_t col = 4;

	if (a->n_unreadable == 0)
		return 0;
	for (size_t i = 0; i < a->n_unreadable; i++)
		denied = denied || a->unreadable[i].err == EACCES || a->unreadable[i].err == EPERM;
	printf("unreadable: %zu process%s, not audited%s:\n   ", a->n_unreadable,
	       a->n_unreadable == 1 ? "" : "es",
	       denied && geteuid() != 0 ? " (reading another user's process needs root)" : "");
	for (size_t i = 0; i < a->n_unreadable; i++) {
		_cleanup_free_ char *item =
			unreadable_item(&a->unreadable[i], i + 1 == a->n_unreadable);
		size_t n;

		if (!item)
			return -ENOMEM;
		n = strlen(item);
		if (col + n > 79 && col > 4) {
			printf("\n   ");
			col = 4;
		}
		fputs(item, stdout);
		col += n;
	}
	printf("\n\n");
	return 0;
}

/* ---- summary ------------------------------------------------------------------ */

static size_t count_ns(const struct audit *a, enum audit_verdict at_least)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_ns; i++)
		n += a->ns[i].verdict >= at_least;
	return n;
}

/* Processes in namespace idx whose verdict is at least at_least. */
static size_t count_procs(const struct audit *a, size_t idx, enum audit_verdict at_least)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_procs; i++)
		n += a->procs[i].ns_index == idx && a->procs[i].j.verdict >= at_least;
	return n;
}

/* "<label> (<comm>[<pid>]: <tag>[, worst case])" for each namespace whose
 * verdict is at least at_least (just the label with short). */
static void list_breaking(FILE *f, const struct audit *a, enum audit_verdict at_least,
			  bool short_form)
{
	const char *sep = ": ";
	char buf[48];
	size_t n;

	for (size_t i = 0; i < a->n_ns; i++) {
		const struct audit_pidns *ns = &a->ns[i];
		const struct audit_proc *w = ns->worst;

		if (ns->verdict < at_least || !w)
			continue;
		fprintf(f, "%s%s", sep, ns_label(ns, buf, sizeof(buf)));
		sep = ", ";
		if (short_form)
			continue;
		fputs(" (", f);
		put_name(f, w->comm);
		fprintf(f, "[%d]: %s%s", (int)w->pid, w->j.tag,
			audit_worst_case(w->j.basis) ? ", worst case" : "");
		n = count_procs(a, i, at_least);
		if (n > 1)
			fprintf(f, "; and %zu more", n - 1);
		fputc(')', f);
	}
}

/* The one summary line, malloc'd.  0 or -ENOMEM. */
static size_t count_can_lower(const struct audit *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_ns; i++)
		n += a->ns[i].n_can_lower;
	return n;
}

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
	fprintf(f, "; %zu would break at level 2", count_ns(a, AUDIT_BREAKS_2));
	list_breaking(f, a, AUDIT_BREAKS_2, false);
	fprintf(f, "; %zu would break at level 1", count_ns(a, AUDIT_BREAKS_1_2));
	list_breaking(f, a, AUDIT_BREAKS_1_2, true);
	fprintf(f, "; %zu unreadable", a->n_unreadable);
	if (count_can_lower(a) > 0)
		fprintf(f, "; %zu process%s could lower the level of %s PID namespace",
			count_can_lower(a), count_can_lower(a) == 1 ? "" : "es",
			count_can_lower(a) == 1 ? "its" : "their");
	if (fclose(f) != 0) {
		free(buf);
		return -ENOMEM;
	}
	*ret = buf;
	return 0;
}

int audit_print_text(const struct audit *a)
{
	_cleanup_free_ char *line = NULL;
	int r;

	for (size_t i = 0; i < a->n_ns; i++)
		print_ns(a, i);
	r = print_unreadable(a);
	if (r < 0)
		return r;
	printf("not audited: %u kernel thread%s, %u zombie%s, %u gone while reading\n", a->kthreads,
	       a->kthreads == 1 ? "" : "s", a->zombies, a->zombies == 1 ? "" : "s", a->gone);
	r = summary_line(a, &line);
	if (r < 0)
		return r;
	printf("summary: %s\n", line);
	return 0;
}

/* ---- JSON report -------------------------------------------------------------- */

typedef struct policy_json_writer jw;

/* A name: as it is when it is UTF-8 (the writer escapes what JSON must),
 * else escaped like the text; NULL as null. */
static void json_name(jw *w, const char *key, const char *s)
{
	_cleanup_free_ char *esc = NULL;
	size_t len;

	if (!s) {
		(void)policy_json_writer_add_null(w, key);
		return;
	}
	len = strlen(s);
	if (mt_utf8_valid(s, len)) {
		(void)policy_json_writer_add_string(w, key, s);
		return;
	}
	esc = malloc(len * MT_ESCAPE_MAX_PER_CHAR + 1);
	if (!esc) {
		(void)policy_json_writer_add_null(w, key);
		return;
	}
	(void)mt_escape(esc, len * MT_ESCAPE_MAX_PER_CHAR + 1, s, len, SIZE_MAX);
	(void)policy_json_writer_add_string(w, key, esc);
}

static void json_memfd(jw *w, const struct audit_memfd *m)
{
	char mode[8], names[96], err[128];

	if (m->err) {
		(void)policy_json_writer_add_null(w, "mode");
		(void)policy_json_writer_add_null(w, "seals");
		(void)policy_json_writer_add_string(w, "error", memfd_error(m, err, sizeof(err)));
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

static void json_maps(jw *w, const struct audit_proc *p)
{
	char hex[24];

	(void)policy_json_writer_open_array(w, "exec_maps");
	for (size_t i = 0; i < p->n_xmaps; i++) {
		const struct audit_xmap *x = &p->xmaps[i];
		const struct audit_memfd *m = audit_xmap_memfd(p, x);

		(void)policy_json_writer_open_object(w, NULL);
		snprintf(hex, sizeof(hex), "%lx", x->start);
		(void)policy_json_writer_add_string(w, "start", hex);
		snprintf(hex, sizeof(hex), "%lx", x->end);
		(void)policy_json_writer_add_string(w, "end", hex);
		(void)policy_json_writer_add_string(w, "perms", x->perms);
		json_name(w, "path", m->path);
		(void)policy_json_writer_add_int(w, "inode", (long long)x->ino);
		(void)policy_json_writer_add_bool(w, "of_exe", m->exe);
		json_memfd(w, m);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

/* The memfds the process only holds. */
static void json_fds(jw *w, const struct audit_proc *p)
{
	(void)policy_json_writer_open_array(w, "memfd_fds");
	for (size_t i = 0; i < p->n_memfds; i++) {
		const struct audit_memfd *m = &p->memfds[i];

		if (!fd_only(m))
			continue;
		(void)policy_json_writer_open_object(w, NULL);
		(void)policy_json_writer_add_int(w, "fd", m->fd);
		json_name(w, "path", m->path);
		(void)policy_json_writer_add_int(w, "inode", (long long)m->ino);
		json_memfd(w, m);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

/* What every process entry has, readable or not. */
static void json_proc_head(jw *w, const struct audit_proc *p)
{
	(void)policy_json_writer_add_int(w, "pid", p->pid);
	if (p->ns_pid > 0)
		(void)policy_json_writer_add_int(w, "ns_pid", p->ns_pid);
	else
		(void)policy_json_writer_add_null(w, "ns_pid");
	json_name(w, "comm", p->comm);
	if (p->uid >= 0)
		(void)policy_json_writer_add_int(w, "uid", p->uid);
	else
		(void)policy_json_writer_add_null(w, "uid");
	json_name(w, "cgroup", p->cgroup);
	json_name(w, "container_id", p->ctr_id);
	json_name(w, "runtime", p->runtime);
}

static void json_proc(jw *w, const struct audit_proc *p)
{
	(void)policy_json_writer_open_object(w, NULL);
	json_proc_head(w, p);
	(void)policy_json_writer_add_string(w, "verdict", audit_verdict_str(p->j.verdict));
	(void)policy_json_writer_add_string(w, "basis", audit_basis_str(p->j.basis));
	(void)policy_json_writer_add_bool(w, "breaks_at_1", p->j.verdict == AUDIT_BREAKS_1_2);
	(void)policy_json_writer_add_bool(w, "breaks_at_2", p->j.verdict != AUDIT_FINE);
	json_name(w, "tag", p->j.tag);
	(void)policy_json_writer_add_string(w, "reason", p->j.reason);
	(void)policy_json_writer_add_bool(w, "sys_admin", p->sys_admin);
	(void)policy_json_writer_add_bool(w, "initial_user_namespace", p->init_userns);
	(void)policy_json_writer_add_bool(w, "can_lower", p->can_lower);
	(void)policy_json_writer_open_object(w, "exe");
	json_name(w, "path", p->exe);
	(void)policy_json_writer_add_bool(w, "memfd", p->exe_memfd);
	if (p->exe_memfd)
		json_memfd(w, &p->memfds[p->exe_index]);
	(void)policy_json_writer_close_object(w);
	json_maps(w, p);
	json_fds(w, p);
	(void)policy_json_writer_close_object(w);
}

static void json_level(jw *w, int level)
{
	char text[192];

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
	const struct audit_pidns *ns = &a->ns[idx];
	char buf[48];

	(void)policy_json_writer_open_object(w, NULL);
	(void)policy_json_writer_add_int(w, "pid_namespace", (long long)ns->ino);
	(void)policy_json_writer_add_string(w, "label", ns_label(ns, buf, sizeof(buf)));
	(void)policy_json_writer_add_bool(w, "initial", ns->initial);
	(void)policy_json_writer_add_bool(w, "own", ns->own);
	json_level(w, ns->level);
	if (ns->parent_level >= 0)
		(void)policy_json_writer_add_int(w, "parent_level", ns->parent_level);
	else
		(void)policy_json_writer_add_null(w, "parent_level");
	(void)policy_json_writer_add_int(w, "can_lower", (long long)ns->n_can_lower);
	if (ns->label_from) {
		(void)policy_json_writer_open_object(w, "container");
		(void)policy_json_writer_add_string(w, "id", ns->label_from->ctr_id);
		(void)policy_json_writer_add_string(w, "runtime", ns->label_from->runtime);
		json_name(w, "cgroup", ns->label_from->cgroup);
		(void)policy_json_writer_close_object(w);
	} else {
		(void)policy_json_writer_add_null(w, "container");
	}
	(void)policy_json_writer_add_string(w, "verdict", audit_verdict_str(ns->verdict));
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
		const struct audit_proc *p = &a->unreadable[i];

		(void)policy_json_writer_open_object(w, NULL);
		json_proc_head(w, p);
		snprintf(what, sizeof(what), "%s: %s", p->err_what, strerror(p->err));
		(void)policy_json_writer_add_string(w, "error", what);
		(void)policy_json_writer_close_object(w);
	}
	(void)policy_json_writer_close_array(w);
}

static void json_breaking(jw *w, const char *key, const struct audit *a,
			  enum audit_verdict at_least)
{
	char buf[48];

	(void)policy_json_writer_open_array(w, key);
	for (size_t i = 0; i < a->n_ns; i++) {
		const struct audit_pidns *ns = &a->ns[i];

		if (ns->verdict < at_least || !ns->worst)
			continue;
		(void)policy_json_writer_open_object(w, NULL);
		(void)policy_json_writer_add_string(w, "label", ns_label(ns, buf, sizeof(buf)));
		(void)policy_json_writer_add_int(w, "pid_namespace", (long long)ns->ino);
		(void)policy_json_writer_add_int(w, "pid", ns->worst->pid);
		json_name(w, "comm", ns->worst->comm);
		(void)policy_json_writer_add_string(w, "tag", ns->worst->j.tag);
		(void)policy_json_writer_add_bool(w, "worst_case",
						  audit_worst_case(ns->worst->j.basis));
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
	(void)policy_json_writer_add_int(w, "can_lower", (long long)count_can_lower(a));
	json_breaking(w, "break_at_2", a, AUDIT_BREAKS_2);
	json_breaking(w, "break_at_1", a, AUDIT_BREAKS_1_2);
	(void)policy_json_writer_add_string(w, "line", line);
	(void)policy_json_writer_close_object(w);
}

int audit_print_json(const struct audit *a)
{
	_cleanup_(policy_json_writer_freep) jw *w = NULL;
	_cleanup_free_ char *line = NULL;
	static const char *const scopes[] = {"all", "pid", "container-pid"};
	int r;

	r = summary_line(a, &line);
	if (r < 0)
		return r;
	r = policy_json_writer_new_object(&w);
	if (r < 0)
		return r;
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
