/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A request's bytes and fds, its form, the reply and the log line.  A
 * client's bytes reach a reply or the log only through mt_escape(), so
 * that neither a log reader nor the client's terminal interprets anything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "escape.h"
#include "service-internal.h"

/* Shown of a request that is refused: its first bytes. */
#define SHOWN_CHARS 40

void request_free(struct request *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n_fds; i++)
		q->fds[i] = safe_close(q->fds[i]);
	free(q);
}

/* Keeps every fd that arrived (to close it), at most SERVICE_MAX_FDS. */
static void take_fds(struct msghdr *mh, struct request *q)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (q->n_fds < SERVICE_MAX_FDS) {
				q->fds[q->n_fds++] = fd;
			} else {
				(void)close(fd);
				q->ctrunc = true;
			}
		}
	}
}

/* One message, without waiting: -EAGAIN when none has arrived. */
int recv_request(int fd, struct request *q)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * SERVICE_MAX_FDS)];
	} control = {};
	struct iovec iov = {.iov_base = q->msg, .iov_len = sizeof(q->msg) - 1};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	ssize_t n;

	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	q->len = (size_t)n;
	q->msg[q->len] = '\0';
	q->truncated = mh.msg_flags & MSG_TRUNC;
	q->ctrunc = mh.msg_flags & MSG_CTRUNC;
	take_fds(&mh, q);
	return 0;
}

int check_request(const struct request *q, struct outcome *o, struct mt_error **e)
{
	char shown[SHOWN_CHARS * MT_ESCAPE_MAX_PER_CHAR + 1];
	size_t done;

	if (q->truncated)
		return mt_error_set(
			e, -EMSGSIZE,
			"the request is longer than %d bytes; expected \"raise 0\", \"raise 1\" or \"raise 2\"",
			NSEXEC_SERVICE_MESSAGE_MAX);
	o->level = nsexec_service_parse_request(q->msg, q->len);
	if (o->level < 0) {
		done = mt_escape(shown, sizeof(shown), q->msg, q->len, SHOWN_CHARS);
		return mt_error_set(
			e, -EINVAL,
			"the request \"%s%s\" is not exactly \"raise 0\", \"raise 1\" or \"raise 2\"",
			shown, done < q->len ? "..." : "");
	}
	if (q->ctrunc || q->n_fds > 1)
		return mt_error_set(
			e, -EINVAL,
			"the request carries %s%zu fds; it must carry exactly one pidfd",
			q->ctrunc ? "more than " : "", q->n_fds);
	if (q->n_fds == 0)
		return mt_error_set(
			e, -EBADF,
			"the request carries no fd; it must carry exactly one pidfd (SCM_RIGHTS) of a process in the PID namespace to raise");
	return 0;
}

int send_reply(int fd, int r, const struct outcome *o, const struct mt_error *e)
{
	char buf[NSEXEC_SERVICE_MESSAGE_MAX];
	int n;

	if (r >= 0)
		n = snprintf(buf, sizeof(buf), "%s %d", o->written ? "ok" : "kept", o->after);
	else
		n = snprintf(buf, sizeof(buf), "error %d %s", -r, mt_error_message(e));
	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (send(fd, buf, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return negative_errno();
	return 0;
}

static int log_interval(const struct server *s)
{
	return s->cfg->log_interval_ms > 0 ? s->cfg->log_interval_ms : SERVICE_LOG_INTERVAL_MS;
}

static unsigned log_burst(const struct server *s)
{
	return s->cfg->log_burst > 0 ? s->cfg->log_burst : SERVICE_LOG_BURST;
}

long long log_limit_flush(struct server *s, long long now, bool force)
{
	struct log_limit *l = &s->limit;
	unsigned long long named = 0;
	size_t top = 0;

	if (l->window_end == 0 || (!force && now < l->window_end))
		return l->suppressed ? l->window_end : 0;
	if (l->suppressed) {
		for (size_t i = 0; i < l->n_users; i++) {
			named += l->users[i].n;
			if (l->users[i].n > l->users[top].n)
				top = i;
		}
		service_log(
			s, SERVICE_LOG_INFO,
			"%llu more requests in the last %d ms not logged one by one (at most %u are), %llu of them refused busy; the most, %llu, of user %u%s",
			l->suppressed, log_interval(s), log_burst(s), l->busy, l->users[top].n,
			(unsigned)l->users[top].user,
			named < l->suppressed ? "; more users than counted" : "");
	}
	*l = (struct log_limit){};
	return 0;
}

/* Whether this line may be logged one by one; else it is counted. */
static bool log_limit_admit(struct server *s, uid_t user, bool busy)
{
	struct log_limit *l = &s->limit;
	long long now = service_now_ms();
	size_t i;

	(void)log_limit_flush(s, now, false);
	if (l->window_end == 0)
		l->window_end = now + log_interval(s);
	if (l->logged < log_burst(s)) {
		l->logged++;
		return true;
	}
	l->suppressed++;
	l->busy += busy;
	for (i = 0; i < l->n_users && l->users[i].user != user; i++)
		;
	if (i == l->n_users && l->n_users < LOG_LIMIT_USERS)
		l->users[l->n_users++].user = user;
	if (i < l->n_users)
		l->users[i].n++;
	return false;
}

void log_request(struct server *s, const struct conn *c, int r, const struct outcome *o,
		 const struct mt_error *e, int sent)
{
	char unsent[80] = "";

	char level[16] = "?", ino[24] = "?", user[32] = "", why[NSEXEC_SERVICE_MESSAGE_MAX];

	/* A raise that wrote is always told: it changed a namespace. */
	if (!(r >= 0 && o->written) && !log_limit_admit(s, c->user, r == -EBUSY))
		return;
	if (o->level >= 0)
		(void)snprintf(level, sizeof(level), "%d", o->level);
	if (o->ino)
		(void)snprintf(ino, sizeof(ino), "%lu", o->ino);
	if (c->user != c->uid)
		(void)snprintf(user, sizeof(user), " (user %u)", (unsigned)c->user);
	if (r >= 0 && o->written)
		(void)snprintf(why, sizeof(why), "now %d (was %d)", o->after, o->before);
	else if (r >= 0)
		(void)snprintf(why, sizeof(why), "already %d", o->after);
	else if (o->owner >= 0)
		(void)snprintf(why, sizeof(why), "%s (created by uid %lld)", mt_error_message(e),
			       o->owner);
	else
		(void)snprintf(why, sizeof(why), "%s", mt_error_message(e));
	if (sent < 0)
		(void)snprintf(unsent, sizeof(unsent), "; Failed to send the answer: %s",
			       strerror(-sent));
	service_log(s, SERVICE_LOG_INFO, "uid %u%s pid %d: raise %s pid:[%s]: %s: %s%s",
		    (unsigned)c->uid, user, (int)c->pid, level, ino,
		    r < 0	 ? "refused"
		    : o->written ? "ok"
				 : "kept",
		    why, unsent);
}
