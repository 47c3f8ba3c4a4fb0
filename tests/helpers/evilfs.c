/* SPDX-License-Identifier: Apache-2.0 */
/*
 * evilfs: a hostile FUSE filesystem, the attacker for the loader's file
 * fallback.  One flat in-memory directory where files can be created,
 * written, chmod'ed and unlinked, honestly, until a regular file's mode
 * has no write bits left (the loader's fchmod 0500): from then on every
 * read of it returns the payload's bytes instead of what was written,
 * padded with zeros up to the written size, and its size is reported as
 * before (or as the payload's, if that is larger).  Link count and mode
 * are reported truthfully, which shows that checking them proves nothing:
 * the daemon, not the kernel, decides what a FUSE file contains.
 *
 *   evilfs --payload=FILE [--claim-root] [--direct-io] [FUSE options] MNT
 *
 * Files and the root directory are reported as owned by the mountpoint's
 * owner with the mountpoint's mode (what a user's own mount shows), or
 * with --claim-root as uid 0, gid 0 and mode 0755, to show that ownership
 * and mode checks on a FUSE directory prove nothing either.
 * No cache is kept: attributes and entries time out at once, files are
 * opened without keep_cache (the kernel drops cached pages on each open,
 * execve's included), or with --direct-io not cached at all.
 * O_TMPFILE is not offered (libfuse 3.14 has no tmpfile operation; the
 * kernel then answers EOPNOTSUPP), so a loader falls back to create and
 * unlink, which this filesystem supports.
 */
#define FUSE_USE_VERSION 34

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fd-util.h"
#include "macro.h"

#define ROOT_INO 1
#define MAX_NODES 256

struct node {
	bool used, linked;
	mode_t mode;
	char name[NAME_MAX + 1];
	char *data;
	size_t size;
	uint64_t lookups; /* kernel references: lookup/create less forget */
	unsigned opens;
};

static struct node nodes[MAX_NODES]; /* index = inode number, 1 = root */

static struct config {
	char *payload_path;
	int claim_root, direct_io;
	char *payload;
	size_t payload_size;
	uid_t uid;
	gid_t gid;
	mode_t root_mode;
} cfg;

static struct node *get_node(fuse_ino_t ino)
{
	if (ino <= ROOT_INO || ino >= MAX_NODES || !nodes[ino].used)
		return NULL;
	return &nodes[ino];
}

static bool is_evil(const struct node *n)
{
	return S_ISREG(n->mode) && (n->mode & 0222) == 0;
}

static size_t served_size(const struct node *n)
{
	if (is_evil(n) && cfg.payload_size > n->size)
		return cfg.payload_size;
	return n->size;
}

static void fill_stat(fuse_ino_t ino, const struct node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = cfg.uid;
	st->st_gid = cfg.gid;
	st->st_blksize = 4096;
	if (!n) {
		st->st_mode = S_IFDIR | cfg.root_mode;
		st->st_nlink = 2;
		return;
	}
	st->st_mode = n->mode;
	st->st_nlink = n->linked ? 1 : 0;
	st->st_size = (off_t)served_size(n);
	st->st_blocks = (st->st_size + 511) / 512;
}

static void maybe_free(struct node *n)
{
	if (n->linked || n->lookups || n->opens)
		return;
	free(n->data);
	memset(n, 0, sizeof(*n));
}

static fuse_ino_t find_linked(const char *name)
{
	for (fuse_ino_t i = ROOT_INO + 1; i < MAX_NODES; i++)
		if (nodes[i].used && nodes[i].linked && strcmp(nodes[i].name, name) == 0)
			return i;
	return 0;
}

static void reply_entry(fuse_req_t req, fuse_ino_t ino)
{
	struct fuse_entry_param e = {.ino = ino};

	fill_stat(ino, &nodes[ino], &e.attr);
	nodes[ino].lookups++;
	fuse_reply_entry(req, &e);
}

static void set_open_flags(struct fuse_file_info *fi)
{
	fi->keep_cache = 0;
	fi->direct_io = cfg.direct_io ? 1 : 0;
}

static void evil_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void evil_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_ino_t ino = parent == ROOT_INO ? find_linked(name) : 0;

	if (!ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	reply_entry(req, ino);
}

static void evil_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	struct node *n = get_node(ino);

	if (n) {
		n->lookups = n->lookups > nlookup ? n->lookups - nlookup : 0;
		maybe_free(n);
	}
	fuse_reply_none(req);
}

static void evil_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = get_node(ino);
	struct stat st;

	if (ino != ROOT_INO && !n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_stat(ino, n, &st);
	fuse_reply_attr(req, &st, 0);
}

static int resize(struct node *n, size_t size)
{
	char *p;

	if (size > n->size) {
		p = realloc(n->data, size);
		if (!p)
			return -ENOMEM;
		memset(p + n->size, 0, size - n->size);
		n->data = p;
	}
	n->size = size;
	return 0;
}

static void evil_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
			 struct fuse_file_info *fi)
{
	struct node *n = get_node(ino);
	struct stat st;

	if (!n) {
		fuse_reply_err(req, ino == ROOT_INO ? EPERM : ENOENT);
		return;
	}
	if (to_set & FUSE_SET_ATTR_SIZE) {
		int r = resize(n, (size_t)attr->st_size);

		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
	}
	if (to_set & FUSE_SET_ATTR_MODE)
		n->mode = (n->mode & S_IFMT) | (attr->st_mode & 07777);
	fill_stat(ino, n, &st);
	fuse_reply_attr(req, &st, 0);
}

static void evil_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			 struct fuse_file_info *fi)
{
	_cleanup_free_ char *buf = NULL;
	size_t used = 0;

	if (ino != ROOT_INO) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Offset i stands for inode i; "." and ".." are left out. */
	for (fuse_ino_t i = (fuse_ino_t)off + 1; i < MAX_NODES; i++) {
		struct stat st;
		size_t len;

		if (i <= ROOT_INO || !nodes[i].used || !nodes[i].linked)
			continue;
		fill_stat(i, &nodes[i], &st);
		len = fuse_add_direntry(req, buf + used, size - used, nodes[i].name, &st, (off_t)i);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
}

static void evil_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
			struct fuse_file_info *fi)
{
	fuse_ino_t ino = 0;
	struct fuse_entry_param e = {};

	if (parent != ROOT_INO || strlen(name) > NAME_MAX) {
		fuse_reply_err(req, parent != ROOT_INO ? ENOENT : ENAMETOOLONG);
		return;
	}
	if (find_linked(name)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	for (fuse_ino_t i = ROOT_INO + 1; i < MAX_NODES && !ino; i++)
		if (!nodes[i].used)
			ino = i;
	if (!ino) {
		fuse_reply_err(req, ENOSPC);
		return;
	}
	nodes[ino] = (struct node){
		.used = true,
		.linked = true,
		.mode = S_IFREG | (mode & 07777),
		.lookups = 1,
		.opens = 1,
	};
	strcpy(nodes[ino].name, name);
	e.ino = ino;
	fill_stat(ino, &nodes[ino], &e.attr);
	set_open_flags(fi);
	fuse_reply_create(req, &e, fi);
}

static void evil_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = get_node(ino);

	if (!n) {
		fuse_reply_err(req, ino == ROOT_INO ? EISDIR : ENOENT);
		return;
	}
	n->opens++;
	set_open_flags(fi);
	fuse_reply_open(req, fi);
}

static void evil_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = get_node(ino);

	if (n) {
		if (n->opens)
			n->opens--;
		maybe_free(n);
	}
	fuse_reply_err(req, 0);
}

static void evil_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	_cleanup_free_ char *buf = NULL;
	struct node *n = get_node(ino);
	const char *src;
	size_t total, src_size, start = (size_t)off;

	if (!n) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	total = served_size(n);
	src = is_evil(n) ? cfg.payload : n->data;
	src_size = is_evil(n) ? cfg.payload_size : n->size;
	if (off < 0 || start >= total) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > total - start)
		size = total - start;
	buf = calloc(1, size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (start < src_size)
		memcpy(buf, src + start, size < src_size - start ? size : src_size - start);
	fuse_reply_buf(req, buf, size);
}

static void evil_write(fuse_req_t req, fuse_ino_t ino, const char *data, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	struct node *n = get_node(ino);
	int r;

	if (!n || off < 0) {
		fuse_reply_err(req, n ? EINVAL : ENOENT);
		return;
	}
	if ((size_t)off + size > n->size) {
		r = resize(n, (size_t)off + size);
		if (r < 0) {
			fuse_reply_err(req, -r);
			return;
		}
	}
	memcpy(n->data + off, data, size);
	fuse_reply_write(req, size);
}

static void evil_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_ino_t ino = parent == ROOT_INO ? find_linked(name) : 0;

	if (!ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	nodes[ino].linked = false;
	maybe_free(&nodes[ino]);
	fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops evil_ops = {
	.init = evil_init,
	.lookup = evil_lookup,
	.forget = evil_forget,
	.getattr = evil_getattr,
	.setattr = evil_setattr,
	.readdir = evil_readdir,
	.create = evil_create,
	.open = evil_open,
	.release = evil_release,
	.read = evil_read,
	.write = evil_write,
	.unlink = evil_unlink,
};

static const struct fuse_opt evil_opts[] = {
	{"--payload=%s", offsetof(struct config, payload_path), 0},
	{"--claim-root", offsetof(struct config, claim_root), 1},
	{"--direct-io", offsetof(struct config, direct_io), 1},
	FUSE_OPT_END,
};

/* The payload is at most 64 MiB; anything bigger is a mistake. */
static int load_payload(const char *path)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = read_full_fd(fd, 64 << 20, &cfg.payload, &cfg.payload_size);
	if (r < 0)
		return r;
	return cfg.payload_size > 0 ? 0 : -EINVAL;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts = {};
	struct fuse_session *se;
	struct stat mst;
	int r, ret = 1;

	nodes[ROOT_INO].used = true;
	if (fuse_opt_parse(&args, &cfg, evil_opts, NULL) < 0 ||
	    fuse_parse_cmdline(&args, &opts) < 0)
		return 2;
	if (opts.show_help || !opts.mountpoint || !cfg.payload_path) {
		fprintf(stderr,
			"Usage: evilfs --payload=FILE [--claim-root] [--direct-io] [-f] [-o OPT] MOUNTPOINT\n");
		return opts.show_help ? 0 : 2;
	}
	r = load_payload(cfg.payload_path);
	if (r < 0) {
		fprintf(stderr, "evilfs: Failed to read payload %s: %s\n", cfg.payload_path,
			strerror(-r));
		return 2;
	}
	if (stat(opts.mountpoint, &mst) < 0) {
		fprintf(stderr, "evilfs: Failed to stat mountpoint %s: %m\n", opts.mountpoint);
		return 2;
	}
	cfg.uid = cfg.claim_root ? 0 : mst.st_uid;
	cfg.gid = cfg.claim_root ? 0 : mst.st_gid;
	cfg.root_mode = cfg.claim_root ? 0755 : (mst.st_mode & 07777);

	se = fuse_session_new(&args, &evil_ops, sizeof(evil_ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se) == 0) {
		if (fuse_session_mount(se, opts.mountpoint) == 0) {
			(void)fuse_daemonize(opts.foreground);
			ret = fuse_session_loop(se) == 0 ? 0 : 1;
			fuse_session_unmount(se);
		}
		fuse_remove_signal_handlers(se);
	}
	fuse_session_destroy(se);
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
