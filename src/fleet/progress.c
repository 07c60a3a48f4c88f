/*
 * progress.c
 *		A connection's progress without blocking: connecting, sending a
 *		query, reading its answer within ranread's limits
 *		(src/fleet/remote.h).
 *
 * Nothing here waits: remote_step does what the socket allows now and
 * returns (wait.c does the waiting).  A connection's first query may be
 * queued while it connects, and is sent the moment it is up.
 *
 * What a node may send.  Rows are read one at a time (single-row mode) and
 * only the first column of the first row is kept; an answer whose rows
 * pass RANREAD_MAX_RESULT_BYTES (64 MB), or over TCP whose bytes received
 * do (one huge row libpq is still gathering), breaks the connection with an
 * error naming the node and the limit.  A node's NOTICEs and WARNINGs are
 * dropped, never printed into this server's log; a value not valid in this
 * database's encoding is an answer that failed; a COPY is refused.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/tcp.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"

#include "remote.h"

/*
 * A node's NOTICEs and WARNINGs: dropped.  libpq's default prints them to
 * this backend's stderr, that is raw into the server log (no prefix, a
 * node's newlines kept, as many as a node cares to send); what a node has
 * to say that matters comes back as its answer or its error.
 */
static void
drop_notice(void *arg, const PGresult *res)
{
}

/* Connect with these options, without waiting */
void
remote_connect_now(Remote *r, const char *const *kw, const char *const *vals)
{
	if (!AcquireExternalFD())
	{
		remote_set_broken(r, "too many files open in this backend for one more connection");
		return;
	}
	r->have_fd = true;
	r->conn = PQconnectStartParams(kw, vals, 0);
	if (r->conn == NULL)
	{
		remote_set_broken(r, "out of memory");
		return;
	}
	PQsetNoticeReceiver(r->conn, drop_notice, NULL);
	if (PQstatus(r->conn) == CONNECTION_BAD)
	{
		remote_set_broken(r, PQerrorMessage(r->conn));
		return;
	}
	r->state = RS_CONNECTING;
	r->poll = PGRES_POLLING_WRITING;
}

/*
 * Keep v, the first column of an answer's first row, as the remote's value;
 * a value not valid in this database's encoding (from a server whose
 * encoding converts nothing, as SQL_ASCII) is an answer that failed, since
 * nothing here could hold it
 */
static void
take_value(Remote *r, const char *v)
{
	free(r->value);
	r->value = NULL;
	if (v == NULL)
		return;
	if (!pg_verifymbstr(v, strlen(v), true))
	{
		r->failed = true;
		strlcpy(r->sqlstate, "22021", sizeof(r->sqlstate));
		r->message = remote_strdup("the server answered with bytes that are not valid in this database's encoding");
		return;
	}
	r->value = remote_strdup(v);
}

/* The connection is up: checks, then idle (or busy with a queued query) */
static void
remote_connected(Remote *r)
{
	if (PQsetnonblocking(r->conn, 1) != 0)
	{
		remote_set_broken(r, PQerrorMessage(r->conn));
		return;
	}
	if (!superuser() && !PQconnectionUsedPassword(r->conn))
	{
		remote_set_broken(r, "a password is required: the server did not ask for the password given, and a role that is not a superuser may not connect without one");
		return;
	}
	r->pid = PQbackendPID(r->conn);
	r->host = PQhost(r->conn) ? remote_strdup(PQhost(r->conn)) : NULL;
	r->port = PQport(r->conn) ? remote_strdup(PQport(r->conn)) : NULL;
	r->hostaddr = PQhostaddr(r->conn) && PQhostaddr(r->conn)[0] ? remote_strdup(PQhostaddr(r->conn)) : NULL;
	r->local_port = -1;
	{
		struct sockaddr_storage ss;
		socklen_t	len = sizeof(ss);

		if (getsockname(PQsocket(r->conn), (struct sockaddr *) &ss, &len) == 0)
		{
			if (ss.ss_family == AF_INET)
				r->local_port = ntohs(((struct sockaddr_in *) &ss)->sin_port);
			else if (ss.ss_family == AF_INET6)
				r->local_port = ntohs(((struct sockaddr_in6 *) &ss)->sin6_port);
		}
	}
	r->state = RS_IDLE;
	if (r->queued)
	{
		char	   *q = r->queued;

		r->queued = NULL;
		(void) remote_send(r, q);
		free(q);
	}
}

/* Bytes the socket has received so far (TCP; 0 on a Unix socket) */
static uint64
tcp_received(Remote *r)
{
	struct tcp_info ti;
	socklen_t	len = sizeof(ti);

	if (r->conn == NULL || r->local_port < 0 || PQsocket(r->conn) < 0)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(PQsocket(r->conn), IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
		len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return 0;
	return ti.tcpi_bytes_received;
}

/* The connection is broken: its answer passed ranread's limit */
static void
broken_over_limit(Remote *r)
{
	remote_set_broken(r, psprintf("the server at %s:%s sent more than %d MB for one answer, ranread's limit: the connection was closed",
						   r->host ? r->host : "?", r->port ? r->port : "?",
						   RANREAD_MAX_RESULT_BYTES / (1024 * 1024)));
}

/* Over TCP, the count of bytes received past which the answer is too long */
static uint64
tcp_limit(Remote *r)
{
	return r->tcp_base + (uint64) RANREAD_MAX_RESULT_BYTES + 1024 * 1024;
}

/*
 * Has the answer in flight passed ranread's limit?  Its rows as read, and
 * over TCP every byte received since the query was sent (a single row
 * libpq is still gathering counts there).  Then the connection is broken:
 * a node cannot make this backend's memory grow without bound.
 */
static bool
over_limit(Remote *r)
{
	uint64		tcp;

	if (r->result_bytes <= RANREAD_MAX_RESULT_BYTES)
	{
		tcp = tcp_received(r);
		if (tcp == 0 || tcp < r->tcp_base || tcp <= tcp_limit(r))
			return false;
	}
	broken_over_limit(r);
	return true;
}

/*
 * The guard of one read.  PQconsumeInput reads all the socket holds and
 * goes on for as long as more keeps coming: a node that sends a row it
 * says is 1 GiB long as fast as this backend copies it is read whole
 * before over_limit is asked.  So while libpq reads a TCP socket, a timer
 * of this process's CPU time (ITIMER_PROF, whose SIGPROF PostgreSQL does
 * not use) looks at the bytes received every millisecond of it; past the
 * limit its handler puts /dev/null in place of the socket (dup2, safe in a
 * signal handler), which ends the read with an error and closes the
 * connection.
 */
static volatile sig_atomic_t guard_fd = -1;
static volatile sig_atomic_t guard_null = -1;
static volatile sig_atomic_t guard_cut = 0;
static uint64 guard_cut_at;		/* set before the timer runs */

static void
guard_tick(SIGNAL_ARGS)
{
	int			save_errno = errno;
	struct tcp_info ti;
	socklen_t	len = sizeof(ti);

	if (guard_fd >= 0 && !guard_cut &&
		getsockopt(guard_fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
		len >= offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received) &&
		ti.tcpi_bytes_received > guard_cut_at &&
		dup2(guard_null, guard_fd) >= 0)
		guard_cut = 1;
	errno = save_errno;
}

/* PQconsumeInput, within the limit (false: the connection is broken) */
static bool
consume_input(Remote *r)
{
	static const struct itimerval every_ms = {{0, 1000}, {0, 1000}};
	static const struct itimerval stop = {{0, 0}, {0, 0}};
	pqsigfunc	prev;
	bool		ok;
	int			null_fd;

	if (tcp_received(r) == 0 || (null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		ok = PQconsumeInput(r->conn) != 0;
	else
	{
		guard_cut_at = tcp_limit(r);
		guard_cut = 0;
		guard_null = null_fd;
		guard_fd = PQsocket(r->conn);
		prev = pqsignal(SIGPROF, guard_tick);
		(void) setitimer(ITIMER_PROF, &every_ms, NULL);
		ok = PQconsumeInput(r->conn) != 0;
		/* a tick due now is taken, with the handler still in place */
		(void) setitimer(ITIMER_PROF, &stop, NULL);
		pqsignal(SIGPROF, prev);
		guard_fd = -1;
		guard_null = -1;
		close(null_fd);
		if (guard_cut)
		{
			broken_over_limit(r);
			return false;
		}
	}
	if (!ok)
		remote_set_broken(r, PQerrorMessage(r->conn));
	return ok;
}

/* One result of a query, into the outcome */
static void
remote_take(Remote *r, PGresult *res)
{
	switch (PQresultStatus(res))
	{
		case PGRES_SINGLE_TUPLE:
			/* the first row of each result set: the last set's is the value */
			for (int f = 0; f < PQnfields(res); f++)
				r->result_bytes += PQgetlength(res, 0, f) + 4;
			r->result_bytes += 16;
			if (!r->failed && !r->in_set)
				take_value(r, PQnfields(res) > 0 && !PQgetisnull(res, 0, 0) ? PQgetvalue(res, 0, 0) : NULL);
			r->in_set = true;
			break;
		case PGRES_TUPLES_OK:
			/* the end of a result set (all of it when not one row at a time) */
			if (!r->failed && !r->in_set)
				take_value(r, PQntuples(res) > 0 && PQnfields(res) > 0 && !PQgetisnull(res, 0, 0)
						   ? PQgetvalue(res, 0, 0) : NULL);
			r->in_set = false;
			break;
		case PGRES_COMMAND_OK:
		case PGRES_EMPTY_QUERY:
			break;
		case PGRES_COPY_IN:
		case PGRES_COPY_OUT:
		case PGRES_COPY_BOTH:
			if (!r->failed)
			{
				r->failed = true;
				strlcpy(r->sqlstate, "08P01", sizeof(r->sqlstate));
				r->message = remote_strdup("the server began a COPY, which ranread never asks for");
			}
			break;
		default:
			if (!r->failed)
			{
				const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
				const char *m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
				const char *d = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);

				r->failed = true;
				strlcpy(r->sqlstate, st && strlen(st) == 5 ? st : "08006", sizeof(r->sqlstate));
				r->message = remote_scrubbed(r, m ? m : PQresultErrorMessage(res));
				r->detail = d ? remote_scrubbed(r, d) : NULL;
			}
			break;
	}
	PQclear(res);
}

/*
 * Progress on a remote without blocking.  ready: its socket reported ready
 * for what it waited for (PQconnectPoll may be called only then).
 */
void
remote_step(Remote *r, bool ready)
{
	if (r->state == RS_CONNECTING && r->lookups)
	{
		if (!lookups_running(r->lookups))
		{
			lookups_finish(r);
			return;
		}
		if (r->deadline != 0 && GetCurrentTimestamp() >= r->deadline)
		{
			remote_set_broken(r, psprintf("the lookup of host name \"%s\" did not finish within %d ms (%s)",
										  lookups_pending(r->lookups), r->timeout_ms, r->timeout_why));
		}
		return;
	}
	if (r->state == RS_CONNECTING)
	{
		if (ready && r->conn)
		{
			r->poll = PQconnectPoll(r->conn);
			if (r->poll == PGRES_POLLING_OK)
			{
				remote_connected(r);
				return;
			}
			if (r->poll == PGRES_POLLING_FAILED)
			{
				remote_set_broken(r, PQerrorMessage(r->conn));
				return;
			}
		}
		if (r->deadline != 0 && GetCurrentTimestamp() >= r->deadline)
			remote_set_broken(r, psprintf("the server did not answer the connection within %d ms (%s)",
								   r->timeout_ms, r->timeout_why));
		return;
	}
	if (r->state != RS_BUSY)
		return;
	if (r->flushing)
	{
		int			f = PQflush(r->conn);

		if (f < 0)
		{
			remote_set_broken(r, PQerrorMessage(r->conn));
			return;
		}
		r->flushing = f == 1;
	}
	if (!consume_input(r) || over_limit(r))
		return;
	while (!PQisBusy(r->conn))
	{
		PGresult   *res = PQgetResult(r->conn);

		if (res == NULL)
		{
			r->state = RS_DONE;
			break;
		}
		remote_take(r, res);
		CHECK_FOR_INTERRUPTS();
		if (over_limit(r))
			return;
	}
	if (r->state == RS_DONE && PQstatus(r->conn) == CONNECTION_BAD)
	{
		/* keep the outcome (the error that ended it), drop the connection */
		remote_close_connection(r);
	}
}

bool
remote_waiting(Remote *r)
{
	return r->state == RS_CONNECTING || r->state == RS_BUSY;
}

/* Send a query on an idle remote; false (and broken) when it cannot */
bool
remote_send(Remote *r, const char *sql)
{
	int			f;

	if (r->state == RS_DONE)
	{
		remote_clear_outcome(r);
		r->state = RS_IDLE;
	}
	if (r->state == RS_CONNECTING && r->queued == NULL)
	{
		r->queued = remote_strdup(sql);
		return true;
	}
	if (r->state == RS_BUSY || r->state == RS_CONNECTING)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("connection \"%s\" is %s: its outcome must be read first", r->name, remote_state_names[r->state])));
	if (r->state != RS_IDLE || r->conn == NULL)
		return false;
	remote_clear_outcome(r);
	if (!PQsendQuery(r->conn, sql))
	{
		remote_set_broken(r, PQerrorMessage(r->conn));
		return false;
	}
	/* rows one at a time, each dropped once read: see remote_take */
	(void) PQsetSingleRowMode(r->conn);
	r->in_set = false;
	r->result_bytes = 0;
	r->tcp_base = tcp_received(r);
	f = PQflush(r->conn);
	if (f < 0)
	{
		remote_set_broken(r, PQerrorMessage(r->conn));
		return false;
	}
	r->flushing = f == 1;
	r->state = RS_BUSY;
	return true;
}

