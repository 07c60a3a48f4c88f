/*
 * cancel.c
 *		The cancel that cannot block, and the probe of a busy node: each a
 *		query on a connection of its own (src/fleet/remote.h).
 *
 * PQcancel connects to the node and waits for it, which is what a frozen
 * node never answers.  ranread_remote_cancel instead asks the node, over a
 * connection of its own and under a deadline, to pg_cancel_backend() the
 * busy session: its pid and, over TCP, the client port of our end.  That
 * connection goes to the very host and port the busy one is on (never
 * another host of a host list, which could have a session of that pid).
 * It is the busy connection's spare when it has one: made ahead by
 * ranread_remote_spare (the fleet makes one to each node when the probe is
 * done), so that the cancel waits for no session to start on the node,
 * which on a loaded machine takes tenths of a second; a spare that answered
 * is kept for the next cancel or probe, one that turns out broken is
 * replaced by a fresh connection within the time left.  Else it is a fresh
 * connection, made asynchronously under the same deadline.  A node that
 * does not answer within the deadline is given up.  ranread_remote_probe
 * asks any question the same way (a fleet run by iterations asks whether a
 * ranread worker runs there).  None of these connections is in the
 * registry: a spare belongs to its connection and is freed with it, when
 * it breaks, or when the outcome it stood by for is taken; every other one
 * is freed here whatever happens, by PG_FINALLY.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "remote.h"

PG_FUNCTION_INFO_V1(ranread_remote_cancel);
PG_FUNCTION_INFO_V1(ranread_remote_probe);
PG_FUNCTION_INFO_V1(ranread_remote_spare);

/*
 * The connection a side query of r goes over: its spare, taken (made
 * ahead: nothing to wait for but the answer), else a fresh one to the very
 * server r is on (same connection string, pinned to its host and port),
 * within timeout_ms
 */
static Remote *
side_start(Remote *r, int timeout, bool *spare)
{
	Remote	   *s = r->spare;

	*spare = s != NULL && s->state == RS_IDLE && s->conn != NULL;
	if (*spare)
	{
		r->spare = NULL;
		return s;
	}
	remote_drop_spare(r);
	return remote_start("side", r->conninfo, timeout, false, r);
}

/*
 * A query on a connection of its own to the very server each named
 * connection is on (side_start), all at once, everything within
 * timeout_ms: the outcome of each in side[i] (NULL where sqls[i] is NULL
 * or the named one is not busy), to be freed by the caller; owner[i] the
 * named one, spare[i] whether side[i] is its spare.  A spare that turns
 * out broken (its server closed it while it waited) is replaced by a fresh
 * connection, once, within the time left.
 */
static void
side_queries(char **names, int n, char **sqls, int timeout, Remote **side, Remote **owner, bool *spare)
{
	TimestampTz until = remote_deadline_in(timeout);
	bool	   *sent = palloc0(sizeof(bool) * (n + 1));

	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? remote_find(names[i]) : NULL;

		if (r == NULL || sqls[i] == NULL || r->state != RS_BUSY || r->conninfo == NULL || r->pid == 0)
			continue;
		owner[i] = r;
		side[i] = side_start(r, timeout, &spare[i]);
	}
	for (;;)
	{
		bool		waiting = false;
		long		left;
		Remote	  **live = palloc0(sizeof(Remote *) * (n + 1));
		int			nl = 0;

		for (int i = 0; i < n; i++)
		{
			if (side[i] == NULL)
				continue;
			if (spare[i] && side[i]->state == RS_BROKEN)
			{
				remote_free(side[i]);
				side[i] = remote_start("side", owner[i]->conninfo, (int) remote_ms_left(until), false, owner[i]);
				spare[i] = false;
				sent[i] = false;
			}
			if (side[i]->state == RS_IDLE && !sent[i])
			{
				sent[i] = true;
				if (!remote_send(side[i], sqls[i]))
					continue;
			}
			if (remote_waiting(side[i]))
			{
				waiting = true;
				live[nl++] = side[i];
			}
		}
		if (!waiting)
			break;
		left = remote_ms_left(until);
		if (left == 0)
			break;
		remote_wait_once(live, nl, left);
	}
}

/*
 * side_queries, then each answer (the first column of the first row, in
 * this memory context), or NULL where there is none: no query, no answer in
 * time, or a failure.  A spare that answered goes back to its connection,
 * idle, for the next cancel or probe; every other side connection is
 * closed, whatever happens.
 */
static char **
side_answers(char **names, int n, char **sqls, int timeout)
{
	Remote	  **side = palloc0(sizeof(Remote *) * (n + 1));
	Remote	  **owner = palloc0(sizeof(Remote *) * (n + 1));
	bool	   *spare = palloc0(sizeof(bool) * (n + 1));
	char	  **answers = palloc0(sizeof(char *) * (n + 1));

	PG_TRY();
	{
		side_queries(names, n, sqls, timeout, side, owner, spare);
		for (int i = 0; i < n; i++)
		{
			if (side[i] == NULL || side[i]->state != RS_DONE || side[i]->failed)
				continue;
			if (side[i]->value)
				answers[i] = pstrdup(side[i]->value);
			if (spare[i] && side[i]->conn && owner[i]->spare == NULL)
			{
				remote_clear_outcome(side[i]);
				side[i]->state = RS_IDLE;
				owner[i]->spare = side[i];
				side[i] = NULL;
			}
		}
	}
	PG_FINALLY();
	{
		for (int i = 0; i < n; i++)
			if (side[i])
				remote_free(side[i]);
	}
	PG_END_TRY();
	return answers;
}

/*
 * ranread_remote_cancel(names text[], timeout_ms integer) RETURNS boolean[]
 *
 * Cancel the query in flight on each named connection: a fresh connection
 * to its server (same connection string) asks pg_cancel_backend() of the
 * busy session, all at once, everything within timeout_ms.  Per name,
 * whether the server took the cancel; a server that does not answer in
 * time is given up (false).  Nothing here can wait longer.
 */
Datum
ranread_remote_cancel(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	int			timeout = remote_timeout_arg(fcinfo, 1);
	char	  **sqls = palloc0(sizeof(char *) * (n + 1));
	char	  **answers;
	Datum	   *out = palloc0(sizeof(Datum) * (n + 1));
	bool	   *outnull = palloc0(sizeof(bool) * (n + 1));

	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? remote_find(names[i]) : NULL;

		/* that session: its pid and, over TCP, our end's port */
		if (r)
			sqls[i] = psprintf("SELECT pg_catalog.pg_cancel_backend(a.pid) FROM pg_catalog.pg_stat_activity a"
							   " WHERE a.pid = %d AND (%d < 0 OR a.client_port = %d)",
							   r->pid, r->local_port, r->local_port);
	}
	answers = side_answers(names, n, sqls, timeout);
	for (int i = 0; i < n; i++)
		out[i] = BoolGetDatum(answers[i] && strcmp(answers[i], "t") == 0);
	PG_RETURN_ARRAYTYPE_P(remote_result_array(out, outnull, n, BOOLOID));
}

/*
 * ranread_remote_probe(names text[], sql text, timeout_ms integer) RETURNS text[]
 *
 * Ask the server of each busy named connection a question on a fresh
 * connection (as ranread_remote_cancel does), all at once, everything
 * within timeout_ms: per name, the answer (the first column of the first
 * row), or NULL when the connection is not busy, or its server did not
 * answer in time or failed.  A fleet run by iterations uses it to tell a
 * node at work from a frozen one.
 */
Datum
ranread_remote_probe(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names;
	char	   *sql;
	int			timeout = remote_timeout_arg(fcinfo, 2);
	char	  **sqls;
	char	  **answers;
	Datum	   *out;
	bool	   *outnull;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("names and sql of ranread_remote_probe must not be null")));
	names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	sqls = palloc0(sizeof(char *) * (n + 1));
	out = palloc0(sizeof(Datum) * (n + 1));
	outnull = palloc0(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
		sqls[i] = sql;
	answers = side_answers(names, n, sqls, timeout);
	for (int i = 0; i < n; i++)
	{
		outnull[i] = answers[i] == NULL;
		if (!outnull[i])
			out[i] = PointerGetDatum(cstring_to_text(answers[i]));
	}
	PG_RETURN_ARRAYTYPE_P(remote_result_array(out, outnull, n, TEXTOID));
}

/*
 * ranread_remote_spare(names text[], timeout_ms integer) RETURNS boolean[]
 *
 * A spare for each named connection that is up: a connection of its own to
 * the very server it is on, made now, all at once, within timeout_ms (NULL:
 * each within its connect timeout), so that a cancel or a probe of it later
 * has no connection to wait for (on a loaded machine a server takes tenths
 * of a second to start a session).  Per name, whether it has a spare
 * ready; one not ready in time is closed, and a cancel of that connection
 * makes a fresh one as before.  A spare is closed with its connection, when
 * that breaks, or when the outcome of its query is taken
 * (ranread_remote_result): then no cancel of it can be needed.
 */
Datum
ranread_remote_spare(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names;
	int			timeout = remote_timeout_arg(fcinfo, 1);
	Remote	  **rs;
	Remote	  **spares;
	int			ns = 0;
	Datum	   *out;
	bool	   *outnull;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("names of ranread_remote_spare must not be null")));
	names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	rs = palloc0(sizeof(Remote *) * (n + 1));
	spares = palloc0(sizeof(Remote *) * (n + 1));
	out = palloc0(sizeof(Datum) * (n + 1));
	outnull = palloc0(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? remote_find(names[i]) : NULL;

		if (r == NULL || (r->state != RS_IDLE && r->state != RS_BUSY) ||
			r->conninfo == NULL || r->pid == 0)
			continue;
		remote_drop_spare(r);
		r->spare = remote_start("spare", r->conninfo, timeout, false, r);
		rs[i] = r;
		spares[ns++] = r->spare;
	}
	remote_wait_all(spares, ns, remote_deadline_in(timeout));
	for (int i = 0; i < n; i++)
	{
		if (rs[i] && rs[i]->spare && rs[i]->spare->state != RS_IDLE)
			remote_drop_spare(rs[i]);
		out[i] = BoolGetDatum(rs[i] && rs[i]->spare);
	}
	PG_RETURN_ARRAYTYPE_P(remote_result_array(out, outnull, n, BOOLOID));
}
