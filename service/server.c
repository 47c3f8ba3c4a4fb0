/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The service's loop (memfd-service.h): one thread and ppoll(), a table
 * of held connections, and fair turns between users.
 *
 * A connection is accepted at once, and who it counts against (its user)
 * is read then; its request is read as soon as it arrives.  The cheap
 * checks (the allow-list, the request's form, the user's quotas) are
 * answered at once; a well-formed request then waits in the table for its
 * turn, because raising costs two forks (about 12 ms).  Turns go round the
 * users that have one waiting, one request each, so another user's request
 * waits for at most one request of each such user, however many one user
 * sends, from however many of its subordinate uids.  When the table is
 * full, a user with fewer places takes one from the user with the most
 * (evict_for()), so that a flood of a few users cannot lock out another.
 * The service keeps accepting while the table is full, and answers those
 * clients at once that it is busy, so that none waits in the kernel's
 * listen backlog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kernel-features.h"
#include "service-internal.h"

/* Per round, so that timeouts and turns still run: accepts, and their ms */
#define SERVICE_MAX_ACCEPT 1024
#define SERVICE_ACCEPT_MS 50
#define LOG_LINE_MAX 2048

static volatile sig_atomic_t stop_signal;

void service_config_init(struct service_config *cfg)
{
	*cfg = (struct service_config){.use_peerpidfd = true, .use_pidfd_ns = true};
}

void service_log(const struct server *s, enum service_log_kind kind, const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;

	if (!s->cfg->log)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	s->cfg->log(kind, line, s->cfg->log_userdata);
}

static int request_timeout(const struct server *s)
{
	return s->cfg->request_timeout_ms > 0 ? s->cfg->request_timeout_ms : SERVICE_TIMEOUT_MS;
}

long long service_now_ms(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* ---- the table ---------------------------------------------------------- */

static bool in_table(const struct server *s, const struct conn *c)
{
	return c >= s->held && c < s->held + SERVICE_MAX_HELD;
}

/* Reads and drops what c sent that we did not read (a request answered
 * before it was read: busy), so that closing c does not make the client's
 * recv() fail with ECONNRESET before it sees our answer. */
static void conn_drain(int fd)
{
	for (int i = 0; i < 4; i++) {
		struct request q = {};

		if (recv_request(fd, &q) < 0)
			break;
		for (size_t k = 0; k < q.n_fds; k++)
			q.fds[k] = safe_close(q.fds[k]);
	}
}

/* Sends the reply, logs it, closes c and frees its slot. */
static void conn_answer(struct server *s, struct conn *c, int r, const struct outcome *o,
			const struct mt_error *e)
{
	int sent = send_reply(c->fd, r, o, e);

	log_request(s, c, r, o, e, sent);
	conn_drain(c->fd);
	c->fd = safe_close(c->fd);
	c->pidfd = safe_close(c->pidfd);
	request_free(c->queued);
	c->queued = NULL;
}

/* Answers the error r (-errno) with the formatted message on c, logs it
 * and closes c. */
_printf_(4, 5) static void conn_refuse(struct server *s, struct conn *c, int r, const char *fmt,
				       ...)
{
	_cleanup_error_ struct mt_error *e = NULL;
	struct outcome o = OUTCOME_NONE;
	va_list ap;

	va_start(ap, fmt);
	r = mt_error_setv(&e, r, fmt, ap);
	va_end(ap);
	conn_answer(s, c, r, &o, e);
}

/* Connections in the table: user's (every user's if NULL), silent or
 * waiting their turn. */
static size_t held_count(const struct server *s, const uid_t *user, bool queued)
{
	size_t n = 0;

	for (size_t i = 0; i < SERVICE_MAX_HELD; i++) {
		const struct conn *c = &s->held[i];

		if (c->fd >= 0 && (!user || c->user == *user) && !!c->queued == queued)
			n++;
	}
	return n;
}

static struct conn *free_slot(struct server *s)
{
	for (size_t i = 0; i < SERVICE_MAX_HELD; i++)
		if (s->held[i].fd < 0)
			return &s->held[i];
	return NULL;
}

/* The checks that cost no fork, made as the request arrives: the
 * allow-list and the request's form. */
static int judge_form(const struct server *s, const struct conn *c, const struct request *q,
		      struct outcome *o, struct mt_error **e)
{
	int r = client_allowed(s->cfg, c);

	if (r < 0)
		return mt_error_set(e, r, "Failed to read the client's groups: %s", strerror(-r));
	if (r == 0)
		return mt_error_set(
			e, -EACCES,
			"uid %u may not use this service: it is not among its --allow-user and --allow-group; ask the administrator",
			(unsigned)c->uid);
	return check_request(q, o, e);
}

/* Reads c's request, without waiting: -EAGAIN if none has arrived yet.
 * A well-formed one from an allowed client comes back in *ret (return
 * 1), to wait its turn; anything else is answered, and c closed (0). */
static int conn_receive(struct server *s, struct conn *c, struct request **ret)
{
	struct outcome o = OUTCOME_NONE;
	_cleanup_error_ struct mt_error *e = NULL;
	struct request *q = calloc(1, sizeof(*q));
	int r;

	if (!q) {
		conn_refuse(s, c, -ENOMEM, "out of memory for the request; try again");
		return 0;
	}
	r = recv_request(c->fd, q);
	if (r == -EAGAIN) {
		free(q);
		return r;
	}
	if (r < 0)
		r = mt_error_set(&e, r, "Failed to receive the request: %s", strerror(-r));
	else
		r = judge_form(s, c, q, &o, &e);
	if (r >= 0) {
		*ret = q;
		return 1;
	}
	request_free(q);
	conn_answer(s, c, r, &o, e);
	return 0;
}

static int cmp_uid(const void *a, const void *b)
{
	uid_t x = *(const uid_t *)a, y = *(const uid_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * A place for a connection of user when the table is full: the newest
 * connection of the user who holds the most places, if that user holds at
 * least two more than user does.  It is answered that the service is busy
 * and its slot comes back; NULL when no user holds so many more.  So a
 * user with nothing in the table always gets a place while any user holds
 * two, whatever the flood: the table is full against a newcomer only when
 * SERVICE_MAX_HELD users hold one place each.  A user's subordinate uids
 * are one user here too (c->user), so many uids buy no more places.  At
 * "two more" rather than "more" two flooding users do not take places
 * from each other back and forth.
 */
static struct conn *evict_for(struct server *s, uid_t user)
{
	static uid_t users[SERVICE_MAX_HELD];
	size_t n = 0, mine = 0, most = 0;
	uid_t top = 0;
	struct conn *victim = NULL;

	for (size_t i = 0; i < SERVICE_MAX_HELD; i++)
		if (s->held[i].fd >= 0)
			users[n++] = s->held[i].user;
	qsort(users, n, sizeof(users[0]), cmp_uid);
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && users[i + run] == users[i]; run++)
			;
		if (users[i] == user)
			mine = run;
		if (run > most) {
			most = run;
			top = users[i];
		}
	}
	if (most < mine + 2)
		return NULL;
	for (size_t i = 0; i < SERVICE_MAX_HELD; i++) {
		struct conn *c = &s->held[i];

		if (c->fd >= 0 && c->user == top && (!victim || c->accepted > victim->accepted))
			victim = c;
	}
	conn_refuse(
		s, victim, -EBUSY,
		"the service is busy: all %d places for requests are taken, and this one went to a user with fewer; try again in a moment",
		SERVICE_MAX_HELD);
	return victim;
}

/* A free place for c (not in the table yet), or one taken from the user
 * who holds the most; NULL: c has been answered that the service is busy. */
static struct conn *place_for(struct server *s, struct conn *c)
{
	struct conn *slot = free_slot(s);

	if (!slot)
		slot = evict_for(s, c->user);
	if (!slot)
		conn_refuse(
			s, c, -EBUSY,
			"the service is busy: all %d places for requests are taken; try again in a moment",
			SERVICE_MAX_HELD);
	return slot;
}

/* A connection whose request has not arrived yet: into the table, unless
 * its user already has SERVICE_MAX_SILENT_PER_USER there, or no place is
 * to be had (place_for()). */
static void hold_silent(struct server *s, struct conn *c)
{
	struct conn *slot;

	if (held_count(s, &c->user, false) >= SERVICE_MAX_SILENT_PER_USER) {
		conn_refuse(
			s, c, -EBUSY,
			"the service is busy for user %u: it has %d connections without a request; send the request right after connecting",
			(unsigned)c->user, SERVICE_MAX_SILENT_PER_USER);
		return;
	}
	slot = place_for(s, c);
	if (slot)
		*slot = *c;
}

/* A well-formed request q on c (in the table or not yet): into the table
 * to wait its turn, unless c's user already has
 * SERVICE_MAX_QUEUED_PER_USER waiting, or no place is to be had. */
static void hold_queued(struct server *s, struct conn *c, struct request *q)
{
	struct conn *slot;

	c->queued = q;
	if (held_count(s, &c->user, true) >= SERVICE_MAX_QUEUED_PER_USER) {
		conn_refuse(
			s, c, -EBUSY,
			"the service is busy for user %u: %d requests of that user wait for their turn already; try again when they are answered",
			(unsigned)c->user, SERVICE_MAX_QUEUED_PER_USER);
		return;
	}
	slot = in_table(s, c) ? c : place_for(s, c);
	if (slot) {
		*slot = *c;
		slot->seq = s->next_seq++;
	}
}

static void conn_arrived(struct server *s, struct conn *c)
{
	struct request *q = NULL;
	int r;

	if (!in_table(s, c)) {
		/* Just accepted: whom does it count against? */
		_cleanup_error_ struct mt_error *e = NULL;
		struct outcome o = OUTCOME_NONE;

		r = client_identify(s, c, &e);
		if (r < 0) {
			conn_answer(s, c, r, &o, e);
			return;
		}
	}
	r = conn_receive(s, c, &q);
	if (r == -EAGAIN && c->deadline == 0) {
		c->deadline = service_now_ms() + request_timeout(s);
		hold_silent(s, c);
	} else if (r > 0) {
		hold_queued(s, c, q);
	}
}

static void accept_some(struct server *s)
{
	long long until = service_now_ms() + SERVICE_ACCEPT_MS;

	for (int k = 0; k < SERVICE_MAX_ACCEPT; k++) {
		struct conn c = {.fd = -EBADF, .pidfd = -EBADF};
		struct ucred uc;
		socklen_t len = sizeof(uc);

		c.fd = accept4(s->sock.fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c.fd < 0 && (errno == EINTR || errno == ECONNABORTED))
			continue;
		if (c.fd < 0) {
			if (errno == EAGAIN)
				return;
			/* EMFILE, ENOBUFS...: let the backlog wait. */
			service_log(s, SERVICE_LOG_INFO,
				    "Failed to accept a connection: %s; pausing 100 ms",
				    strerror(errno));
			s->accept_paused_until = service_now_ms() + 100;
			return;
		}
		if (getsockopt(c.fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0) {
			service_log(s, SERVICE_LOG_INFO,
				    "Failed to read a client's credentials: %s", strerror(errno));
			c.fd = safe_close(c.fd);
			continue;
		}
		c.uid = uc.uid;
		c.gid = uc.gid;
		c.pid = uc.pid;
		c.user = uc.uid;
		c.accepted = s->next_accepted++;
		conn_arrived(s, &c);
		if (k % 32 == 31 && service_now_ms() >= until)
			return;
	}
}

/* ---- the turns ---------------------------------------------------------- */

/* The turn in which user was served last; 0: never (or too long ago). */
static unsigned long long served_last(const struct server *s, uid_t user)
{
	for (size_t i = 0; i < s->n_served; i++)
		if (s->served[i].user == user)
			return s->served[i].turn;
	return 0;
}

static void note_served(struct server *s, uid_t user)
{
	size_t i, oldest = 0;

	for (i = 0; i < s->n_served && s->served[i].user != user; i++)
		if (s->served[i].turn < s->served[oldest].turn)
			oldest = i;
	if (i == s->n_served && s->n_served < SERVICE_MAX_HELD)
		s->n_served++;
	else if (i == s->n_served)
		i = oldest;
	s->served[i].user = user;
	s->served[i].turn = ++s->turns;
}

/*
 * Whose turn it is: the oldest waiting request of the user served longest
 * ago (never: first).  So each user with a request waiting gets one turn
 * per round, however many it sent, and a user who comes new to a flood
 * is served next.
 */
static struct conn *next_turn(struct server *s)
{
	unsigned long long best_turn = 0;
	struct conn *best = NULL;

	for (size_t i = 0; i < SERVICE_MAX_HELD; i++) {
		struct conn *c = &s->held[i];
		unsigned long long t;

		if (c->fd < 0 || !c->queued)
			continue;
		if (best && c->user == best->user) {
			if (c->seq < best->seq)
				best = c;
			continue;
		}
		t = served_last(s, c->user);
		if (!best || t < best_turn || (t == best_turn && c->seq < best->seq)) {
			best = c;
			best_turn = t;
		}
	}
	return best;
}

/* Raises for one waiting request, whose turn it is; false if none waits. */
static bool serve_turn(struct server *s)
{
	struct outcome o = OUTCOME_NONE;
	_cleanup_error_ struct mt_error *e = NULL;
	struct conn *c = next_turn(s);
	int r;

	if (!c)
		return false;
	note_served(s, c->user);
	o.level = nsexec_service_parse_request(c->queued->msg, c->queued->len);
	r = raise_target(s, c, c->queued->fds[0], &o, &e);
	conn_answer(s, c, r, &o, e);
	return true;
}

/* ---- the loop ----------------------------------------------------------- */

/* Fills pfd (pfd[0]: the listening socket, or -1 while paused) and map
 * with the silent connections; expires those past their deadline.
 * Returns the count; *timeout_ms is how long ppoll() may sleep (0 while a
 * request waits its turn). */
static size_t build_pollset(struct server *s, struct pollfd *pfd, struct conn **map,
			    long long *timeout_ms)
{
	long long now = service_now_ms(), wake = now + 60 * 1000, told;
	bool paused = s->accept_paused_until > now, queued = false;
	size_t n = 1;

	if (paused)
		wake = s->accept_paused_until;
	for (size_t i = 0; i < SERVICE_MAX_HELD; i++) {
		struct conn *c = &s->held[i];

		if (c->fd < 0)
			continue;
		if (c->queued) {
			queued = true;
			continue;
		}
		if (c->deadline <= now) {
			conn_refuse(s, c, -ETIMEDOUT, "no request within %d ms",
				    request_timeout(s));
			continue;
		}
		if (c->deadline < wake)
			wake = c->deadline;
		map[n - 1] = c;
		pfd[n++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
	}
	/* The log's summary, when its window ends. */
	told = log_limit_flush(s, now, false);
	if (told && told < wake)
		wake = told;
	pfd[0] = (struct pollfd){.fd = paused ? -1 : s->sock.fd, .events = POLLIN};
	*timeout_ms = queued ? 0 : wake > now ? wake - now : 0;
	return n;
}

/*
 * Each round: wait for something (not at all while a request waits its
 * turn), read the requests that arrived, accept new connections, then
 * raise for one request.  Reading and refusing cost no fork, so a round
 * is about one raise long, and new clients are heard between raises.
 */
static int serve_loop(struct server *s, const sigset_t *unblocked)
{
	static struct pollfd pfd[1 + SERVICE_MAX_HELD];
	static struct conn *map[SERVICE_MAX_HELD];

	while (!stop_signal) {
		long long timeout;
		size_t n = build_pollset(s, pfd, map, &timeout);
		struct timespec ts = {.tv_sec = timeout / 1000,
				      .tv_nsec = (timeout % 1000) * 1000000};

		if (ppoll(pfd, n, &ts, unblocked) < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		/* (a slot's connection may have changed meanwhile: answered
		 * busy to make room, and given to a new one) */
		for (size_t i = 1; i < n; i++)
			if (pfd[i].revents && map[i - 1]->fd == pfd[i].fd)
				conn_arrived(s, map[i - 1]);
		if (pfd[0].revents)
			accept_some(s);
		(void)serve_turn(s);
	}
	return 0;
}

/* ---- start and stop ----------------------------------------------------- */

static void on_stop(int sig)
{
	stop_signal = sig;
}

/* SIGTERM and SIGINT stay blocked except inside ppoll() (with the mask in
 * *ret_unblocked), so that they end the loop between requests only. */
static int setup_signals(sigset_t *ret_unblocked)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigset_t block;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) < 0 || sigaction(SIGINT, &sa, NULL) < 0)
		return negative_errno();
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		return negative_errno();
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	if (sigprocmask(SIG_BLOCK, &block, ret_unblocked) < 0)
		return negative_errno();
	sigdelset(ret_unblocked, SIGTERM);
	sigdelset(ret_unblocked, SIGINT);
	return 0;
}

/* Room for a full table: each held connection may bring a pidfd, and
 * holds the client's. */
static void raise_fd_limit(const struct server *s)
{
	struct rlimit rl;
	rlim_t want = 3 * SERVICE_MAX_HELD + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		service_log(
			s, SERVICE_LOG_INFO,
			"Failed to raise the fd limit to %llu: %s; a full table may pause accepting",
			(unsigned long long)want, strerror(errno));
}

static void announce(const struct server *s)
{
	const struct service_config *cfg = s->cfg;
	char who[1024] = "every local user";
	size_t o = 0;

	for (size_t i = 0; i < cfg->n_users && o < sizeof(who) - 16; i++)
		o += (size_t)snprintf(who + o, sizeof(who) - o, "%suid %u", o ? ", " : "",
				      (unsigned)cfg->users[i]);
	for (size_t i = 0; i < cfg->n_groups && o < sizeof(who) - 16; i++)
		o += (size_t)snprintf(who + o, sizeof(who) - o, "%sgid %u", o ? ", " : "",
				      (unsigned)cfg->groups[i]);
	service_log(s, SERVICE_LOG_INFO, "listening on %s (%s), for %s",
		    s->sock.path ? s->sock.path : "fd 3",
		    s->sock.path ? "bound" : "socket activation", who);
}

static int start(struct server *s, sigset_t *unblocked, struct mt_error **err)
{
	struct mt_features f;
	int r;

	if (s->cfg->n_users > SERVICE_MAX_ALLOW || s->cfg->n_groups > SERVICE_MAX_ALLOW)
		return mt_error_set(err, -EINVAL, "at most %d users and %d groups may be allowed",
				    SERVICE_MAX_ALLOW, SERVICE_MAX_ALLOW);
	mt_features_probe(&f);
	if (!f.memfd_noexec)
		return mt_error_set(
			err, -ENOENT,
			"this kernel has no /proc/sys/vm/memfd_noexec (it needs Linux 6.3 or later, with CONFIG_PID_NS): nothing to serve");
	r = nsexec_ns_id_self(&s->self);
	if (r < 0)
		return mt_error_set(err, r, "Failed to find our own PID namespace: %s",
				    strerror(-r));
	r = setup_signals(unblocked);
	if (r < 0)
		return mt_error_set(err, r, "Failed to set up signal handling: %s", strerror(-r));
	raise_fd_limit(s);
	r = open_socket(s->cfg, &s->sock, err);
	if (r < 0)
		return r;
	announce(s);
	return 0;
}

int service_run(const struct service_config *cfg, struct mt_error **err)
{
	static struct server s;
	sigset_t unblocked;
	int r;

	s = (struct server){.cfg = cfg, .sock = {.fd = -EBADF}};
	for (size_t i = 0; i < SERVICE_MAX_HELD; i++)
		s.held[i] = (struct conn){.fd = -EBADF, .pidfd = -EBADF};
	stop_signal = 0;
	r = start(&s, &unblocked, err);
	if (r < 0)
		return r;

	r = serve_loop(&s, &unblocked);
	if (r < 0)
		r = mt_error_set(err, r, "Failed to wait for clients: %s", strerror(-r));
	for (size_t i = 0; i < SERVICE_MAX_HELD; i++)
		if (s.held[i].fd >= 0)
			conn_refuse(&s, &s.held[i], -ESHUTDOWN,
				    "the service is stopping; try again");
	(void)log_limit_flush(&s, service_now_ms(), true);
	close_socket(&s, &s.sock);
	if (r < 0)
		return r;
	service_log(&s, SERVICE_LOG_INFO, "stopped by SIG%s", sigabbrev_np(stop_signal));
	return stop_signal;
}
