/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The overlay method: no copy at all.  The binary is opened from a
 * detached, read-only overlayfs made with the new mount API:
 *
 *   fsopen("tmpfs") ... fsmount()          an empty layer, attached nowhere
 *   fsopen("overlay"), lowerdir=DIR:<that tmpfs>, fsmount(RDONLY|NOSUID|NODEV)
 *   openat(mount, NAME, O_PATH)            the binary, on that mount
 *
 * Nothing is ever attached to a mount tree: no mount namespace, no
 * mount(2)/umount(2), so no namespace_sem contention, and nothing to clean
 * up: the mount lives exactly as long as an fd or a process's executable
 * refers to it.  An overlayfs without an upper layer is read-only in
 * itself: opening the file for writing fails with EROFS, and clearing the
 * mount's read-only flag would not change that.  Two lower layers are
 * needed; the empty tmpfs is one that overlaps nothing (a directory
 * inside, or around, the binary's makes overlayfs refuse with ELOOP).
 * Before Linux 6.15 (commit "fs: allow detached mounts in
 * clone_private_mount()") overlayfs takes no layer from a detached mount:
 * it logs "failed to clone lowerpath" and fails with EINVAL.  There the
 * empty layer is a new empty directory in an attached filesystem instead
 * (the options' directories, then /run, /tmp, /var/tmp, /dev/shm), made
 * for the purpose and removed again as soon as the overlayfs holds it.
 *
 * As root it is made directly.  Without CAP_SYS_ADMIN over our mount
 * namespace it is made in a short-lived child inside a new user and mount
 * namespace (overlayfs may be mounted there since 5.11), which shares our
 * memory and fd table, so the fd is simply there when it exits.  Each way
 * of failing is a named reason to fall back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cb-internal.h"
#include "missing-syscall.h"
#include "fd-util.h"
#include "parse.h"

/* The steps, for the reason a fallback names. */
enum ovl_step {
	OVL_NONE = 0,
	OVL_UNSHARE,
	OVL_IDMAP,
	OVL_TMPFS,
	OVL_EMPTY_DIR,
	OVL_OVERLAY,
	OVL_LOWERDIR,
	OVL_XINO,
	OVL_CREATE,
	OVL_MOUNT,
	OVL_OPEN,
	OVL_VERIFY,
	OVL_CHILD,
	OVL_NEED_DIRS, /* internal: the empty directories must be chosen first */
};

static const char *step_name(enum ovl_step s)
{
	static const char *const names[] = {
		[OVL_UNSHARE] = "clone(CLONE_NEWUSER|CLONE_NEWNS)",
		[OVL_IDMAP] = "writing its uid/gid map",
		[OVL_TMPFS] = "making the empty tmpfs layer",
		[OVL_EMPTY_DIR] = "making an empty directory layer",
		[OVL_OVERLAY] = "fsopen(\"overlay\")",
		[OVL_LOWERDIR] = "setting lowerdir",
		[OVL_XINO] = "setting xino=off",
		[OVL_CREATE] = "creating the overlayfs",
		[OVL_MOUNT] = "fsmount()",
		[OVL_OPEN] = "opening the binary on it",
		[OVL_VERIFY] = "verifying it is the same binary",
		[OVL_CHILD] = "running the helper process",
	};

	return s < ELEMENTSOF(names) && names[s] ? names[s] : "overlay";
}

struct ovl_target {
	char lower[96]; /* "/proc/self/fd/D:/proc/self/fd/" (the fd follows) */
	size_t lower_len;
	char name[NAME_MAX + 1];
	struct stat st;		 /* the source binary */
	const char *const *dirs; /* for the empty directory, or NULL */
	int dir;		 /* O_PATH fd of the binary's (checked) directory */
	struct stat dir_st;	 /* its inode */
	char dir_path[PATH_MAX]; /* its name, for the namespace child */
	bool reopen;		 /* in the namespace child: open dir_path again */
	/* Before 6.15: the directories checked for the empty layer (in the
	 * parent, where their owners show as they are), by inode. */
	struct ovl_dir {
		const char *path;
		dev_t dev;
		ino_t ino;
	} edirs[8];
	size_t n_edirs;
	bool edirs_ready;
	char edir_why[CB_REASON_MAX + 64]; /* why the last one was skipped */
};

/* Where the empty directory may go, after the options' directories. */
static const char *const default_dirs[] = {"/run", "/tmp", "/var/tmp", "/dev/shm", NULL};

/* Appends the decimal n; no stdio (runs in the namespace child). */
static void append_int(char *buf, size_t len, size_t size, int n)
{
	char tmp[16];
	size_t k = 0;

	do
		tmp[k++] = (char)('0' + n % 10);
	while ((n /= 10) > 0 && k < sizeof(tmp));
	while (k > 0 && len + 1 < size)
		buf[len++] = tmp[--k];
	buf[len] = '\0';
}

/* An empty, read-only tmpfs, attached nowhere (cb-internal.h). */
int cb_empty_layer(void)
{
	_cleanup_close_ int ctx = -EBADF;
	int fd;

	ctx = missing_fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (ctx < 0)
		return negative_errno();
	if (missing_fsconfig(ctx, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	fd = missing_fsmount(ctx, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
	return fd < 0 ? negative_errno() : fd;
}

/*
 * The detached overlay over t's directory and the empty layer open at
 * empty: its mount fd, or -errno with the failed step.
 */
static int overlay_create(struct ovl_target *t, int empty, enum ovl_step *ret_step)
{
	_cleanup_close_ int ctx = -EBADF;
	int fd;

	t->lower[t->lower_len] = '\0';
	append_int(t->lower, t->lower_len, sizeof(t->lower), empty);
	*ret_step = OVL_OVERLAY;
	ctx = missing_fsopen("overlay", FSOPEN_CLOEXEC);
	if (ctx < 0)
		return negative_errno();
	*ret_step = OVL_LOWERDIR;
	if (missing_fsconfig(ctx, FSCONFIG_SET_STRING, "lowerdir", t->lower, 0) < 0)
		return negative_errno();
	/* Inode numbers as the lower filesystem has them, whatever the
	 * kernel's CONFIG_OVERLAY_FS_XINO_AUTO: the file is verified by its
	 * inode number (overlay_open). */
	*ret_step = OVL_XINO;
	if (missing_fsconfig(ctx, FSCONFIG_SET_STRING, "xino", "off", 0) < 0)
		return negative_errno();
	*ret_step = OVL_CREATE;
	if (missing_fsconfig(ctx, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return negative_errno();
	*ret_step = OVL_MOUNT;
	fd = missing_fsmount(ctx, FSMOUNT_CLOEXEC,
			     MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	return fd < 0 ? negative_errno() : fd;
}

#define EMPTY_DIR_PREFIX ".cloned_binary-ovl-"
/* An empty directory of ours older than this is abandoned: a start holds
 * one only from mkdir to the overlay's creation, well under a second. */
#define EMPTY_DIR_STALE_SEC 60

/* An unguessable name; no stdio (runs in the namespace child too). */
static void empty_dir_name(char *buf, size_t size)
{
	static const char prefix[] = EMPTY_DIR_PREFIX;
	static const char hex[] = "0123456789abcdef";
	unsigned char rnd[8];
	size_t len = sizeof(prefix) - 1;

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)(getpid() * 31 + i * 13);
	memcpy(buf, prefix, len);
	for (size_t i = 0; i < sizeof(rnd) && len + 2 < size; i++) {
		buf[len++] = hex[rnd[i] >> 4];
		buf[len++] = hex[rnd[i] & 0xf];
	}
	buf[len] = '\0';
}

/*
 * Removes the abandoned empty directories in dfd that a killed start left
 * (before 6.15): ours by name and owner, and old.  rmdir removes only an
 * empty one, and never follows a symlink.  Raw getdents64 and no stdio:
 * it runs in the namespace child too.
 */
static void sweep_stale_dirs(int dfd)
{
	_cleanup_close_ int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char buf[4096] __attribute__((aligned(8)));
	const size_t len = sizeof(EMPTY_DIR_PREFIX) - 1;
	struct timespec now;
	long n;

	if (fd < 0 || clock_gettime(CLOCK_REALTIME, &now) < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
			const char *name = buf + off + 19;
			unsigned short reclen;
			struct stat st;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			off += reclen;
			if (strncmp(name, EMPTY_DIR_PREFIX, len) != 0 ||
			    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
			    now.tv_sec - st.st_mtime < EMPTY_DIR_STALE_SEC)
				continue;
			(void)unlinkat(dfd, name, AT_REMOVEDIR);
		}
}

/*
 * The overlay with a new empty directory in d as its empty layer; the
 * directory is removed again whatever happens.  d was checked by the file
 * methods' rules (empty_dirs_choose); it is opened again here by name (in
 * the namespace child, overlayfs takes only a layer of its own mount
 * namespace) and must be the inode checked.  Abandoned empty directories
 * of ours from killed starts are swept first, only where the directory is
 * ours (owned by us: in the namespace child root's show as unmapped), never
 * in another's.
 */
static int overlay_in_dir(struct ovl_target *t, const struct ovl_dir *d, enum ovl_step *ret_step)
{
	_cleanup_close_ int dfd = -EBADF, empty = -EBADF;
	struct stat st;
	char name[64];
	int fd;

	*ret_step = OVL_EMPTY_DIR;
	dfd = open(d->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0)
		return negative_errno();
	if (st.st_dev != d->dev || st.st_ino != d->ino)
		return -ESTALE;
	if (st.st_uid == geteuid())
		sweep_stale_dirs(dfd);
	empty_dir_name(name, sizeof(name));
	if (mkdirat(dfd, name, 0700) < 0)
		return negative_errno();
	empty = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	fd = empty < 0 ? negative_errno() : overlay_create(t, empty, ret_step);
	(void)unlinkat(dfd, name, AT_REMOVEDIR);
	return fd;
}

/*
 * Before 6.15: the first directory that takes a new empty directory that
 * overlaps nothing (ELOOP: it is inside the binary's, or around it) wins;
 * any other failure of overlayfs is final.
 */
static int overlay_on_empty_dir(struct ovl_target *t, enum ovl_step *ret_step)
{
	int fd = -ENOENT;

	*ret_step = OVL_EMPTY_DIR;
	for (size_t i = 0; i < t->n_edirs; i++) {
		fd = overlay_in_dir(t, &t->edirs[i], ret_step);
		if (fd >= 0 || (*ret_step != OVL_EMPTY_DIR && fd != -ELOOP))
			return fd;
	}
	return fd;
}

/* The detached overlay over t's directory; its mount fd, or -errno. */
static int overlay_mount(struct ovl_target *t, enum ovl_step *ret_step)
{
	_cleanup_close_ int layer = -EBADF;
	int fd;

	*ret_step = OVL_TMPFS;
	layer = cb_empty_layer();
	if (layer >= 0) {
		fd = overlay_create(t, layer, ret_step);
		/* Before 6.15 "failed to clone lowerpath": the layer is
		 * detached. */
		if (fd != -EINVAL || *ret_step != OVL_CREATE)
			return fd;
	} else if (layer != -EINVAL)
		return layer;
	/* No detached layer (or, as tests make happen, no detached tmpfs at
	 * all): an empty directory, in a directory chosen by the rules. */
	if (!t->edirs_ready) {
		*ret_step = OVL_NEED_DIRS;
		return -EINVAL;
	}
	return overlay_on_empty_dir(t, ret_step);
}

/*
 * The directories for the empty layer, before 6.15: the options', then the
 * defaults, each only if it passes the file methods' rules (owner, mode,
 * mount flags, append-only) and is on a filesystem the kernel is in charge
 * of; checked here, in the caller's own namespaces, where their owners
 * show as they are.  A skipped one is named in a debug line.
 */
static void empty_dirs_choose(const struct cb_ctx *c, struct ovl_target *t)
{
	const char *const *lists[] = {c->opts->tmpdirs, default_dirs};

	t->n_edirs = 0;
	t->edirs_ready = true;
	for (size_t l = 0; l < ELEMENTSOF(lists); l++)
		for (size_t i = 0; lists[l] && lists[l][i] && t->n_edirs < ELEMENTSOF(t->edirs);
		     i++) {
			const char *dir = lists[l][i];
			_cleanup_close_ int dfd = -EBADF;
			char why[CB_REASON_MAX], fs[32];
			struct statfs sfs;
			struct stat st;

			dfd = cb_dir_open_checked(dir, why);
			if (dfd >= 0 && (fstatfs(dfd, &sfs) < 0 || fstat(dfd, &st) < 0)) {
				(void)snprintf(why, sizeof(why), "cannot inspect it: %m");
				dfd = safe_close(dfd);
			} else if (dfd >= 0 && !cb_fs_is_trusted((unsigned long)sfs.f_type)) {
				(void)snprintf(
					why, sizeof(why),
					"on %s, where the directory's owner, not the kernel, decides what it holds",
					cb_fs_name((unsigned long)sfs.f_type, fs, sizeof(fs)));
				dfd = safe_close(dfd);
			}
			if (dfd < 0) {
				cb_debug(
					c,
					"cloned_binary: skipping %s for the overlay's empty layer: %s",
					dir, why);
				(void)snprintf(t->edir_why, sizeof(t->edir_why), "%s: %s", dir,
					       why);
				continue;
			}
			t->edirs[t->n_edirs++] =
				(struct ovl_dir){.path = dir, .dev = st.st_dev, .ino = st.st_ino};
		}
}

/*
 * The binary on a new detached overlay: an O_PATH fd, or -errno with the
 * failed step.  It must be the file we were given (a path swapped in
 * meanwhile shows another inode, size or mtime) on a read-only overlayfs.
 * System calls only: it runs in the namespace child too.
 */
static int overlay_open(struct ovl_target *t, enum ovl_step *ret_step, int *ret_mnt)
{
	_cleanup_close_ int mnt = -EBADF, fd = -EBADF, reopened = -EBADF;
	static const char proc[] = "/proc/self/fd/";
	struct statfs sfs;
	struct stat st;
	int dir = t->dir;

	/* overlayfs takes no layer from another mount namespace's mount: the
	 * namespace child opens the directory again, in its copy of ours, and
	 * it must be the inode checked. */
	if (t->reopen) {
		*ret_step = OVL_VERIFY;
		reopened = open(t->dir_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (reopened < 0 || fstat(reopened, &st) < 0)
			return negative_errno();
		if (st.st_dev != t->dir_st.st_dev || st.st_ino != t->dir_st.st_ino)
			return -ESTALE;
		dir = reopened;
	}
	memcpy(t->lower, proc, sizeof(proc));
	append_int(t->lower, sizeof(proc) - 1, sizeof(t->lower), dir);
	t->lower_len = strlen(t->lower);
	memcpy(t->lower + t->lower_len, ":/proc/self/fd/", sizeof(":/proc/self/fd/"));
	t->lower_len += sizeof(":/proc/self/fd/") - 1;

	mnt = overlay_mount(t, ret_step);
	if (mnt < 0)
		return mnt;
	*ret_step = OVL_OPEN;
	fd = openat(mnt, t->name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return negative_errno();
	*ret_step = OVL_VERIFY;
	if (fstat(fd, &st) < 0 || fstatfs(fd, &sfs) < 0)
		return negative_errno();
	if (!S_ISREG(st.st_mode) || st.st_ino != t->st.st_ino || st.st_size != t->st.st_size ||
	    st.st_mode != t->st.st_mode || st.st_mtim.tv_sec != t->st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != t->st.st_mtim.tv_nsec ||
	    (unsigned long)sfs.f_type != OVERLAYFS_SUPER_MAGIC || !(sfs.f_flags & ST_RDONLY))
		return -ESTALE;
	*ret_step = OVL_NONE;
	*ret_mnt = TAKE_FD(mnt);
	return TAKE_FD(fd);
}

/* ---- the rootless way: a child in a throwaway user namespace ------------ */

static int write_file(const char *path, const char *text, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return negative_errno();
	return 0;
}

/* "ID ID 1\n": map our own id to itself, as an unprivileged user may. */
static int map_self(const char *path, unsigned id)
{
	char buf[48];
	size_t len = 0;

	append_int(buf, 0, sizeof(buf), (int)id);
	len = strlen(buf);
	buf[len++] = ' ';
	append_int(buf, len, sizeof(buf), (int)id);
	len = strlen(buf);
	memcpy(buf + len, " 1\n", 4);
	return write_file(path, buf, len + 3);
}

/* Shared with the child, which runs in our memory (CLONE_VM). */
struct ovl_child {
	struct ovl_target *t;
	uid_t uid;
	gid_t gid;
	int fd;	  /* the O_PATH fd, in our fd table (CLONE_FILES) */
	int mnt;  /* the overlay's mount fd, likewise */
	int err;  /* positive errno when fd < 0 */
	int step; /* enum ovl_step */
};

/*
 * The child, born in its new user and mount namespaces with every
 * capability there: it maps our ids and makes the overlay.  It shares our
 * memory, fd table and (suspended) thread's TLS, so it only makes system
 * calls and writes *c; all signals stay blocked in it.
 */
static int child_main(void *arg)
{
	struct ovl_child *c = arg;
	enum ovl_step step = OVL_IDMAP;
	int r;

	r = write_file("/proc/self/setgroups", "deny", 4);
	if (r == 0)
		r = map_self("/proc/self/uid_map", c->uid);
	if (r == 0)
		r = map_self("/proc/self/gid_map", c->gid);
	if (r == 0)
		r = overlay_open(c->t, &step, &c->mnt);
	c->step = step;
	if (r < 0)
		c->err = -r;
	else
		c->fd = r;
	_exit(0);
}

#define CHILD_STACK (64 * 1024)

/*
 * Runs child_main in a new user and mount namespace with
 * clone(CLONE_VM|CLONE_VFORK|CLONE_FILES): no page tables copied, no
 * copy-on-write faults (a fork of a large parent costs milliseconds), and
 * the fd lands in our table, so no socket is needed.  We are suspended
 * until the child exits.  Its stack has a guard page below it.
 */
static int overlay_open_in_userns(struct ovl_target *t, enum ovl_step *ret_step, int *ret_mnt)
{
	struct ovl_child c = {.t = t,
			      .uid = geteuid(),
			      .gid = getegid(),
			      .fd = -EBADF,
			      .mnt = -EBADF,
			      .err = EPROTO,
			      .step = OVL_CHILD};
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = CHILD_STACK + page;
	sigset_t all, old;
	char *stack;
	pid_t pid;
	int r = 0;

	*ret_step = OVL_CHILD;
	stack = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED)
		return negative_errno();
	if (mprotect(stack + page, CHILD_STACK, PROT_READ | PROT_WRITE) < 0) {
		r = negative_errno();
		(void)munmap(stack, size);
		return r;
	}
	/* No handler of ours may run on the child's stack, in our memory. */
	(void)sigfillset(&all);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(child_main, stack + size,
		    CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD,
		    &c);
	if (pid < 0)
		r = negative_errno();
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	(void)munmap(stack, size);
	if (pid < 0) {
		*ret_step = OVL_UNSHARE;
		return r;
	}
	*ret_step = c.step;
	if (c.fd < 0)
		return -c.err;
	*ret_mnt = c.mnt;
	return c.fd;
}

/* ---- trust: no one else may rewrite the file ---------------------------
 *
 * The overlay is no copy: the process runs the binary's own inode, and
 * overlayfs denies writes only through the overlay.  Whoever may write the
 * real file may rewrite the running program.  So the overlay is taken only
 * for a file that no one but root and the caller can change: the file and
 * every directory above it owned by root or by our effective uid, and none
 * writable by group or others.  A sticky directory (/tmp) may be writable
 * by others: they can add names there, but not rename or remove ours, and
 * the file we run is the inode checked here, whatever its name later
 * points at.  POSIX ACLs need no reading: an ACL entry that grants
 * writing to anyone but the owner only takes effect through the ACL mask,
 * which the group bits of the mode show, so a "group-writable" mode is how
 * such an ACL shows up.  Owners and modes prove something only where the
 * kernel keeps them: the file and every directory must be on a filesystem
 * the file methods trust (cb_fs_is_trusted(): tmpfs, ext4, xfs, btrfs),
 * never on FUSE, NFS, 9p or SMB, whose daemon or server reports what it
 * likes.  And where global root is unmapped (a user namespace such as
 * rootless podman's), root's files show as the overflow uid, as every
 * other unmapped user's do: such an owner counts only when the caller
 * proved it root's (overflow_uid_is_root).  Everything is checked by fd: the file we were
 * given, its directory opened once and tied to it by inode, and the
 * directories above through "..", never a second lookup of the path.  The
 * overlay's lower layer is that same directory fd, and the file it then
 * exposes must be the inode checked here (overlay_open, cb_clone_overlay).
 */

/*
 * The rules for one inode, open at fd (st: its fstat): its filesystem,
 * its owner, its mode.  0, or -EPERM with the reason.
 */
static int trust_inode(int fd, const struct stat *st, const char *what, const char *path,
		       bool overflow_is_root, char *why, size_t size)
{
	bool dir = S_ISDIR(st->st_mode);
	enum cb_owner owner;
	const char *found;
	struct statfs sfs;
	char fs[32];

	/* On FUSE, NFS, 9p or SMB a daemon or a server reports the owner and
	 * mode (and serves the bytes): nothing below would prove anything. */
	if (fstatfs(fd, &sfs) < 0) {
		(void)snprintf(why, size, "cannot inspect the filesystem of %s %s: %m", what, path);
		return negative_errno();
	}
	if (!cb_fs_is_trusted((unsigned long)sfs.f_type)) {
		(void)snprintf(
			why, size,
			"%s %s is on %s, where the filesystem's daemon or server, not the kernel, reports its owner and mode and serves its bytes: the overlay runs the file itself, so it is taken only where the file and every directory above it are on tmpfs, ext4, xfs or btrfs, as the file methods' copies are. Move the binary to such a filesystem, or use a copy (--method=memfd)",
			what, path, cb_fs_name((unsigned long)sfs.f_type, fs, sizeof(fs)));
		return -EPERM;
	}
	owner = cb_owner_of(st->st_uid, overflow_is_root);
	if (owner == CB_OWNER_UNMAPPED) {
		(void)snprintf(
			why, size,
			"%s %s shows as owned by uid %u, the overflow uid (mode %04o; we are uid %u): global root is unmapped in this user namespace, and every owner unmapped here shows as that uid, root and any other user alike, so it cannot be told here whether someone else can rewrite it; the overlay runs the file itself, so it is taken here only for a file whose owner the caller proved (overflow_uid_is_root). Run it from the initial user namespace, where the owner shows, or use a copy (--method=memfd)",
			what, path, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
			(unsigned)geteuid());
		return -EPERM;
	}
	if (owner != CB_OWNER_TRUSTED)
		found = "owned by another user";
	else if ((st->st_mode & 022) && !(dir && (st->st_mode & S_ISVTX)))
		found = dir ? "writable by group or others without the sticky bit"
			    : "writable by group or others (or by a POSIX ACL entry)";
	else
		return 0;
	(void)snprintf(
		why, size,
		"%s %s is %s (owner uid %u, mode %04o; we are uid %u): the overlay runs the file itself, so it is taken only for a file that no one else can rewrite: the file and every directory above it owned by root or by us, and writable by neither group nor others (a directory may be, with the sticky bit). Make root (or us) its owner and remove group and other write access (chown, chmod go-w, setfacl -b), or use a copy (--method=memfd)",
		what, path, found, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
		(unsigned)geteuid());
	return -EPERM;
}

/*
 * The directories from dfd (path: its name, for messages, shortened as we
 * go up) to the root, through "..".  0, or -errno with the reason.
 */
static int trust_dirs(int dfd, char *path, bool overflow_is_root, char *why, size_t size)
{
	_cleanup_close_ int cur = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	struct stat st, up;
	int r;

	if (cur < 0 || fstat(cur, &st) < 0) {
		r = negative_errno();
		(void)snprintf(why, size, "cannot inspect the directory %s: %s", path,
			       strerror(-r));
		return r;
	}
	for (unsigned depth = 0; depth < PATH_MAX / 2; depth++) {
		char *slash;
		int parent;

		r = trust_inode(cur, &st, "the directory", path, overflow_is_root, why, size);
		if (r < 0)
			return r;
		parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			r = negative_errno();
			if (parent >= 0)
				(void)close(parent);
			(void)snprintf(why, size, "cannot inspect the directory above %s: %s", path,
				       strerror(-r));
			return r;
		}
		(void)close(cur);
		cur = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			return 0; /* the root: its ".." is itself */
		st = up;
		slash = strrchr(path, '/');
		if (slash && slash != path)
			*slash = '\0';
		else
			(void)snprintf(path, 2, "/");
	}
	(void)snprintf(why, size, "the directories above %s go on too long", path);
	return -ELOOP;
}

/*
 * Where the binary is: its directory, opened once and checked, as t->dir
 * (the overlay's lower layer, "/proc/self/fd/D:"), and its NAME; or -errno
 * with the reason.
 */
static int target_of(const struct cb_ctx *c, int src, struct ovl_target *t, char *why, size_t size)
{
	char proc[64], path[PATH_MAX];
	_cleanup_close_ int dfd = -EBADF;
	char *slash;
	struct stat st;
	ssize_t n;
	int r;

	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", src);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n < 0 || fstat(src, &t->st) < 0) {
		(void)snprintf(why, size, "cannot find the binary's path: %m");
		return negative_errno();
	}
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || t->st.st_nlink == 0) {
		(void)snprintf(why, size, "the binary has no path (%s)", path);
		return -ENOENT;
	}
	if (strlen(slash + 1) > NAME_MAX) {
		(void)snprintf(why, size, "its name in %s is too long", path);
		return -ENAMETOOLONG;
	}
	/* The file first: it is the inode that will run. */
	r = trust_inode(src, &t->st, "the file", path, c->opts->overflow_uid_is_root, why, size);
	if (r < 0)
		return r;
	(void)snprintf(t->name, sizeof(t->name), "%s", slash + 1);
	if (slash == path)
		path[1] = '\0';
	else
		*slash = '\0';
	dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* The directory we opened must hold the file we were given. */
	if (dfd < 0 || fstatat(dfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != t->st.st_dev || st.st_ino != t->st.st_ino) {
		(void)snprintf(why, size, "%s failed: %s/%s is no longer the binary we were given",
			       "verifying it is the same binary", path, t->name);
		return -ESTALE;
	}
	t->dir_st.st_dev = 0;
	if (fstat(dfd, &t->dir_st) < 0) {
		(void)snprintf(why, size, "cannot inspect the directory %s: %m", path);
		return negative_errno();
	}
	(void)snprintf(t->dir_path, sizeof(t->dir_path), "%s", path);
	r = trust_dirs(dfd, path, c->opts->overflow_uid_is_root, why, size);
	if (r < 0)
		return r;
	t->dir = TAKE_FD(dfd);
	return 0;
}

static void explain(int r, enum ovl_step step, char *why, size_t size)
{
	const char *hint = "";

	if (r == -ENOSYS)
		hint = " (no fsopen(): before Linux 5.2)";
	else if (step == OVL_UNSHARE &&
		 (r == -EPERM || r == -ENOSPC || r == -EACCES || r == -EINVAL))
		hint = " (no unprivileged user namespaces here: a sysctl, or an AppArmor or SELinux rule)";
	else if (step == OVL_OVERLAY && r == -ENODEV)
		hint = " (no overlayfs in this kernel)";
	else if (step == OVL_EMPTY_DIR)
		hint = " (overlayfs before 6.15 needs one, in a directory we may write that does not overlap the binary's)";
	else if (step == OVL_CREATE)
		hint = " (overlayfs refused the binary's directory as a layer, or, before 5.11, a user namespace)";
	(void)snprintf(why, size, "%s failed: %s%s", step_name(step), strerror(-r), hint);
}

int cb_clone_overlay(const struct cb_ctx *c, int src, int *ret_fd, char *why, size_t why_size)
{
	struct ovl_target t = {.dir = -EBADF};
	_cleanup_close_ int dir = -EBADF, mnt = -EBADF;
	enum ovl_step step;
	struct stat st;
	int fd, r;

	/* Unprobed, the first fsopen() finds out (ENOSYS, below). */
	if (c->probed && !c->f.fsopen) {
		(void)snprintf(why, why_size, "no fsopen() (before Linux 5.2)");
		return -ENOSYS;
	}
	r = target_of(c, src, &t, why, why_size);
	if (r < 0)
		return r;
	dir = t.dir;
	t.dirs = c->opts->tmpdirs;
	/* Directly where we may mount (root); else as a user namespace's
	 * owner, which needs no privilege. */
	fd = overlay_open(&t, &step, &mnt);
	if (fd == -EINVAL && step == OVL_NEED_DIRS) {
		empty_dirs_choose(c, &t);
		fd = overlay_open(&t, &step, &mnt);
	}
	if (fd == -EPERM && step == OVL_TMPFS) {
		t.reopen = true;
		fd = overlay_open_in_userns(&t, &step, &mnt);
		if (fd == -EINVAL && step == OVL_NEED_DIRS) {
			empty_dirs_choose(c, &t);
			fd = overlay_open_in_userns(&t, &step, &mnt);
		}
	}
	if (fd == -ENOSYS && step == OVL_TMPFS)
		(void)snprintf(why, why_size, "no fsopen() (before Linux 5.2)");
	else if (fd < 0 && step == OVL_EMPTY_DIR && t.edir_why[0]) {
		size_t n;

		explain(fd, step, why, why_size);
		n = strlen(why);
		(void)snprintf(why + n, why_size - n, "; skipped %s", t.edir_why);
	} else if (fd < 0)
		explain(fd, step, why, why_size);
	if (fd < 0)
		return fd;
	/* The file on the overlay is the one checked, as we see it: its
	 * owner too (the namespace child sees root's files as unmapped). */
	if (fstat(fd, &st) < 0 || st.st_uid != t.st.st_uid || st.st_gid != t.st.st_gid ||
	    st.st_mode != t.st.st_mode) {
		r = fd;
		fd = -ESTALE;
		explain(fd, OVL_VERIFY, why, why_size);
		(void)close(r);
		return fd;
	}
	cb_overlay_own_register(TAKE_FD(mnt), fd);
	*ret_fd = fd;
	return 0;
}
