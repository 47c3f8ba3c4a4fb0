/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recognising a clone on the overlay (overlay.c makes it): whose files no
 * one else can rewrite (the owner rule, shared with overlay.c's trust
 * checks), the overlays this process made itself, and the proof that a
 * file's overlay is read-only in its superblock, without an upper layer,
 * which fails closed.  cb_overlay_is_sealed() is what is_sealed() asks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cb-internal.h"
#include "missing-syscall.h"
#include "fd-util.h"
#include "fork-report.h"
#include "parse.h"

/* ---- the overlays we made ------------------------------------------------
 *
 * The mounts of the last few overlays this process made, held open by
 * their mount fds (close-on-exec).  Holding the fd keeps the mount in its
 * anonymous namespace, so its ID names it and no other while it is here,
 * and no one else holds it to change its flags.  Such a file is known to
 * be on a read-only overlay without an upper layer, because we made it so:
 * cloned_binary_exec() of our own clone needs no proof of the superblock
 * (which, from 6.15, could not be given for a mount whose fd is closed).
 */
#define OWN_MOUNTS 4

static struct {
	pthread_mutex_t lock;
	int fd[OWN_MOUNTS]; /* fd + 1; 0 is an empty slot */
	int id[OWN_MOUNTS];
	unsigned next;
} own = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int mount_id_of(int fd);

/* Takes mnt (closing it if the ID of file cannot be read). */
void cb_overlay_own_register(int mnt, int file)
{
	int id = mount_id_of(file), old;

	if (id < 0 || mnt < 0) {
		safe_close(mnt);
		return;
	}
	(void)pthread_mutex_lock(&own.lock);
	old = own.fd[own.next % OWN_MOUNTS] - 1;
	own.fd[own.next % OWN_MOUNTS] = mnt + 1;
	own.id[own.next % OWN_MOUNTS] = id;
	own.next++;
	(void)pthread_mutex_unlock(&own.lock);
	safe_close(old);
}

static bool own_mount(int id)
{
	bool found = false;

	(void)pthread_mutex_lock(&own.lock);
	for (size_t i = 0; i < OWN_MOUNTS && !found; i++)
		found = own.fd[i] > 0 && own.id[i] == id;
	(void)pthread_mutex_unlock(&own.lock);
	return found;
}

/* ---- recognising it ----------------------------------------------------- */

/*
 * Where global root is unmapped in our user namespace (rootless podman's,
 * `unshare -U -r`), every owner that is unmapped here shows as
 * /proc/sys/kernel/overflowuid (65534): root's files, and every other
 * unmapped user's, alike.  The kernel shows it so for /proc/sys's own
 * files too, which belong to global root: the overflow uid is what we
 * read when overflowuid's owner shows as the value it holds.  In the
 * initial namespace, or where root is mapped, that uid is an ordinary
 * user ("nobody") and this is -1.  Read each time (three system calls,
 * made only for an owner that is neither root nor us): a process that
 * enters a user namespace (unshare, setns) must not keep the answer of
 * the one it left.
 */
long cloned_binary_unmapped_uid(void)
{
	char buf[32] = "";
	struct statfs sfs;
	uint64_t value;
	struct stat st;
	const char *end;
	long v = -1;
	int fd, n;

	/* Only procfs's own file counts (a file mounted over it could say
	 * anything); unreadable, the overflow uid is just another user. */
	fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = (int)read(fd, buf, sizeof(buf) - 1);
		if (n > 0 && fstat(fd, &st) == 0 && st.st_uid != 0 && fstatfs(fd, &sfs) == 0 &&
		    (unsigned long)sfs.f_type == PROC_SUPER_MAGIC &&
		    mt_parse_uint(buf, UINT32_MAX, &value, &end) == 0 &&
		    (*end == '\n' || *end == '\0') && value == (uint64_t)st.st_uid)
			v = (long)st.st_uid;
		(void)close(fd);
	}
	return v;
}

int cloned_binary_exe_is(int exe_fd, const char *path)
{
	struct stat a, b;

	if (!path || path[0] != '/')
		return -EINVAL;
	if (fstat(exe_fd, &a) < 0)
		return negative_errno();
	if (stat(path, &b) < 0)
		return errno == ENOENT ? 0 : negative_errno();
	return S_ISREG(b.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Root, or us: the owners whose files no one else can rewrite.  Where
 * root is unmapped, root's files show as the overflow uid, and so do
 * every other unmapped user's: such an owner counts as root only when the
 * caller proved it (overflow_is_root, the option overflow_uid_is_root),
 * else it is CB_OWNER_UNMAPPED, which cannot be told from here.
 */
enum cb_owner cb_owner_of(uid_t uid, bool overflow_is_root)
{
	if (uid == 0 || uid == geteuid())
		return CB_OWNER_TRUSTED;
	if ((long)uid != cloned_binary_unmapped_uid())
		return CB_OWNER_OTHER;
	return overflow_is_root ? CB_OWNER_TRUSTED : CB_OWNER_UNMAPPED;
}

/* The mount ID of the file open at fd (fdinfo's "mnt_id:", 3.15+). */
static int mount_id_of(int fd)
{
	char buf[512];
	const char *v;
	int id, r;

	r = read_fdinfo_field(fd, "mnt_id", buf, sizeof(buf), &v);
	if (r < 0)
		return r == -ENODATA ? -EBADMSG : r;
	if (mt_parse_int(v, INT_MAX, &id, &v) < 0 || *v != '\n')
		return -EBADMSG;
	return id;
}

/*
 * 1 if mount ID id is in our mount namespace's mountinfo, 0 if not.  Whole
 * lines, however long: a mount point can make a line longer than any
 * buffer, and its tail must never pass for a line of its own (whose first
 * field would be read as a mount ID).
 */
static int mount_attached(int id)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t size = 0;
	int first;

	if (!f)
		return negative_errno();
	while (getline(&line, &size, f) >= 0) {
		const char *end;

		if (mt_parse_int(line, INT_MAX, &first, &end) == 0 && *end == ' ' && first == id)
			return 1;
	}
	return ferror(f) ? -EIO : 0;
}

/*
 * The child of superblock_sealed(), in a mount namespace of its own (a
 * private copy of ours, gone when it exits): it attaches the clone at a
 * file on a new tmpfs, so that mountinfo shows it, and copies its
 * mountinfo to out.  System calls only: it is forked from a process that
 * may have threads.  Exits 0, or with the errno of the failed step.
 */
_noreturn_ static void proof_child(int out, const void *data)
{
	const int clone = *(const int *)data;
	static const char *const dirs[] = {"/tmp", "/run", "/mnt", "/dev"};
	char buf[4096];
	int ctx, tmp, f, info;
	ssize_t n;

	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(errno & 0xff);
	ctx = missing_fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (ctx < 0 || missing_fsconfig(ctx, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		_exit(errno & 0xff);
	tmp = missing_fsmount(ctx, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (tmp < 0)
		_exit(errno & 0xff);
	for (size_t i = 0;; i++) {
		if (i == ELEMENTSOF(dirs))
			_exit(errno & 0xff);
		if (missing_move_mount(tmp, "", AT_FDCWD, dirs[i], MOVE_MOUNT_F_EMPTY_PATH) == 0)
			break;
	}
	f = openat(tmp, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (f < 0 || missing_move_mount(clone, "", tmp, "f", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		_exit(errno & 0xff);
	info = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (info < 0)
		_exit(errno & 0xff);
	while ((n = read(info, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			_exit(EPIPE);
	_exit(n < 0 ? errno & 0xff : 0);
}

/*
 * From an overlay's mountinfo line: 1 if its superblock options begin
 * with "ro" and name no upper layer, 0 if not, -EBADMSG if the line is no
 * overlay's.  Option values are escaped (seq_show_option: ",= \t\n\\"),
 * so a directory's name cannot forge an "upperdir=".
 */
static int options_sealed(const char *line)
{
	const char *p = strstr(line, " - ");

	if (!p || strncmp(p + 3, "overlay ", 8) != 0)
		return -EBADMSG;
	p = strchr(p + 11, ' '); /* after the source */
	if (!p)
		return -EBADMSG;
	p++;
	if (strncmp(p, "ro,", 3) != 0 && strcmp(p, "ro\n") != 0)
		return 0;
	for (; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, "upperdir=", 9) == 0)
			return 0;
	return 1;
}

/*
 * 1 if the superblock of the overlay at fd is read-only and has no upper
 * layer, so that no one, its owner included, can ever make it writable;
 * 0 if it is writable or has one; -errno if that cannot be told here, with
 * *ret_clone_failed set when open_tree() itself refused.  A read-only
 * mount flag looks the same to statfs() and open(O_WRONLY), and its owner
 * can clear it, so the superblock itself must be seen; mountinfo shows its
 * options, but only for attached mounts.  So a clone of the mount
 * (open_tree: the same superblock; ours is not touched) is attached in a
 * child's private mount namespace.  Needs CAP_SYS_ADMIN over our mount
 * namespace (else EPERM) and a kernel that clones a detached mount (6.15+,
 * else EINVAL).  About a millisecond.  (statmount() would do without the
 * clone, but up to 6.18 it sees no detached mount: ENOENT, measured; it
 * takes a file descriptor only from 6.19, STATMOUNT_BY_FD.)
 */
static int superblock_sealed(int fd, bool *ret_clone_failed)
{
	_cleanup_close_ int clone = -EBADF;
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	int rd, id, status, r = -ENOENT;
	size_t size = 0;
	pid_t pid;

	*ret_clone_failed = false;
	clone = missing_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (clone < 0) {
		*ret_clone_failed = true;
		return negative_errno();
	}
	id = mount_id_of(clone);
	if (id < 0)
		return id;
	/* The report is the child's whole mountinfo: read as a stream. */
	pid = mt_fork_pipe(proof_child, &clone, &rd);
	if (pid < 0)
		return pid;
	f = fdopen(rd, "re");
	if (!f)
		(void)close(rd);
	while (f && getline(&line, &size, f) >= 0) {
		const char *end;
		int first;

		if (mt_parse_int(line, INT_MAX, &first, &end) == 0 && *end == ' ' && first == id)
			r = options_sealed(line);
	}
	status = mt_fork_wait(pid);
	if (!f)
		return -ENOMEM;
	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) != 0)
		return -WEXITSTATUS(status);
	return r;
}

/*
 * The file we run from ourselves.  Its EROFS above is enough: a mount
 * flag's EROFS would have come after ETXTBSY, its mount is in no namespace
 * once its maker closed the mount fd (so no one can change its flags), and
 * no write reaches an inode being executed, through any mount of the
 * superblock (ETXTBSY), so not even a copy-up to an upper layer.
 */
static bool is_own_exe(const struct stat *st)
{
	struct stat exe;

	return stat("/proc/self/exe", &exe) == 0 && exe.st_dev == st->st_dev &&
	       exe.st_ino == st->st_ino;
}

/*
 * Whether this kernel clones a detached mount at all (6.15+): open_tree()
 * of a new detached tmpfs of our own.  1 yes, 0 no (EINVAL), -errno if it
 * cannot be told; cached once known.  The path is "." where the proof
 * gives AT_EMPTY_PATH, so that a test can refuse the proof's open_tree()
 * alone.
 */
static int kernel_clones_detached(void)
{
	static int cached = -1;
	_cleanup_close_ int mnt = -EBADF, clone = -EBADF;
	int v = __atomic_load_n(&cached, __ATOMIC_RELAXED);

	if (v >= 0)
		return v;
	mnt = cb_empty_layer();
	if (mnt < 0)
		return mnt;
	clone = missing_open_tree(mnt, ".", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (clone < 0 && errno != EINVAL)
		return negative_errno();
	v = clone >= 0;
	__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	return v;
}

/*
 * When the superblock cannot be seen, the answer.  Fails closed: only two
 * documented refusals of open_tree() leave the caller's EROFS standing:
 *  - EPERM: no CAP_SYS_ADMIN over our mount namespace (any user, and so
 *    every rootless runtime);
 *  - EINVAL from a kernel that clones no detached mount at all (before
 *    6.15), shown by cloning a detached mount of our own.
 * Any other failure is "not sealed": on 6.15+ an EINVAL for this mount
 * alone comes from an owner who marked it MS_UNBINDABLE (to clear its
 * read-only flag later), or from a mount whose fd was closed, which no one
 * can prove any more.
 */
static int unproven(int r, bool clone_failed)
{
	if (clone_failed && r == -EPERM)
		return 1;
	return clone_failed && r == -EINVAL && kernel_clones_detached() == 0;
}

int cb_overlay_is_sealed(int fd, bool vouched, bool overflow_is_root)
{
	struct statfs sfs;
	struct stat st;
	bool clone_failed;
	char proc[64];
	int wfd, id, r;

	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0)
		return negative_errno();
	if ((unsigned long)sfs.f_type != OVERLAYFS_SUPER_MAGIC || !(sfs.f_flags & ST_RDONLY))
		return 0;
	/* The overlay shows the real file's owner and mode: no one else may
	 * be able to rewrite it underneath (the directories above it were
	 * checked when the overlay was made; from here they cannot be seen). */
	if (!vouched &&
	    (cb_owner_of(st.st_uid, overflow_is_root) != CB_OWNER_TRUSTED || (st.st_mode & 022)))
		return 0;
	/* Not writable now, by a mount flag or by the superblock.  For a
	 * file being executed (ensure's /proc/self/exe) this alone tells
	 * them apart: the superblock's EROFS comes before ETXTBSY, a mount
	 * flag's after it. */
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	wfd = open(proc, O_WRONLY | O_CLOEXEC);
	if (wfd >= 0) {
		(void)close(wfd);
		return 0;
	}
	if (errno != EROFS)
		return 0;
	id = mount_id_of(fd);
	if (id < 0)
		return id;
	if (own_mount(id))
		return 1;
	/* ensure(): the maker that started us from it made it so. */
	if (vouched || is_own_exe(&st))
		return 1;
	/* Detached: an attached overlay could be remounted by its owner. */
	r = mount_attached(id);
	if (r != 0)
		return r < 0 ? r : 0;
	/* Read-only in its superblock, without an upper layer, where that
	 * can be seen; where it cannot, see unproven(). */
	r = superblock_sealed(fd, &clone_failed);
	return r >= 0 ? r : unproven(r, clone_failed);
}
