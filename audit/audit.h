/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: what raising vm.memfd_noexec would break, per process and per PID
 * namespace.  What collection (collect.c, memfds.c and cgroup.c, reading
 * /proc) hands to the verdicts (verdict.c, pure functions), and both hand
 * to the rendering (render.c, text and JSON).  memfd-noexec's audit verb
 * (memfd-noexec/audit.c) holds the options and calls it.  Not installed,
 * never embedded by a runtime.
 */
#ifndef AUDIT_H
#define AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum audit_verdict {
	AUDIT_FINE,	  /* fine at 1 and 2 */
	AUDIT_BREAKS_2,	  /* breaks at 2 only */
	AUDIT_BREAKS_1_2, /* breaks at 1 and 2 */
};

enum audit_basis {
	AUDIT_BASIS_NONE,	/* no executable memfd at all */
	AUDIT_BASIS_SEALS,	/* decided by the x bits and F_SEAL_EXEC */
	AUDIT_BASIS_WORST_CASE, /* two origins look alike; the worse is shown */
	AUDIT_BASIS_UNREADABLE, /* mode and seals unreadable; worst case shown */
};

/*
 * One memfd of a process (one file: one dev and inode), as far as it could
 * be read, and how the process uses it: it runs from it (exe), maps it
 * executable (n_xmaps), or only holds it open (fd).  One file can be all
 * three; the verdict looks at the strongest use.
 */
struct audit_memfd {
	dev_t dev;
	ino_t ino;
	bool id_known; /* false: the executable, whose identity could not be read */
	int err;       /* 0: mode, seals, hugetlb and via are real; else the errno */
	mode_t mode;
	int seals;
	bool hugetlb;
	char via[96]; /* the /proc path it was read through, or whose read failed */
	bool exe;
	size_t n_xmaps;
	int fd;	    /* the lowest fd of the process that holds it, or -1 */
	char *path; /* as /proc shows it: "/memfd:NAME (deleted)", raw bytes */
};

/* An executable mapping of a memfd (r-xp, r-xs, ...). */
struct audit_xmap {
	unsigned long start, end;
	char perms[5];
	dev_t dev; /* the file mapped, as maps shows it */
	ino_t ino;
	size_t memfd; /* index into the process's memfds, once indexed */
};

struct audit_judgement {
	enum audit_verdict verdict;
	enum audit_basis basis;
	const char *tag; /* short form, for the summary; NULL when fine */
	char *reason;	 /* malloc'd */
};

struct audit_proc {
	pid_t pid;
	pid_t ns_pid;	   /* innermost NSpid, 0 if unknown */
	unsigned ns_depth; /* entries in NSpid */
	long uid;	   /* real uid from status, -1 if unknown */
	char *comm;	   /* raw bytes, like every name below */
	char *cgroup;
	char *ctr_id; /* only [A-Za-z0-9_+.-] */
	const char *runtime;
	char *exe;
	bool exe_memfd;
	size_t exe_index; /* with exe_memfd: its entry in memfds */
	struct audit_memfd *memfds;
	size_t n_memfds;
	struct audit_xmap *xmaps; /* in address order */
	size_t n_xmaps;
	dev_t ns_dev;
	ino_t ns_ino;
	int err;	      /* unreadable: the errno */
	const char *err_what; /* and the step that failed ("maps", "fd", ...) */
	size_t ns_index;
	struct audit_judgement j;
	/* CAP_SYS_ADMIN in CapEff or CapPrm (status), and whether the
	 * process is in the initial user namespace (ns/user; false when
	 * unknown): with both it may write vm.memfd_noexec. */
	bool sys_admin, init_userns;
	/* audit_judge_all(): it could lower its namespace's level (see
	 * audit_can_lower()). */
	bool can_lower;
};

struct audit_pidns {
	dev_t dev;
	ino_t ino;
	int level;	  /* >= 0, or -errno of reading it */
	int parent_level; /* the parent namespace's, or -errno (the initial: -ENOENT) */
	bool initial, own;
	const struct audit_proc *label_from; /* whose container id names it */
	enum audit_verdict verdict;
	const struct audit_proc *worst; /* the process that sets the verdict */
	size_t n_procs;
	size_t n_can_lower; /* processes that could lower its level */
};

enum audit_scope { AUDIT_SCOPE_ALL, AUDIT_SCOPE_PID, AUDIT_SCOPE_CONTAINER };

struct audit {
	enum audit_scope scope;
	pid_t target;
	dev_t target_dev; /* AUDIT_SCOPE_CONTAINER: the namespace */
	ino_t target_ino;
	unsigned target_depth;
	bool have_self;
	dev_t self_dev;
	ino_t self_ino;
	struct audit_proc *procs;
	size_t n_procs;
	struct audit_proc *unreadable;
	size_t n_unreadable;
	struct audit_pidns *ns;
	size_t n_ns;
	unsigned kthreads, zombies, gone;
	/* After a failed audit_collect(): where (pid 0: /proc itself). */
	pid_t fail_pid;
	const char *fail_what;
};

/* ---- collect.c ---- */

/*
 * Collects the processes of a->scope (and a->target) and the level of
 * each PID namespace they are in.  0, or -errno with a->fail_pid and
 * a->fail_what naming the step:
 *  -ESRCH   AUDIT_SCOPE_PID or _CONTAINER: no process a->target;
 *  -EEXIST  AUDIT_SCOPE_CONTAINER: a->target is in the initial PID namespace;
 *  -ENOMEM, -EMFILE, -ENFILE: the audit itself ran short (never reported
 *           as a process being unreadable);
 *  else     reading /proc, or the target's namespace, failed.
 */
int audit_collect(struct audit *a);

/*
 * The index (no I/O): sorts p->memfds, one entry per use as collection
 * adds them, by (dev, ino), merges the entries of one file (its uses, its
 * lowest fd, its mode and seals where read), and points each of p->xmaps
 * at its file's entry and p->exe_index at the executable's.  0, or
 * -EPROTO for a mapping whose file has no entry.
 */
int audit_index_memfds(struct audit_proc *p);

/* A PID as options and /proc write it: decimal, 1 to INT_MAX.  0, or
 * -EINVAL / -ERANGE. */
int audit_parse_pid(const char *s, pid_t *ret);
void audit_proc_done(struct audit_proc *p);
void audit_done(struct audit *a);

/* The memfd that an executable mapping maps. */
static inline const struct audit_memfd *audit_xmap_memfd(const struct audit_proc *p,
							 const struct audit_xmap *x)
{
	return &p->memfds[x->memfd];
}

/* ---- verdict.c (no I/O) ---- */

const char *audit_verdict_str(enum audit_verdict v);
const char *audit_basis_str(enum audit_basis b);
/* "(worst case)": the kernel could not tell, so the worse is shown. */
bool audit_worst_case(enum audit_basis b);

/*
 * The verdict on one memfd, by its strongest use: the process runs from it,
 * else maps it executable, else only holds it.  0, or -ENOMEM.
 */
int audit_judge_memfd(const struct audit_memfd *m, struct audit_judgement *ret);

/*
 * p->j: the worst of p's memfds' verdicts, a certain one before a worst
 * case, the executable first on a tie; notes for hugetlbfs and for a
 * namespace already at the level that breaks it (level: the namespace's,
 * or -errno when unknown).  0, or -ENOMEM.
 */
int audit_judge_proc(struct audit_proc *p, int level);

/*
 * Whether p could lower the level of its PID namespace ns: ns is not the
 * initial one, its level is above its parent's (a level asked for: a
 * runtime or the hook raised it; when the parent's is unknown, any level
 * above 0), and p holds CAP_SYS_ADMIN in the initial user namespace (no
 * user namespace of its own), so that it may write the sysctl down to the
 * parent's level.  The runtimes refuse such a process at create, and an
 * exec that adds CAP_SYS_ADMIN; a process that joins the namespace
 * without a request (a sidecar, setns) is checked by nobody but this.
 */
bool audit_can_lower(const struct audit_proc *p, const struct audit_pidns *ns);

/* Every process judged, and each namespace's verdict, worst process and
 * label.  0, or -ENOMEM. */
int audit_judge_all(struct audit *a);

/* Listed one by one (not only counted) in the report. */
bool audit_listed(const struct audit *a, const struct audit_proc *p);

/* ---- render.c ---- */

/* 0, or -errno (-ENOMEM, or writing stdout failed). */
int audit_print_text(const struct audit *a);
int audit_print_json(const struct audit *a);

#endif
