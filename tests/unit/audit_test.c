/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the audit library's verdicts (audit/verdict.c) and its
 * memfd index (audit_index_memfds), as tables: what collection read about
 * a memfd or a process, then the verdict, its basis ("(worst case)" or
 * not) and words the reason must (or must not) hold.  `audit_test ROW`
 * runs one row of any table, or one case.
 *
 * Each memfd row names how the process uses the memfd (runs from it, maps
 * it executable, only holds it), its mode and seals as the kernel leaves
 * them, hugetlbfs or not, and whether they could be read.  For reference
 * (docs/kernel.md): MFD_EXEC gives 0777; F_SEAL_EXEC added to an executable
 * memfd adds the write seals (0x3e, 0x3f with F_SEAL_SEAL); a flagless
 * memfd made at 1 or 2 comes out 0666 with F_SEAL_EXEC (0x20); one made
 * at 0 comes out 0777 (0xf after runc 1.1's seals, 0x1 without
 * MFD_ALLOW_SEALING).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "macro.h"
#include "unit-cases.h"

enum use { EXE, MAP, FD, EXE_MAPPED, MAP_AND_FD };

#define F 0
#define B2 1
#define B12 2
#define NONE 0
#define SEALS 1
#define WORST 2
#define UNREAD 3

static const struct memfd_row {
	const char *name;
	enum use use;
	unsigned mode;
	int seals;
	bool hugetlb;
	int err;
	const char *via;
	int want, basis;
	const char *reason_has;
} memfd_rows[] = {
	/* The process runs from the memfd. */
	{"exe_unreadable", EXE, 0, 0, false, EACCES, "/proc/9/exe", B12, UNREAD,
	 "/proc/9/exe: Permission denied"},
	{"exe_mfd_exec_sealed", EXE, 0555, 0x3f, false, 0, NULL, B2, SEALS, "i.e. with MFD_EXEC"},
	{"exe_mfd_exec_sealed_0777", EXE, 0777, 0x3e, false, 0, NULL, B2, SEALS, "MFD_EXEC"},
	{"exe_hugetlb_exec_sealed", EXE, 0755, 0x3f, true, 0, NULL, B2, WORST, "then chmod'ed"},
	{"exe_exec_sealed_no_x", EXE, 0444, 0x3f, false, 0, NULL, B12, WORST,
	 "x bits were removed"},
	{"exe_flagless_level0", EXE, 0777, 0xf, false, 0, NULL, B12, WORST, "keeps no record"},
	{"exe_flagless_no_sealing", EXE, 0777, 0x1, false, 0, NULL, B12, WORST,
	 "without F_SEAL_EXEC"},
	{"exe_hugetlb_flagless", EXE, 0777, 0x1, true, 0, NULL, B12, WORST, "without F_SEAL_EXEC"},
	{"exe_and_mapped_mfd_exec", EXE_MAPPED, 0555, 0x3f, false, 0, NULL, B2, SEALS, "runs from"},
	{"exe_and_mapped_flagless", EXE_MAPPED, 0777, 0xf, false, 0, NULL, B12, WORST, "runs from"},
	/* The process maps the memfd executable and does not run from it. */
	{"map_unreadable_map_files", MAP, 0, 0, false, EPERM, "/proc/9/map_files/1000-2000", B2,
	 UNREAD, "map_files needs CAP_SYS_ADMIN"},
	{"map_unreadable_fd", MAP, 0, 0, false, EACCES, "/proc/9/fd/3", B2, UNREAD,
	 "/proc/9/fd/3: Permission denied"},
	{"map_noexec_sealed", MAP, 0666, 0x20, false, 0, NULL, F, SEALS, "MFD_NOEXEC_SEAL"},
	{"map_noexec_write_sealed", MAP, 0644, 0x3e, false, 0, NULL, F, SEALS, "non-executable"},
	{"map_hugetlb_noexec_sealed", MAP, 0666, 0x20, true, 0, NULL, F, SEALS, "non-executable"},
	{"map_mfd_exec_sealed", MAP, 0777, 0x3e, false, 0, NULL, B2, SEALS, "i.e. with MFD_EXEC"},
	{"map_mfd_exec_sealed_0555", MAP, 0555, 0x3f, false, 0, NULL, B2, SEALS, "level 1 allows"},
	{"map_mfd_exec_unsealed", MAP, 0777, 0x0, false, 0, NULL, B2, WORST, "as JITs do"},
	{"map_hugetlb_exec_sealed", MAP, 0755, 0x3f, true, 0, NULL, B2, WORST, "then chmod'ed"},
	{"map_flagless_level0", MAP, 0777, 0xf, false, 0, NULL, B2, WORST, "keeps no record"},
	{"map_no_x_no_exec_seal", MAP, 0666, 0x0, false, 0, NULL, B2, WORST, "without F_SEAL_EXEC"},
	{"map_and_fd_flagless", MAP_AND_FD, 0777, 0x0, false, 0, NULL, B2, WORST, "maps a memfd"},
	{"map_and_fd_noexec", MAP_AND_FD, 0666, 0x20, false, 0, NULL, F, SEALS, "maps a"},
	/* The process only holds an fd of the memfd. */
	{"fd_unreadable", FD, 0, 0, false, EACCES, "/proc/9/fd/4", B2, UNREAD,
	 "/proc/9/fd/4: Permission denied"},
	{"fd_mfd_exec_sealed", FD, 0555, 0x3f, false, 0, NULL, B2, SEALS, "i.e. with MFD_EXEC"},
	{"fd_mfd_exec_sealed_0777", FD, 0777, 0x3e, false, 0, NULL, B2, SEALS, "(fd 4)"},
	{"fd_hugetlb_exec_sealed", FD, 0755, 0x3f, true, 0, NULL, B2, WORST, "then chmod'ed"},
	{"fd_data_level0", FD, 0777, 0x0, false, 0, NULL, F, NONE, "a data memfd"},
	{"fd_data_level0_sealed", FD, 0777, 0xf, false, 0, NULL, F, NONE, "a data memfd"},
	{"fd_noexec", FD, 0666, 0x20, false, 0, NULL, F, NONE, "a data memfd"},
	{"fd_exec_seal_no_x", FD, 0644, 0x3e, false, 0, NULL, F, NONE, "a data memfd"},
};

static const struct memfd_row *memfd_row(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(memfd_rows); i++)
		if (strcmp(memfd_rows[i].name, name) == 0)
			return &memfd_rows[i];
	return NULL;
}

static void fill_memfd(const struct memfd_row *t, size_t i, struct audit_memfd *m)
{
	*m = (struct audit_memfd){
		.dev = 1,
		.ino = 100 + i,
		.id_known = true,
		.err = t->err,
		.mode = t->mode,
		.seals = t->seals,
		.hugetlb = t->hugetlb,
		.exe = t->use == EXE || t->use == EXE_MAPPED,
		.n_xmaps = t->use == MAP || t->use == EXE_MAPPED || t->use == MAP_AND_FD,
		.fd = t->use == FD || t->use == MAP_AND_FD ? 4 : -1,
		.path = (char *)"/memfd:x (deleted)",
	};
	snprintf(m->via, sizeof(m->via), "%s", t->via ? t->via : "/proc/9/fd/4");
}

static int check_judgement(const char *what, const struct audit_judgement *j, int want, int basis,
			   const char *has)
{
	if ((int)j->verdict != want || (int)j->basis != basis)
		FAIL("%s: verdict '%s' (%s), want '%s' (%s); reason: %s", what,
		     audit_verdict_str(j->verdict), audit_basis_str(j->basis),
		     audit_verdict_str(want), audit_basis_str(basis), j->reason);
	if (audit_worst_case(j->basis) != (basis == WORST || basis == UNREAD))
		FAIL("%s: worst-case flag wrong for basis %s", what, audit_basis_str(j->basis));
	if ((j->tag == NULL) != (want == F))
		FAIL("%s: tag '%s' for verdict '%s'", what, j->tag ? j->tag : "(null)",
		     audit_verdict_str(j->verdict));
	if (!j->reason || (has && !strstr(j->reason, has)))
		FAIL("%s: reason lacks '%s': %s", what, has, j->reason ? j->reason : "(null)");
	return 0;
}

static int run_memfd_row(const struct memfd_row *t)
{
	struct audit_judgement j = {};
	struct audit_memfd m;
	int r;

	fill_memfd(t, 0, &m);
	if (audit_judge_memfd(&m, &j) < 0)
		FAIL("%s: audit_judge_memfd failed", t->name);
	r = check_judgement(t->name, &j, t->want, t->basis, t->reason_has);
	free(j.reason);
	return r;
}

/*
 * A process: its memfds (memfd rows by name, in this order; the first
 * that runs from its memfd is the executable), its namespace's level, and
 * the verdict.  With both_orders the memfds are judged in reverse order
 * too, with the same outcome.
 */
static const struct proc_row {
	const char *name;
	const char *memfds[3];
	int level;
	bool both_orders;
	int want, basis;
	const char *reason_has, *reason_lacks;
} proc_rows[] = {
	{"proc_no_memfd", {NULL}, 0, false, F, NONE, "neither runs from a memfd", NULL},
	{"proc_data_memfds_only",
	 {"fd_data_level0", "fd_noexec"},
	 0,
	 true,
	 F,
	 NONE,
	 "the 2 memfds it holds show no sign of MFD_EXEC",
	 NULL},
	{"proc_mfd_exec_mapped_only",
	 {"map_mfd_exec_sealed"},
	 0,
	 false,
	 B2,
	 SEALS,
	 "i.e. with MFD_EXEC",
	 NULL},
	{"proc_worst_of_two_maps",
	 {"map_noexec_sealed", "map_flagless_level0"},
	 0,
	 true,
	 B2,
	 WORST,
	 "maps a memfd without F_SEAL_EXEC",
	 NULL},
	{"proc_worst_of_fine_and_mfd_exec",
	 {"map_noexec_sealed", "map_mfd_exec_sealed"},
	 0,
	 true,
	 B2,
	 SEALS,
	 "made executable on purpose",
	 NULL},
	{"proc_worst_of_fd_mfd_exec_and_map",
	 {"fd_mfd_exec_sealed", "map_noexec_sealed"},
	 0,
	 true,
	 B2,
	 SEALS,
	 "holds a memfd (fd 4)",
	 NULL},
	{"proc_worst_of_exe_and_map",
	 {"exe_flagless_level0", "map_mfd_exec_sealed"},
	 0,
	 true,
	 B12,
	 WORST,
	 "runs from an executable memfd",
	 NULL},
	{"proc_worst_of_three",
	 {"fd_data_level0", "map_noexec_sealed", "exe_exec_sealed_no_x"},
	 0,
	 true,
	 B12,
	 WORST,
	 "x bits were removed",
	 NULL},
	{"proc_certain_beats_worst_case",
	 {"map_flagless_level0", "map_mfd_exec_sealed"},
	 0,
	 true,
	 B2,
	 SEALS,
	 "i.e. with MFD_EXEC",
	 NULL},
	{"proc_certain_beats_unreadable",
	 {"map_unreadable_fd", "fd_mfd_exec_sealed"},
	 0,
	 true,
	 B2,
	 SEALS,
	 "holds a memfd",
	 NULL},
	{"proc_mapped_fine_beats_none",
	 {"fd_data_level0", "map_noexec_sealed"},
	 0,
	 true,
	 F,
	 SEALS,
	 "MFD_NOEXEC_SEAL",
	 NULL},
	{"proc_exe_first_on_tie",
	 {"map_unreadable_fd", "exe_hugetlb_exec_sealed"},
	 0,
	 true,
	 B2,
	 WORST,
	 "runs from a hugetlbfs memfd",
	 NULL},
	{"proc_note_level_2_breaks_2",
	 {"map_mfd_exec_sealed"},
	 2,
	 false,
	 B2,
	 SEALS,
	 "its PID namespace is already at 2",
	 NULL},
	{"proc_no_note_level_1_breaks_2",
	 {"map_mfd_exec_sealed"},
	 1,
	 false,
	 B2,
	 SEALS,
	 NULL,
	 "already at"},
	{"proc_note_level_1_breaks_1",
	 {"exe_flagless_level0"},
	 1,
	 false,
	 B12,
	 WORST,
	 "its PID namespace is already at 1",
	 NULL},
	{"proc_note_level_2_breaks_1",
	 {"exe_flagless_level0"},
	 2,
	 false,
	 B12,
	 WORST,
	 "already at 2",
	 NULL},
	{"proc_no_note_level_0", {"exe_flagless_level0"}, 0, false, B12, WORST, NULL, "already at"},
	{"proc_no_note_level_unknown",
	 {"exe_flagless_level0"},
	 -EPERM,
	 false,
	 B12,
	 WORST,
	 NULL,
	 "already at"},
	{"proc_no_note_when_fine", {"map_noexec_sealed"}, 2, false, F, SEALS, NULL, "already at"},
	{"proc_hugetlb_note",
	 {"map_hugetlb_exec_sealed", "map_noexec_sealed"},
	 0,
	 true,
	 B2,
	 WORST,
	 "it is on hugetlbfs",
	 NULL},
	{"proc_hugetlb_note_only_for_the_worst",
	 {"map_hugetlb_noexec_sealed", "map_mfd_exec_sealed"},
	 0,
	 true,
	 B2,
	 SEALS,
	 NULL,
	 "on hugetlbfs"},
	{"proc_no_hugetlb_note_unreadable",
	 {"map_unreadable_fd"},
	 0,
	 false,
	 B2,
	 UNREAD,
	 NULL,
	 "on hugetlbfs"},
};

static int judge_proc_memfds(const struct proc_row *t, bool reverse)
{
	struct audit_memfd memfds[3];
	struct audit_proc p = {.memfds = memfds};
	size_t n = 0;
	char what[128];
	int r;

	while (n < ELEMENTSOF(t->memfds) && t->memfds[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		const struct memfd_row *m = memfd_row(t->memfds[reverse ? n - 1 - i : i]);

		if (!m)
			FAIL("%s: no memfd row '%s'", t->name, t->memfds[i]);
		fill_memfd(m, i, &memfds[i]);
		if (memfds[i].exe && !p.exe_memfd) {
			p.exe_memfd = true;
			p.exe_index = i;
		}
		p.n_xmaps += memfds[i].n_xmaps;
	}
	p.n_memfds = n;
	if (audit_judge_proc(&p, t->level) < 0)
		FAIL("%s: audit_judge_proc failed", t->name);
	snprintf(what, sizeof(what), "%s%s", t->name, reverse ? " (reversed)" : "");
	r = check_judgement(what, &p.j, t->want, t->basis, t->reason_has);
	if (r == 0 && t->reason_lacks && strstr(p.j.reason, t->reason_lacks)) {
		fprintf(stderr, "%s: reason holds '%s': %s\n", what, t->reason_lacks, p.j.reason);
		r = 1;
	}
	free(p.j.reason);
	return r;
}

static int run_proc_row(const struct proc_row *t)
{
	int r = judge_proc_memfds(t, false);

	if (r == 0 && t->both_orders)
		r = judge_proc_memfds(t, true);
	return r;
}

/* ---- namespaces: the worst process, a certain one first ---------------------- */

/* Processes in one namespace, each with one memfd (a memfd row, or NULL
 * for none); the namespace's verdict and the process that sets it. */
static int ns_case(const char *const *memfds, size_t n, int want, size_t want_worst)
{
	struct audit_memfd m[4];
	struct audit_proc procs[4] = {};
	struct audit_pidns ns = {.level = 0};
	struct audit a = {.procs = procs, .n_procs = n, .ns = &ns, .n_ns = 1};
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		procs[i].pid = (pid_t)(10 + i);
		if (!memfds[i])
			continue;
		fill_memfd(memfd_row(memfds[i]), i, &m[i]);
		procs[i].memfds = &m[i];
		procs[i].n_memfds = 1;
		procs[i].exe_memfd = m[i].exe;
		procs[i].n_xmaps = m[i].n_xmaps;
	}
	if (audit_judge_all(&a) < 0)
		FAIL("audit_judge_all failed");
	if ((int)ns.verdict != want || ns.worst != &procs[want_worst]) {
		fprintf(stderr, "namespace: '%s' set by pid %d, want '%s' set by pid %d\n",
			audit_verdict_str(ns.verdict), ns.worst ? (int)ns.worst->pid : -1,
			audit_verdict_str(want), (int)procs[want_worst].pid);
		r = 1;
	}
	for (size_t i = 0; i < n; i++)
		free(procs[i].j.reason);
	return r;
}

static int case_ns_worst_process_last(void)
{
	const char *m[] = {NULL, "map_noexec_sealed", "exe_flagless_level0"};

	return ns_case(m, 3, B12, 2);
}

static int case_ns_worst_process_first(void)
{
	const char *m[] = {"exe_flagless_level0", "map_noexec_sealed", NULL};

	return ns_case(m, 3, B12, 0);
}

static int case_ns_certain_process_shown(void)
{
	const char *m[] = {"map_flagless_level0", "fd_mfd_exec_sealed"};

	return ns_case(m, 2, B2, 1);
}

static int case_ns_all_fine(void)
{
	const char *m[] = {NULL, "fd_data_level0"};

	return ns_case(m, 2, F, 0);
}

/* ---- the index ---------------------------------------------------------------- */

/* Entries as collection adds them: one per fd, one per mapping, the
 * executable. */
static struct audit_memfd entry(dev_t dev, ino_t ino, int fd, size_t n_xmaps, bool exe)
{
	return (struct audit_memfd){.dev = dev,
				    .ino = ino,
				    .id_known = true,
				    .err = ENODATA,
				    .fd = fd,
				    .n_xmaps = n_xmaps,
				    .exe = exe,
				    .path = strdup("/memfd:x (deleted)")};
}

static void free_proc(struct audit_proc *p)
{
	for (size_t i = 0; i < p->n_memfds; i++)
		free(p->memfds[i].path);
}

/* Two memfds with one inode number on two filesystems (shmem and
 * hugetlbfs number their inodes each on their own): two entries. */
static int case_index_same_ino_other_dev(void)
{
	struct audit_memfd m[] = {entry(1, 7, 3, 0, false), entry(2, 7, -1, 1, false)};
	struct audit_xmap x[] = {{.start = 0x1000, .end = 0x2000, .dev = 2, .ino = 7}};
	struct audit_proc p = {.memfds = m, .n_memfds = 2, .xmaps = x, .n_xmaps = 1};
	int r = 0;

	if (audit_index_memfds(&p) < 0)
		FAIL("audit_index_memfds failed");
	if (p.n_memfds != 2)
		r = 1, fprintf(stderr, "%zu entries, want 2\n", p.n_memfds);
	else if (m[x[0].memfd].dev != 2 || m[x[0].memfd].fd != -1 ||
		 m[1 - x[0].memfd].n_xmaps != 0 || m[1 - x[0].memfd].fd != 3)
		r = 1, fprintf(stderr, "the mapping of (2, 7) is bound to the wrong memfd\n");
	free_proc(&p);
	return r;
}

/* One memfd held by two fds and mapped twice, among others: one entry,
 * its lowest fd, both mappings on it. */
static int case_index_merges_one_file(void)
{
	struct audit_memfd m[] = {entry(1, 9, 5, 0, false),  entry(1, 7, -1, 1, false),
				  entry(1, 9, 3, 0, false),  entry(1, 9, -1, 1, false),
				  entry(1, 9, -1, 1, false), entry(1, 8, 4, 0, false)};
	struct audit_xmap x[] = {{.dev = 1, .ino = 7}, {.dev = 1, .ino = 9}, {.dev = 1, .ino = 9}};
	struct audit_proc p = {.memfds = m, .n_memfds = 6, .xmaps = x, .n_xmaps = 3};
	const struct audit_memfd *nine;
	int r = 0;

	if (audit_index_memfds(&p) < 0)
		FAIL("audit_index_memfds failed");
	nine = &m[x[1].memfd];
	if (p.n_memfds != 3 || x[1].memfd != x[2].memfd || nine->ino != 9 || nine->fd != 3 ||
	    nine->n_xmaps != 2 || m[x[0].memfd].ino != 7 || m[x[0].memfd].fd != -1)
		r = 1, fprintf(stderr, "wrong merge: %zu entries, fd %d, %zu mappings\n",
			       p.n_memfds, nine->fd, nine->n_xmaps);
	free_proc(&p);
	return r;
}

/* The executable, read through /proc/PID/exe, and its own mapping: one
 * entry that keeps what was read. */
static int case_index_exe_keeps_its_read(void)
{
	struct audit_memfd m[] = {entry(1, 5, -1, 1, false), entry(1, 4, 3, 0, false),
				  entry(1, 5, -1, 0, true)};
	struct audit_xmap x[] = {{.dev = 1, .ino = 5}};
	struct audit_proc p = {.memfds = m, .n_memfds = 3, .xmaps = x, .n_xmaps = 1};
	int r = 0;

	m[2].err = 0;
	m[2].mode = 0555;
	m[2].seals = 0x3f;
	if (audit_index_memfds(&p) < 0)
		FAIL("audit_index_memfds failed");
	if (p.n_memfds != 2 || !p.exe_memfd || p.exe_index != x[0].memfd ||
	    m[p.exe_index].err != 0 || m[p.exe_index].mode != 0555 || m[p.exe_index].n_xmaps != 1)
		r = 1, fprintf(stderr, "the executable's entry is wrong\n");
	free_proc(&p);
	return r;
}

/* An executable whose identity could not be read stays apart. */
static int case_index_unknown_exe(void)
{
	struct audit_memfd m[] = {entry(0, 0, -1, 0, true), entry(0, 0, 3, 0, false)};
	struct audit_proc p = {.memfds = m, .n_memfds = 2};
	int r = 0;

	m[0].id_known = false;
	m[0].err = EACCES;
	if (audit_index_memfds(&p) < 0)
		FAIL("audit_index_memfds failed");
	if (p.n_memfds != 2 || !p.exe_memfd || m[p.exe_index].id_known ||
	    m[p.exe_index].err != EACCES)
		r = 1, fprintf(stderr, "the unknown executable was merged or lost\n");
	free_proc(&p);
	return r;
}

/* 4000 memfds, each held and mapped, added in the worst order: each
 * mapping lands on its own memfd. */
static int case_index_many(void)
{
	enum { N = 4000 };
	struct audit_memfd *m = calloc(2 * N, sizeof(*m));
	struct audit_xmap *x = calloc(N, sizeof(*x));
	struct audit_proc p = {.memfds = m, .n_memfds = 2 * N, .xmaps = x, .n_xmaps = N};
	int r = 0;

	if (!m || !x)
		FAIL("out of memory");
	for (size_t i = 0; i < N; i++) {
		m[i] = entry(1, 2 * N - i, (int)(3 + i), 0, false);
		m[N + i] = entry(1, N + 1 + i, -1, 1, false);
		x[i] = (struct audit_xmap){.dev = 1, .ino = N + 1 + i};
	}
	if (audit_index_memfds(&p) < 0)
		FAIL("audit_index_memfds failed");
	if (p.n_memfds != N)
		r = 1, fprintf(stderr, "%zu entries, want %d\n", p.n_memfds, N);
	for (size_t i = 0; r == 0 && i < N; i++) {
		const struct audit_memfd *e = &m[x[i].memfd];

		if (e->ino != x[i].ino || e->n_xmaps != 1 || e->fd != (int)(3 + 2 * N - x[i].ino))
			r = 1, fprintf(stderr, "mapping %zu on inode %ju fd %d\n", i,
				       (uintmax_t)e->ino, e->fd);
	}
	free_proc(&p);
	free(m);
	free(x);
	return r;
}

/* ---- who could lower a level ---------------------------------------------------- */

/*
 * audit_can_lower(), as a table: the namespace (initial, level, parent's
 * level or -errno), the process (CAP_SYS_ADMIN, initial user namespace),
 * and whether it could lower the level.
 */
static int case_can_lower_table(void)
{
	static const struct {
		bool initial;
		int level, parent;
		bool sys_admin, init_userns, want;
	} rows[] = {
		{false, 2, 0, true, true, true},      /* asked for 2 on a host at 0 */
		{false, 1, 0, true, true, true},      /* asked for 1 */
		{false, 2, 1, true, true, true},      /* 2 above a parent at 1 */
		{false, 2, 2, true, true, false},     /* as its parent: nothing to lower to */
		{false, 0, 0, true, true, false},     /* nothing asked */
		{false, 2, -EPERM, true, true, true}, /* parent unknown: above 0 */
		{false, 0, -EPERM, true, true, false},
		{false, -EPERM, 0, true, true, false}, /* level unknown */
		{false, 2, 0, false, true, false},     /* no CAP_SYS_ADMIN */
		{false, 2, 0, true, false, false},     /* a user namespace of its own */
		{true, 2, -ENOENT, true, true, false}, /* the host's: not a container's */
	};

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		struct audit_pidns ns = {.initial = rows[i].initial,
					 .level = rows[i].level,
					 .parent_level = rows[i].parent};
		struct audit_proc p = {.sys_admin = rows[i].sys_admin,
				       .init_userns = rows[i].init_userns};

		if (audit_can_lower(&p, &ns) != rows[i].want)
			FAIL("row %zu: audit_can_lower() is %d, expected %d", i, !rows[i].want,
			     rows[i].want);
	}
	return 0;
}

static const struct unit_case cases[] = {
	{"ns_worst_process_last", case_ns_worst_process_last},
	{"ns_worst_process_first", case_ns_worst_process_first},
	{"ns_certain_process_shown", case_ns_certain_process_shown},
	{"ns_all_fine", case_ns_all_fine},
	{"index_same_ino_other_dev", case_index_same_ino_other_dev},
	{"index_merges_one_file", case_index_merges_one_file},
	{"index_exe_keeps_its_read", case_index_exe_keeps_its_read},
	{"index_unknown_exe", case_index_unknown_exe},
	{"index_many", case_index_many},
	{"can_lower_table", case_can_lower_table},
};

int main(int argc, char *argv[])
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s ROW\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < ELEMENTSOF(memfd_rows); i++)
		if (strcmp(argv[1], memfd_rows[i].name) == 0)
			return run_memfd_row(&memfd_rows[i]);
	for (size_t i = 0; i < ELEMENTSOF(proc_rows); i++)
		if (strcmp(argv[1], proc_rows[i].name) == 0)
			return run_proc_row(&proc_rows[i]);
	for (size_t i = 0; i < ELEMENTSOF(cases); i++)
		if (strcmp(argv[1], cases[i].name) == 0)
			return cases[i].fn();
	fprintf(stderr, "%s: no row or case '%s'\n", argv[0], argv[1]);
	return 2;
}
