/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to service/: the table of held connections and what its parts
 * share.  server.c is the loop, the table and the turns; client.c who the
 * client is and the three rules; request.c a request's bytes, the reply
 * and the log line; socket.c the listening socket.
 */
#ifndef SERVICE_INTERNAL_H
#define SERVICE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "errors.h"
#include "macro.h"
#include "memfd-service.h"
#include "nsexec-ns.h"
#include "service.h"

#define SERVICE_MAX_FDS 16 /* received per message; more: refused */

struct service_socket {
	int fd;
	const char *path; /* bound by us and removed at exit, or NULL */
	dev_t dev;
	ino_t ino;
};

struct request {
	char msg[NSEXEC_SERVICE_MESSAGE_MAX + 1];
	size_t len;
	bool truncated; /* MSG_TRUNC: longer than NSEXEC_SERVICE_MESSAGE_MAX */
	bool ctrunc;	/* more fds than SERVICE_MAX_FDS */
	int fds[SERVICE_MAX_FDS];
	size_t n_fds;
};

struct conn {
	int fd;	   /* -EBADF: a free slot */
	int pidfd; /* the client's, or -EBADF */
	uid_t uid; /* SO_PEERCRED's */
	gid_t gid;
	pid_t pid;
	uid_t user;		     /* whom it counts against: service_user_of_client() */
	long long deadline;	     /* ms of CLOCK_MONOTONIC, while silent */
	struct request *queued;	     /* well-formed, waiting its turn; NULL: silent */
	unsigned long long seq;	     /* arrival order, for the turns */
	unsigned long long accepted; /* accept order: the newest gives way first */
};

/* What the reply and the log line say. */
struct outcome {
	int level;	   /* asked for; -1 when the request was none */
	unsigned long ino; /* the target's PID namespace; 0: unknown */
	int before, after;
	bool written;
	long long owner; /* refused by rule 3: the target's owner uid, for the log; -1 */
};

/* The log's limit (request.c): per window of log_interval_ms, log_burst
 * per-request lines one by one; the rest are counted, and told in one
 * summary line when the window ends.  A raise that wrote is always
 * logged, and not counted. */
#define LOG_LIMIT_USERS 16 /* users counted by name in a window; the rest: "others" */
struct log_limit {
	long long window_end; /* ms of CLOCK_MONOTONIC; 0: no window open */
	unsigned logged;      /* lines of this window logged one by one */
	unsigned long long suppressed, busy;
	struct {
		uid_t user;
		unsigned long long n;
	} users[LOG_LIMIT_USERS];
	size_t n_users;
};

struct server {
	const struct service_config *cfg;
	struct service_socket sock;
	struct nsexec_ns_id self; /* the service's PID namespace */
	struct conn held[SERVICE_MAX_HELD];
	long long accept_paused_until;
	unsigned long long next_seq;
	unsigned long long next_accepted;
	/* When each user was served last (a count of turns); at most
	 * SERVICE_MAX_HELD users, the one served longest ago giving way. */
	struct {
		uid_t user;
		unsigned long long turn;
	} served[SERVICE_MAX_HELD];
	size_t n_served;
	unsigned long long turns;
	struct log_limit limit;
};

#define OUTCOME_NONE ((struct outcome){.level = -1, .before = -1, .after = -1, .owner = -1})

/* server.c */
_printf_(3, 4) void service_log(const struct server *s, enum service_log_kind kind, const char *fmt,
				...);

/* client.c */
/* Fills c->pidfd and c->user for a connection just accepted; 0 or -errno
 * with the reason in *e. */
int client_identify(const struct server *s, struct conn *c, struct mt_error **e);
/* 1 if c may ask (the allow-list), 0 if not, or -errno. */
int client_allowed(const struct service_config *cfg, const struct conn *c);
/* Rules 1 to 3, then the raise, for the request's pidfd; fills *o. */
int raise_target(const struct server *s, const struct conn *c, int pidfd, struct outcome *o,
		 struct mt_error **e);

/* request.c */
int recv_request(int fd, struct request *q);
void request_free(struct request *q);
/* The request's form: "raise N" and exactly one fd; sets o->level. */
int check_request(const struct request *q, struct outcome *o, struct mt_error **e);
/* 0, or -errno of send() (the client has gone: EPIPE, ECONNRESET). */
int send_reply(int fd, int r, const struct outcome *o, const struct mt_error *e);
/* sent: send_reply()'s result, told when it failed. */
void log_request(struct server *s, const struct conn *c, int r, const struct outcome *o,
		 const struct mt_error *e, int sent);
/* The summary line of a window that has ended (or of any, with force),
 * if lines were left out; then the window closes.  Returns when the open
 * window ends (ms), or 0 when nothing waits to be told. */
long long log_limit_flush(struct server *s, long long now, bool force);
long long service_now_ms(void);

/* socket.c */
int open_socket(const struct service_config *cfg, struct service_socket *sock, struct mt_error **e);
void close_socket(const struct server *s, struct service_socket *sock);

#endif
