/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit: a process's container id, from the cgroup paths that the usual
 * runtimes and managers make (collect.c describes the whole collection).
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
int audit_read_cgroup(int dirfd, struct audit_proc *p)
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
