/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one kernel feature probe.  Every answer comes from calling the
 * feature and reading the errno, never from the kernel version.  The names
 * below are the ones every tool prints and every JSON document carries.
 */
#ifndef MEMFD_TOOLKIT_KERNEL_FEATURES_H
#define MEMFD_TOOLKIT_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "errors.h"

struct mt_features {
	bool memfd_create; /* memfd_create(2) exists (3.17) */
	bool mfd_exec;	   /* MFD_EXEC / MFD_NOEXEC_SEAL are known (6.3) */
	bool seal_exec;	   /* F_SEAL_EXEC is known (6.3) */
	bool memfd_noexec; /* /proc/sys/vm/memfd_noexec exists (6.3) */
	bool o_tmpfile;	   /* O_TMPFILE works in /tmp, /var/tmp, /dev/shm or
			    * /run (3.11) */
	bool execveat;	   /* execveat(2) exists (3.19) */
	bool fsopen;	   /* the new mount API, fsopen(2) and kin (5.2) */
	/* getsockopt(SO_PEERPIDFD) on a Unix socket (6.5) */
	bool so_peerpidfd;
	/* the pidfd namespace ioctls, PIDFD_GET_PID_NAMESPACE and kin (6.11) */
	bool pidfd_get_pid_namespace;
};

/*
 * Fills *ret.  Probed once per process and cached; never fails (a feature
 * that cannot be probed counts as absent).  Probing creates and closes a
 * few memfds and O_TMPFILE files, a socket pair and a pidfd of itself, and
 * never triggers the kernel's MFD_EXEC refusal log line.
 */
void mt_features_probe(struct mt_features *ret);

/*
 * Turns off the features named in list, a comma-separated list such as
 * "-mfd_exec,-o_tmpfile" (features can only be turned off, for tests).
 * what names the list's source in messages ("MEMFD_TOOLKIT_FEATURES").
 * Returns 0, or -EINVAL for an item without '-' or an unknown name, with a
 * message that lists the allowed names; *f is then unchanged.
 */
int mt_features_disable(struct mt_features *f, const char *list, const char *what,
			struct mt_error **err);

/* For printing: the i-th feature's name and value, i < mt_features_count. */
extern const size_t mt_features_count;
const char *mt_feature_name(size_t i);
bool mt_feature_value(const struct mt_features *f, size_t i);

#endif
