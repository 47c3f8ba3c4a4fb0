/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crun_loader_shim: connects crun (1.8.1, 1.21) to memfd-toolkit: its
 * constructor to the sealed W^X loader, the request crun's own parser read
 * to nsexec/runtime.h, its parent to nsexec_apply_memfd_noexec_ns() and
 * the container's process to the level's seccomp rules, decided from an
 * fd crun opened before the container's namespaces and mounts.  Everything
 * crun-specific that calls the toolkit lives here; the patches in
 * contrib/crun/VERSION/patches/ only call it.  The functions are described
 * in crun_memfd_toolkit.h.
 *
 * contrib/crun/build.sh deletes crun's src/libcrun/cloned_binary.c (its
 * memfd copy, made without MFD_EXEC, cannot execute once vm.memfd_noexec
 * is 1 or 2, and its read-only bind mount needs a mount namespace of its
 * own) and builds this file in its place.
 *
 * CRUN_MEMFD_TOOLKIT_DEBUG=1 prints the loader's markers
 * ("cloned_binary: using overlay") and the level applied on stderr.
 */
#define _GNU_SOURCE
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HAVE_CAP
#include <sys/capability.h>
#endif

#include "memfd-toolkit/cloned-binary.h"
#include "memfd-toolkit/errors.h"
#include "memfd-toolkit/nsexec.h"
#include "memfd-toolkit/runtime.h"

#include "crun_memfd_toolkit.h"
#include "memfd-toolkit/version.h"
#include "utils.h"

#define DEBUG_ENV "CRUN_MEMFD_TOOLKIT_DEBUG"
#define PREFIX "memfd-toolkit: "

#ifndef CRUN_MEMFD_TOOLKIT_VERSION
#error "build.sh writes CRUN_MEMFD_TOOLKIT_VERSION into memfd-toolkit/version.h"
#endif

static bool debug_on(void)
{
	const char *v = getenv(DEBUG_ENV);

	return v && strcmp(v, "1") == 0;
}

/*
 * crun's error from ours; err_in is freed.  Status 0: our messages already
 * name the errno where it matters, and crun would append strerror() of
 * any other status after the message's closing advice.
 */
static int to_crun_error(libcrun_error_t *err, struct mt_error **err_in)
{
	int ret = crun_make_error(err, 0, "%s", mt_error_message(*err_in));

	mt_error_free(err_in);
	return ret;
}

/*
 * Where global root is unmapped (rootless podman runs crun in such a user
 * namespace) root's crun shows as the overflow uid, as any other unmapped
 * user's file would: the path Debian's crun package installs it at is the
 * proof the loader's owner rule takes (overflow_uid_is_root), so that
 * crun runs from the overlay there without a copy.  Elsewhere it gets a
 * sealed copy, and the debug log says why.
 */
#ifndef CRUN_PACKAGED_PATH
#define CRUN_PACKAGED_PATH "/usr/bin/crun"
#endif

static bool self_is_packaged(void)
{
	int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	bool r;

	if (exe < 0)
		return false;
	r = cloned_binary_exe_is(exe, CRUN_PACKAGED_PATH) == 1;
	(void)close(exe);
	return r;
}

int ensure_cloned_binary(void)
{
	struct cloned_binary_options opts = {
		.request = CLONED_BINARY_REQUEST_AUTO,
		.debug = debug_on(),
		.overflow_uid_is_root = self_is_packaged(),
	};
	struct mt_error *err = NULL;
	int r;

	r = cloned_binary_ensure(&opts, &err);
	if (r < 0) {
		fprintf(stderr, "crun: " CLONED_BINARY_LOG_PREFIX "%s\n", mt_error_message(err));
		mt_error_free(&err);
		errno = -r;
		return -1;
	}
	return 0;
}

const char *crun_memfd_toolkit_loader(void)
{
	return "loader: sealed W^X (memfd-toolkit " CRUN_MEMFD_TOOLKIT_VERSION ")";
}

/*
 * The value of key in map, as crun's parser read it, into *ret (NULL when
 * absent).  crun's parser (libocispec over yajl's tree) keeps every entry
 * of an object, a repeated key too, and crun's own lookups take the first:
 * a key given twice is refused, so that crun, the hook and every other
 * reader of the file see one request.
 */
static int map_value(const json_map_string_string *map, const char *key, const char *where,
		     const char **ret, libcrun_error_t *err)
{
	const char *found = NULL;

	*ret = NULL;
	for (size_t i = 0; map && i < map->len; i++) {
		if (map->keys[i] == NULL || strcmp(map->keys[i], key) != 0)
			continue;
		if (found)
			return crun_make_error(
				err, 0,
				"Refusing the vm.memfd_noexec request in config.json: duplicate key \"%s\" in the object at %s. crun would read the first value while other readers of the file read the last, so they would not agree on the level; keep one entry",
				key, where);
		found = map->values[i] ? map->values[i] : "";
	}
	*ret = found;
	return 0;
}

/*
 * Whether the process keeps CAP_SYS_ADMIN in its bounding set, read as
 * crun reads it (libcrun_set_caps(): libcap's cap_from_name(), an unknown
 * name ignored).  No capabilities, or no bounding set, count as keeping
 * it; so does a crun built without libcap, which leaves capabilities alone.
 */
static bool keeps_sys_admin(const runtime_spec_schema_config_schema_process *process)
{
#ifdef HAVE_CAP
	const runtime_spec_schema_config_schema_process_capabilities *caps =
		process ? process->capabilities : NULL;

	if (caps == NULL || caps->bounding == NULL)
		return true;
	for (size_t i = 0; i < caps->bounding_len; i++) {
		cap_value_t cap;

		if (caps->bounding[i] && cap_from_name(caps->bounding[i], &cap) == 0 &&
		    cap == CAP_SYS_ADMIN)
			return true;
	}
	return false;
#else
	(void)process;
	return true;
#endif
}

int crun_memfd_noexec_load(libcrun_container_t *container, libcrun_error_t *err)
{
	runtime_spec_schema_config_schema *def = container->container_def;
	json_map_string_string *sysctl = def->linux ? def->linux->sysctl : NULL;
	struct nsexec_runtime_values values = {};
	struct mt_error *e = NULL;
	const char *v;
	int level;

	container->memfd_noexec = CRUN_MEMFD_NOEXEC_NONE;
	container->memfd_noexec_sys_admin = false;
	container->memfd_noexec_level_fd = -EBADF;

	if (map_value(def->annotations, NSEXEC_RUNTIME_ANNOTATION, "annotations", &v, err) < 0)
		return -1;
	values.annotation = (struct nsexec_runtime_value){v, v ? strlen(v) : 0};
	if (map_value(sysctl, NSEXEC_RUNTIME_SYSCTL, "linux.sysctl", &v, err) < 0)
		return -1;
	values.sysctl = (struct nsexec_runtime_value){v, v ? strlen(v) : 0};
	if (map_value(sysctl, NSEXEC_RUNTIME_SYSCTL_SLASH, "linux.sysctl", &v, err) < 0)
		return -1;
	values.sysctl_slash = (struct nsexec_runtime_value){v, v ? strlen(v) : 0};

	level = nsexec_runtime_level(&values, "config.json", &e);
	if (level < 0 && level != NSEXEC_RUNTIME_LEVEL_NONE)
		return to_crun_error(err, &e);
	if (level == NSEXEC_RUNTIME_LEVEL_NONE)
		return 0;
	container->memfd_noexec = level;
	container->memfd_noexec_sys_admin = keeps_sys_admin(def->process);
	return 0;
}

void crun_memfd_noexec_open_level(libcrun_container_t *container)
{
	crun_memfd_noexec_close_level(container);
	container->memfd_noexec_level_fd = nsexec_runtime_level_open();
}

void crun_memfd_noexec_close_level(libcrun_container_t *container)
{
	if (container->memfd_noexec_level_fd >= 0)
		close(container->memfd_noexec_level_fd);
	container->memfd_noexec_level_fd = -EBADF;
}

/*
 * Whether the container's PID namespace is created for it or joined, as
 * crun itself decides: crun 1.8.1 takes every entry of linux.namespaces,
 * joins the namespace of each one that has a path and creates the type of
 * each one without, and accepts a type twice.  So a second "pid" entry
 * with a path made crun join that namespace although the first one said
 * "create", and a decision from the first entry alone raised a namespace
 * the container only joined.  A type given twice is refused here (crun
 * 1.21 refuses it too); a "pid" entry with a path means joined, whatever
 * else the list says.  A namespace said to be created is left for the
 * kernel to confirm (NSEXEC_ORIGIN_FIND_OUT: the container's process must
 * be PID 1 in it, else it is treated as joined and never changed).
 */
static int pidns_origin(libcrun_container_t *container, enum nsexec_origin *ret,
			libcrun_error_t *err)
{
	runtime_spec_schema_config_schema *def = container->container_def;
	bool pid_entry = false, joined = false;

	for (size_t i = 0; def->linux && i < def->linux->namespaces_len; i++) {
		const char *type = def->linux->namespaces[i]->type;
		const char *path = def->linux->namespaces[i]->path;

		for (size_t j = 0; type && j < i; j++) {
			const char *other = def->linux->namespaces[j]->type;

			if (other && strcmp(type, other) == 0)
				return crun_make_error(
					err, 0,
					"Refusing vm.memfd_noexec=%d: linux.namespaces lists the type \"%s\" twice (entries %zu and %zu), and crun would act on both, so whether the container creates or joins that namespace is ambiguous; list each type once",
					container->memfd_noexec, type, j, i);
		}
		if (type && strcmp(type, "pid") == 0) {
			pid_entry = true;
			joined = path != NULL;
		}
	}
	/* No pid entry: the container runs in crun's own, never changed. */
	*ret = !pid_entry || joined ? NSEXEC_ORIGIN_JOINED : NSEXEC_ORIGIN_FIND_OUT;
	return 0;
}

int crun_memfd_noexec_send_pidns(libcrun_container_t *container, int sync_socket,
				 libcrun_error_t *err)
{
	int fd, ret;

	if (container->memfd_noexec == CRUN_MEMFD_NOEXEC_NONE)
		return 0;
	fd = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return crun_make_error(err, errno,
				       PREFIX "cannot open /proc/self/ns/pid for crun's parent");
	ret = send_fd_to_socket(sync_socket, fd, err);
	close(fd);
	return ret;
}

/* The container's PID namespace, from crun_memfd_noexec_send_pidns(). */
static int receive_pidns(int sync_socket, libcrun_error_t *err)
{
	libcrun_error_t why = NULL;
	int fd = receive_fd_from_socket(sync_socket, &why);

	if (fd >= 0)
		return fd;
	fd = crun_make_error(
		err, 0,
		"Refusing vm.memfd_noexec: crun's container process did not send its PID namespace (%s), so its level cannot be set; the container is not started",
		why && why->msg ? why->msg : "no reason given");
	crun_error_release(&why);
	return fd;
}

int crun_memfd_noexec_apply(libcrun_container_t *container, pid_t pid, int sync_socket,
			    libcrun_error_t *err)
{
	struct nsexec_request req = {
		.level = container->memfd_noexec,
		.keeps_sys_admin = container->memfd_noexec_sys_admin,
	};
	struct nsexec_result res;
	struct mt_error *e = NULL;
	int ns_fd, r;

	if (container->memfd_noexec == CRUN_MEMFD_NOEXEC_NONE)
		return 0;
	r = pidns_origin(container, &req.origin, err);
	if (r < 0)
		return r;
	ns_fd = receive_pidns(sync_socket, err);
	if (ns_fd < 0)
		return ns_fd;
	r = nsexec_apply_memfd_noexec_ns(pid, ns_fd, &req, &res, &e);
	close(ns_fd);
	if (r < 0)
		return to_crun_error(err, &e);
	/* Always shown, as runc shows it (crun's warnings need --debug). */
	if (res.joined || res.kept)
		fprintf(stderr, PREFIX "vm.memfd_noexec: %s %d (asked for %d)\n",
			res.joined ? "joined a namespace already at" : "kept stricter inherited",
			res.after, req.level);
	else if (debug_on())
		fprintf(stderr, PREFIX "vm.memfd_noexec: %s %d (was %d)\n",
			res.written ? "set" : "already", res.after, res.before);
	return 0;
}

int crun_memfd_noexec_seccomp(libcrun_container_t *container, libcrun_error_t *err)
{
	struct mt_error *e = NULL;
	int level_fd = container->memfd_noexec_level_fd;
	int level, r;

	/* Read and closed by the library, whatever it finds. */
	container->memfd_noexec_level_fd = -EBADF;
	r = nsexec_runtime_hugetlb_rule(level_fd, container->memfd_noexec, &level, &e);
	if (r < 0)
		return to_crun_error(err, &e);
	if (r == 0 || !debug_on())
		return 0;
	if (level >= 0)
		fprintf(stderr,
			PREFIX
			"vm.memfd_noexec=%d (asked for %d): memfd_create(MFD_HUGETLB) refused (seccomp)\n",
			level, container->memfd_noexec);
	else
		fprintf(stderr,
			PREFIX
			"vm.memfd_noexec unreadable here (%s): memfd_create(MFD_HUGETLB) refused (seccomp), to be safe\n",
			strerror(-level));
	return 0;
}

int crun_memfd_noexec_check_exec(libcrun_container_t *container, pid_t pid,
				 runtime_spec_schema_config_schema_process *process,
				 libcrun_error_t *err)
{
	/* crun exec runs with the exec's capabilities, else the container's. */
	const runtime_spec_schema_config_schema_process *caps_of =
		process && process->capabilities ? process : container->container_def->process;
	struct mt_error *e = NULL;

	if (container->memfd_noexec == CRUN_MEMFD_NOEXEC_NONE)
		return 0;
	if (nsexec_runtime_check_exec(pid, container->memfd_noexec, keeps_sys_admin(caps_of), &e) <
	    0)
		return to_crun_error(err, &e);
	return 0;
}

int crun_memfd_noexec_refuse_restore(libcrun_container_t *container, libcrun_error_t *err)
{
	if (container->memfd_noexec == CRUN_MEMFD_NOEXEC_NONE)
		return 0;
	return crun_make_error(
		err, 0,
		"refusing to restore: the container asks for vm.memfd_noexec=%d, which crun sets only when it creates a container; remove annotations[\"%s\"] and linux.sysctl[\"%s\"] to restore it",
		container->memfd_noexec, NSEXEC_RUNTIME_ANNOTATION, NSEXEC_RUNTIME_SYSCTL);
}

bool crun_memfd_noexec_is_sysctl(const char *key)
{
	return strcmp(key, NSEXEC_RUNTIME_SYSCTL) == 0 ||
	       strcmp(key, NSEXEC_RUNTIME_SYSCTL_SLASH) == 0;
}
