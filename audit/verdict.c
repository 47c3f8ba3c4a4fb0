/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: the verdicts.  Pure functions of what collection
 * read (collect.c); tests/unit/audit_test.c tests them as a table.
 *
 * What the levels do (Linux 6.6+, measured on 6.18; see docs/kernel.md,
 * "memfds and their exec bit"):
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
 *    1 and 2).  vm.memfd_noexec only governs execve() and MFD_EXEC.
 *
 * The kernel keeps no record of the flags a memfd was made with; what a
 * memfd shows is its mode and seals, and how the process uses it: runs
 * from it, maps it executable, or only holds an fd of it.  So, by the
 * strongest use (audit_judge_memfd):
 *  - x bits with F_SEAL_EXEC: the seal was added after creation while the
 *    file was executable (F_SEAL_EXEC forbids changing x bits, and
 *    MFD_NOEXEC_SEAL takes them away), i.e. the memfd was made executable
 *    on purpose by a program that knows the 6.3 API: we take that as
 *    MFD_EXEC, "breaks at 2 only", whether the process runs from it, maps
 *    it or only holds it (runc >= 1.2's parent holds the clone it starts
 *    runc init from).  A program could in principle make it without a
 *    flag at level 0 and seal it; we do not claim otherwise.  On hugetlbfs
 *    the kernel does not enforce F_SEAL_EXEC (docs/kernel.md): there the memfd
 *    may as well have been made without a flag at 1 or 2 and chmod'ed
 *    afterwards, which keeps working, so "breaks at 2 only" is the worst
 *    case there.
 *  - x bits without F_SEAL_EXEC: made without a flag at level 0, or with
 *    MFD_EXEC.  Both give 0777 and the same seals.  For a process that
 *    runs from it that means "breaks at 1 and 2" or "at 2 only"; for one
 *    that only maps it, "fine" or "breaks at 2 only".  We show the worse
 *    and say "worst case".  For one that only holds it, the memfd looks
 *    like every data memfd made at level 0 (a shared buffer), which
 *    works at every level; only running or mapping it would break, so
 *    it counts as fine: flagging every data memfd would drown the report.
 *  - F_SEAL_EXEC without x bits: made with MFD_NOEXEC_SEAL, or without a
 *    flag at level 1 or 2: it cannot be executed, only mapped, and mapping
 *    works at every level: "fine at 2".  A process that runs from such a
 *    memfd had it executable when it executed it (the x bits went after):
 *    worst case, "breaks at 1 and 2".
 *  - mode and seals unreadable (a user auditing a process that is not
 *    dumpable, a mapping whose fd is closed without CAP_SYS_ADMIN): worst
 *    case, and the reason says which read failed and why.
 * Whatever level 2 breaks, level 1 breaks only a subset of; so "breaks
 * at 1 and 2", "breaks at 2 only" and "fine at 2" cover every case.  A
 * process's verdict is the worst of its memfds' (audit_judge_proc), a
 * namespace's the worst of its processes'.
 *
 * Where a memfd is made matters too: runc makes runc init's clone in its
 * own PID namespace, before the container's exists, so the container's
 * level (the memfd_noexec annotation) never reaches it; the host's
 * sysctl does.  The reason notes a process whose namespace is already at
 * the level its verdict says would break it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "macro.h"
#include "missing-syscall.h"

const char *audit_verdict_str(enum audit_verdict v)
{
	switch (v) {
	case AUDIT_FINE:
		return "fine at 2";
	case AUDIT_BREAKS_2:
		return "breaks at 2 only";
	default:
		return "breaks at 1 and 2";
	}
}

const char *audit_basis_str(enum audit_basis b)
{
	static const char *const names[] = {"no executable memfd", "seals", "worst case",
					    "unreadable"};

	return names[b];
}

bool audit_worst_case(enum audit_basis b)
{
	return b == AUDIT_BASIS_WORST_CASE || b == AUDIT_BASIS_UNREADABLE;
}

/* Into *ret (its reason replaced, the old one freed) only on success. */
_printf_(5, 6) static int judge_set(struct audit_judgement *ret, enum audit_verdict v,
				    enum audit_basis b, const char *tag, const char *fmt, ...)
{
	char *reason = NULL;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&reason, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	free(ret->reason);
	*ret = (struct audit_judgement){.verdict = v, .basis = b, .tag = tag, .reason = reason};
	return 0;
}

static bool executable(const struct audit_memfd *m)
{
	return (m->mode & 0111) != 0;
}

static bool exec_sealed(const struct audit_memfd *m)
{
	return (m->seals & F_SEAL_EXEC) != 0;
}

/* "fd/3: Permission denied", or the map_files case in plain words. */
static const char *read_error(const struct audit_memfd *m, char *buf, size_t size)
{
	if (m->err == EPERM && strstr(m->via, "/map_files/"))
		snprintf(
			buf, size,
			"%s: %s: the process holds no fd of it, and /proc/PID/map_files needs CAP_SYS_ADMIN",
			m->via, strerror(m->err));
	else if (m->via[0])
		snprintf(buf, size, "%s: %s", m->via, strerror(m->err));
	else
		snprintf(buf, size, "%s", strerror(m->err));
	return buf;
}

/* The process runs from memfd m (execve() worked, so it was executable
 * when executed). */
static int judge_exe(const struct audit_memfd *m, struct audit_judgement *j)
{
	char why[192];

	if (m->err)
		return judge_set(
			j, AUDIT_BREAKS_1_2, AUDIT_BASIS_UNREADABLE,
			"runs from a memfd (seals unreadable)",
			"runs from a memfd whose mode and seals could not be read (%s): it was made executable, either with MFD_EXEC (refused at 2) or without a flag at level 0 (not executable at 1 and 2); worst case shown",
			read_error(m, why, sizeof(why)));
	if (exec_sealed(m) && executable(m) && !m->hugetlb)
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_SEALS, "runs from an MFD_EXEC memfd",
			"runs from a memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made executable on purpose, i.e. with MFD_EXEC, which level 2 refuses (EACCES) unless the program falls back to a file; level 1 allows it",
			(unsigned)m->mode, (unsigned)m->seals);
	if (exec_sealed(m) && executable(m))
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_WORST_CASE,
			"runs from a hugetlbfs memfd sealed with F_SEAL_EXEC",
			"runs from a hugetlbfs memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made with MFD_EXEC, which level 2 refuses (EACCES), or without a flag at level 1 or 2 and then chmod'ed, which keeps working; the kernel keeps no record of which, so the worst case is shown",
			(unsigned)m->mode, (unsigned)m->seals);
	if (exec_sealed(m))
		return judge_set(
			j, AUDIT_BREAKS_1_2, AUDIT_BASIS_WORST_CASE,
			"runs from a memfd whose x bits were removed",
			"runs from a memfd sealed with F_SEAL_EXEC without x bits (mode %04o, seals 0x%x): it was executable when executed, so it was made with MFD_EXEC (refused at 2) or without a flag at level 0 (not executable at 1 and 2), and its x bits were removed before the seal; the kernel keeps no record of which, so the worst case is shown",
			(unsigned)m->mode, (unsigned)m->seals);
	return judge_set(
		j, AUDIT_BREAKS_1_2, AUDIT_BASIS_WORST_CASE,
		"runs from a memfd without F_SEAL_EXEC",
		"runs from an executable memfd without F_SEAL_EXEC (mode %04o, seals 0x%x): made without an exec flag at level 0, it would come out 0666 and sealed at 1 and 2, and execve() fails (EACCES); made with MFD_EXEC, only level 2 refuses it; the kernel keeps no record of which, so the worst case is shown",
		(unsigned)m->mode, (unsigned)m->seals);
}

/* The process maps memfd m executable, and does not run from it. */
static int judge_map(const struct audit_memfd *m, struct audit_judgement *j)
{
	char why[192];

	if (m->err)
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_UNREADABLE,
			"maps a memfd executable (seals unreadable)",
			"maps a memfd executable whose mode and seals could not be read (%s): mapping a memfd PROT_EXEC works at every level, but if it was made with MFD_EXEC, level 2 refuses to create it; worst case shown",
			read_error(m, why, sizeof(why)));
	if (exec_sealed(m) && !executable(m))
		return judge_set(
			j, AUDIT_FINE, AUDIT_BASIS_SEALS, NULL,
			"maps a non-executable memfd (mode %04o, seals 0x%x, F_SEAL_EXEC) executable: made with MFD_NOEXEC_SEAL or without a flag at level 1 or 2, and mmap(PROT_EXEC) ignores x bits and F_SEAL_EXEC at every level",
			(unsigned)m->mode, (unsigned)m->seals);
	if (exec_sealed(m) && !m->hugetlb)
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_SEALS, "maps an MFD_EXEC memfd executable",
			"maps a memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made executable on purpose, i.e. with MFD_EXEC, which level 2 refuses (EACCES); level 1 allows it",
			(unsigned)m->mode, (unsigned)m->seals);
	if (exec_sealed(m))
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_WORST_CASE,
			"maps a hugetlbfs memfd sealed with F_SEAL_EXEC executable",
			"maps a hugetlbfs memfd sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x): made with MFD_EXEC, which level 2 refuses (EACCES), or without a flag at level 1 or 2 and then chmod'ed, and mapping it works at every level; the kernel keeps no record of which, so the worst case is shown",
			(unsigned)m->mode, (unsigned)m->seals);
	return judge_set(
		j, AUDIT_BREAKS_2, AUDIT_BASIS_WORST_CASE,
		"maps a memfd without F_SEAL_EXEC executable",
		"maps a memfd without F_SEAL_EXEC (mode %04o, seals 0x%x) executable: made without an exec flag (as JITs do), it keeps working at 1 and 2, since mmap(PROT_EXEC) ignores x bits and F_SEAL_EXEC; made with MFD_EXEC, level 2 refuses to create it; the kernel keeps no record of which, so the worst case is shown",
		(unsigned)m->mode, (unsigned)m->seals);
}

/* The process only holds an fd of memfd m: it neither runs from it nor
 * maps it executable. */
static int judge_fd(const struct audit_memfd *m, struct audit_judgement *j)
{
	char why[192];

	if (m->err)
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_UNREADABLE,
			"holds a memfd (seals unreadable)",
			"holds a memfd (fd %d) whose mode and seals could not be read (%s): if it was made with MFD_EXEC, level 2 refuses to create it; worst case shown",
			m->fd, read_error(m, why, sizeof(why)));
	if (exec_sealed(m) && executable(m) && !m->hugetlb)
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_SEALS, "holds an MFD_EXEC memfd",
			"holds a memfd (fd %d) sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x) without running or mapping it: made executable on purpose, i.e. with MFD_EXEC, which level 2 refuses (EACCES); level 1 allows it",
			m->fd, (unsigned)m->mode, (unsigned)m->seals);
	if (exec_sealed(m) && executable(m))
		return judge_set(
			j, AUDIT_BREAKS_2, AUDIT_BASIS_WORST_CASE,
			"holds a hugetlbfs memfd sealed with F_SEAL_EXEC",
			"holds a hugetlbfs memfd (fd %d) sealed with F_SEAL_EXEC yet executable (mode %04o, seals 0x%x) without running or mapping it: made with MFD_EXEC, which level 2 refuses (EACCES), or without a flag at level 1 or 2 and then chmod'ed, which keeps working; the kernel keeps no record of which, so the worst case is shown",
			m->fd, (unsigned)m->mode, (unsigned)m->seals);
	return judge_set(
		j, AUDIT_FINE, AUDIT_BASIS_NONE, NULL,
		"holds a memfd (fd %d, mode %04o, seals 0x%x) without running or mapping it executable, and nothing shows it was made with MFD_EXEC: a data memfd, which works at every level",
		m->fd, (unsigned)m->mode, (unsigned)m->seals);
}

int audit_judge_memfd(const struct audit_memfd *m, struct audit_judgement *ret)
{
	struct audit_judgement j = {};
	int r;

	if (m->exe)
		r = judge_exe(m, &j);
	else if (m->n_xmaps > 0)
		r = judge_map(m, &j);
	else
		r = judge_fd(m, &j);
	if (r < 0)
		return r;
	free(ret->reason);
	*ret = j;
	return 0;
}

/* How sure a judgement is, for ties: a certain verdict outranks a worst
 * case, which outranks having no executable memfd at all. */
static int certainty(enum audit_basis b)
{
	return b == AUDIT_BASIS_SEALS ? 2 : b == AUDIT_BASIS_NONE ? 0 : 1;
}

/* Does judgement a outrank b: a worse verdict, or the same one more
 * surely?  On a full tie the one seen first stays. */
static bool outranks(const struct audit_judgement *a, const struct audit_judgement *b)
{
	if (a->verdict != b->verdict)
		return a->verdict > b->verdict;
	return certainty(a->basis) > certainty(b->basis);
}

/* Appends to j->reason. */
_printf_(2, 3) static int reason_append(struct audit_judgement *j, const char *fmt, ...)
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

/* The i-th memfd in judging order: the executable's first. */
static const struct audit_memfd *nth_memfd(const struct audit_proc *p, size_t i)
{
	if (!p->exe_memfd)
		return &p->memfds[i];
	if (i == 0)
		return &p->memfds[p->exe_index];
	return &p->memfds[i <= p->exe_index ? i - 1 : i];
}

int audit_judge_proc(struct audit_proc *p, int level)
{
	_cleanup_free_ char *cur_reason = NULL;
	struct audit_judgement best = {}, cur = {};
	const struct audit_memfd *worst_m = NULL;
	int r;

	r = judge_set(&best, AUDIT_FINE, AUDIT_BASIS_NONE, NULL,
		      "no executable memfd: it neither runs from a memfd nor maps one executable");
	for (size_t i = 0; r == 0 && i < p->n_memfds; i++) {
		const struct audit_memfd *m = nth_memfd(p, i);

		r = audit_judge_memfd(m, &cur);
		if (r == 0 && outranks(&cur, &best)) {
			free(best.reason);
			best = cur;
			cur = (struct audit_judgement){};
			worst_m = m;
		}
	}
	cur_reason = cur.reason;
	if (r == 0 && !worst_m && p->n_memfds > 0)
		r = judge_set(
			&best, AUDIT_FINE, AUDIT_BASIS_NONE, NULL,
			"no executable memfd: it neither runs from a memfd nor maps one executable, and the %zu memfd%s it holds show%s no sign of MFD_EXEC (data memfds work at every level)",
			p->n_memfds, p->n_memfds == 1 ? "" : "s", p->n_memfds == 1 ? "s" : "");
	if (r == 0 && worst_m && worst_m->err == 0 && worst_m->hugetlb)
		r = reason_append(
			&best,
			"; it is on hugetlbfs, where the kernel does not enforce F_SEAL_EXEC");
	if (r == 0 && best.verdict != AUDIT_FINE &&
	    level >= (best.verdict == AUDIT_BREAKS_2 ? 2 : 1))
		r = reason_append(
			&best,
			"; note: its PID namespace is already at %d, so the memfd was made before that or in another PID namespace (a runtime makes runc init's clone in its own)",
			level);
	if (r < 0) {
		free(best.reason);
		return r;
	}
	free(p->j.reason);
	p->j = best;
	return 0;
}

bool audit_can_lower(const struct audit_proc *p, const struct audit_pidns *ns)
{
	int floor = ns->parent_level >= 0 ? ns->parent_level : 0;

	return !ns->initial && ns->level > floor && p->sys_admin && p->init_userns;
}

int audit_judge_all(struct audit *a)
{
	for (size_t i = 0; i < a->n_ns; i++) {
		a->ns[i].worst = NULL;
		a->ns[i].label_from = NULL;
		a->ns[i].verdict = AUDIT_FINE;
		a->ns[i].n_can_lower = 0;
	}
	for (size_t i = 0; i < a->n_procs; i++) {
		struct audit_proc *p = &a->procs[i];
		struct audit_pidns *ns = &a->ns[p->ns_index];
		int r;

		r = audit_judge_proc(p, ns->level);
		if (r < 0)
			return r;
		p->can_lower = audit_can_lower(p, ns);
		ns->n_can_lower += p->can_lower;
		if (!ns->worst || outranks(&p->j, &ns->worst->j)) {
			ns->verdict = p->j.verdict;
			ns->worst = p;
		}
		if (p->ctr_id && (!ns->label_from || p->ns_pid == 1))
			ns->label_from = p;
	}
	return 0;
}

bool audit_listed(const struct audit *a, const struct audit_proc *p)
{
	return a->scope != AUDIT_SCOPE_ALL || p->exe_memfd || p->n_xmaps > 0 ||
	       p->j.verdict != AUDIT_FINE || p->can_lower;
}
