/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to cloned_binary/: the context every step gets (the options,
 * the features in force, where errors go), and the steps themselves.
 */
#ifndef CLONED_BINARY_CB_INTERNAL_H
#define CLONED_BINARY_CB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cloned-binary.h"
#include "errors.h"
#include "kernel-features.h"
#include "macro.h"

struct cb_ctx {
	const struct cloned_binary_options *opts; /* never NULL */
	struct mt_features f;			  /* all false unless probed */
	bool probed;				  /* f holds the options' features or the probe */
	struct mt_error **err;
};

/*
 * f comes from the options when they have features; else, with probe,
 * from the (cached) probe; else it stays unprobed until cb_ctx_probe().
 * The probe costs about 0.25 ms cold (two memfds, an O_TMPFILE): a
 * runtime's helper that already runs from its clone, and the overlay
 * method, which finds out by trying, do without it.
 */
void cb_ctx_init(struct cb_ctx *c, const struct cloned_binary_options *opts, struct mt_error **err,
		 bool probe);
void cb_ctx_probe(struct cb_ctx *c);

/* A debug marker, when the options ask for them.  Keeps errno. */
_printf_(2, 3) void cb_debug(const struct cb_ctx *c, const char *fmt, ...);

/* Records "Failed to <what>: <strerror(-r)>", logs it, returns r. */
_printf_(3, 4) int cb_fail(const struct cb_ctx *c, int r, const char *fmt, ...);

/* Copies size bytes of src into dst; -EIO if either size then differs. */
int cb_copy_checked(int dst, int src, size_t size);

/*
 * The memfd methods.  *ret_policy_refused is set when the kernel refused an
 * executable memfd by policy (memfd_create EACCES/EPERM/ENOSYS, or a memfd
 * without x bits): only then may the caller fall back to a file.
 */
int cb_clone_memfd(const struct cb_ctx *c, int src, size_t size,
		   enum cloned_binary_method *ret_method, int *ret_fd, bool *ret_policy_refused);

/*
 * The overlay method (overlay.c): the binary itself, opened from a
 * detached read-only overlayfs.  Returns 0 and an O_PATH fd, or -errno
 * with the reason to fall back in why.
 */
int cb_clone_overlay(const struct cb_ctx *c, int src, int *ret_fd, char *why, size_t why_size);

/*
 * 1 if fd is a file on a detached, read-only overlayfs that refuses writes
 * (EROFS), owned by root or by us and writable by neither group nor
 * others, and whose superblock is read-only without an upper layer (where
 * that can be proven; see proof.c); 0 if not; -errno.  vouched: the
 * caller is ensure() with the marker, run from a clone its maker made and
 * checked (owner, directories, superblock) where it could see them; then
 * only the read-only and detached checks are made (in a container's user
 * namespace root's files show as unmapped).  overflow_is_root: the
 * options' overflow_uid_is_root (cb_owner_of()).
 */
int cb_overlay_is_sealed(int fd, bool vouched, bool overflow_is_root);

/*
 * Whose a file is, for the owner rule (proof.c): root's or ours
 * (TRUSTED), another user's (OTHER), or, where global root is unmapped,
 * shown as the overflow uid, as root's and every other unmapped user's
 * files are there (UNMAPPED: it cannot be told whose).  overflow_is_root:
 * the caller proved such an owner to be root (the options'
 * overflow_uid_is_root), which makes it TRUSTED.
 */
enum cb_owner {
	CB_OWNER_TRUSTED,
	CB_OWNER_OTHER,
	CB_OWNER_UNMAPPED,
};
enum cb_owner cb_owner_of(uid_t uid, bool overflow_is_root);

/* An empty, read-only tmpfs attached nowhere: its mount fd, or -errno
 * (overlay.c). */
int cb_empty_layer(void);

/*
 * Remembers the mount fd mnt of an overlay this process made, by the mount
 * ID of file, its clone on it; takes mnt, closing it where the ID cannot
 * be read or an older entry makes room (proof.c).
 */
void cb_overlay_own_register(int mnt, int file);

/*
 * A directory of the options' (or a default one) opened O_RDONLY and
 * checked by the file methods' rules (tmpdir.c: owner, mode, mount flags,
 * append-only or immutable): its fd, or -errno with the reason in why
 * (CB_REASON_MAX bytes).  The filesystem is the caller's to check.
 */
#define CB_REASON_MAX 160
int cb_dir_open_checked(const char *dir, char *why);

/* The file methods, in the options' directories (tmpdir.c). */
int cb_clone_file(const struct cb_ctx *c, int src, size_t size,
		  enum cloned_binary_method *ret_method, int *ret_fd);

/*
 * True for filesystems on which the kernel itself enforces a file's mode
 * and link count (tmpfs, ext4, xfs, btrfs), as opposed to, say, FUSE, where
 * the file's owner reports whatever it likes.  cb_fs_name() names f_type
 * for messages ("fuse", "nfs", or "0x...").
 */
bool cb_fs_is_trusted(unsigned long f_type);
const char *cb_fs_name(unsigned long f_type, char *buf, size_t size);

#endif
