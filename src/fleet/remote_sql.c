/*
 * remote_sql.c
 *		The SQL functions ranread_internal.ranread_remote_*: the fleet's
 *		connections as the coordinator (sql/code/51_fleet_loop.sql) and the
 *		durability check (sql/code/04_durability.sql) use them.
 *
 * Each takes connections by name and returns what plpgsql reads easily:
 * per name NULL or why not (connect, send), the names that are ready
 * (wait), an outcome as jsonb (result), or a value and an error with the
 * node's SQLSTATE (query).  The cancel and the probe are in cancel.c.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "remote.h"

PG_FUNCTION_INFO_V1(ranread_remote_connect);
PG_FUNCTION_INFO_V1(ranread_remote_send);
PG_FUNCTION_INFO_V1(ranread_remote_wait);
PG_FUNCTION_INFO_V1(ranread_remote_result);
PG_FUNCTION_INFO_V1(ranread_remote_query);
PG_FUNCTION_INFO_V1(ranread_remote_state);
PG_FUNCTION_INFO_V1(ranread_remote_close);
PG_FUNCTION_INFO_V1(ranread_remote_last_words);

Remote *
remote_get(text *t)
{
	char	   *name = text_to_cstring(t);
	Remote	   *r = remote_find(name);

	if (r == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("there is no connection named \"%s\"", name)));
	return r;
}

/* A text[] argument as C strings; NULL elements NULL */
char **
remote_text_array(ArrayType *arr, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **out;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a one-dimensional array is needed")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, n);
	out = palloc0(sizeof(char *) * (*n + 1));
	for (int i = 0; i < *n; i++)
		out[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	return out;
}

int
remote_timeout_arg(FunctionCallInfo fcinfo, int argno)
{
	int			t;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return -1;
	t = PG_GETARG_INT32(argno);
	return t < 0 ? 0 : t;
}

/* A one-dimensional array of n elements of type (text or boolean) */
ArrayType *
remote_result_array(Datum *out, bool *outnull, int n, Oid type)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};

	Assert(type == TEXTOID || type == BOOLOID);
	if (type == BOOLOID)
		return construct_md_array(out, outnull, n == 0 ? 0 : 1, dims, lbs,
								  BOOLOID, 1, true, TYPALIGN_CHAR);
	return construct_md_array(out, outnull, n == 0 ? 0 : 1, dims, lbs,
							  TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * ranread_remote_connect(names text[], conninfos text[], timeout_ms integer,
 *						  wait boolean) RETURNS text[]
 *
 * Connect each name to its server, all at once, each within its
 * connection string's connect_timeout (ranread's 10 s when it gives none)
 * and within timeout_ms (NULL: no more bound).  Returns, per name, NULL when
 * connected, else why not (without its passwords).  A name already open is
 * closed first.  With wait false, returns at once: NULL for those still
 * connecting, whose first query (ranread_remote_send) waits for the
 * connection, and ranread_remote_wait reports them when they fail.
 */
Datum
ranread_remote_connect(PG_FUNCTION_ARGS)
{
	int			n,
				m;
	char	  **names;
	char	  **cis;
	int			timeout = remote_timeout_arg(fcinfo, 2);
	bool		wait = PG_NARGS() < 4 || PG_ARGISNULL(3) || PG_GETARG_BOOL(3);
	Remote	  **rs;
	Datum	   *out;
	bool	   *outnull;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("names and conninfos of ranread_remote_connect must not be null")));
	names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	cis = remote_text_array(PG_GETARG_ARRAYTYPE_P(1), &m);
	if (n != m)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ranread_remote_connect needs as many connection strings as names, not %d and %d", m, n)));
	remote_set_callbacks();
	for (int i = 0; i < n; i++)
	{
		Remote	   *old;

		if (names[i] == NULL || cis[i] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("names and conninfos of ranread_remote_connect must not hold a null")));
		remote_check_name(names[i]);
		if ((old = remote_find(names[i])) != NULL)
			remote_drop(old);
	}
	rs = palloc0(sizeof(Remote *) * (n + 1));
	for (int i = 0; i < n; i++)
		rs[i] = remote_start(names[i], cis[i], timeout, true, NULL);
	if (wait)
		remote_wait_all(rs, n, 0);

	out = palloc(sizeof(Datum) * (n + 1));
	outnull = palloc(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		outnull[i] = rs[i]->state != RS_BROKEN;
		out[i] = outnull[i] ? (Datum) 0 :
			PointerGetDatum(cstring_to_text(rs[i]->message ? rs[i]->message : "the connection failed"));
	}
	PG_RETURN_ARRAYTYPE_P(remote_result_array(out, outnull, n, TEXTOID));
}

/*
 * ranread_remote_send(name text, sql text) RETURNS text
 *
 * Send a query without waiting for it.  NULL when sent; else why not (the
 * connection is broken).
 */
Datum
ranread_remote_send(PG_FUNCTION_ARGS)
{
	Remote	   *r = remote_get(PG_GETARG_TEXT_PP(0));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));

	if (remote_send(r, sql))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(r->message ? r->message : "the connection is closed"));
}

/*
 * ranread_remote_wait(names text[], timeout_ms integer) RETURNS text[]
 *
 * Wait, at most timeout_ms (NULL: until one is ready), until the outcome of
 * at least one of the named connections is ready (its query answered,
 * failed, or its connection broken); returns the names that are ready, in
 * their order (empty when the time ran out).
 */
Datum
ranread_remote_wait(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	TimestampTz until = remote_deadline_in(remote_timeout_arg(fcinfo, 1));
	Remote	  **rs = palloc0(sizeof(Remote *) * (n + 1));
	int			nr = 0;
	ArrayBuildState *astate = NULL;

	for (int i = 0; i < n; i++)
		if (names[i])
		{
			Remote	   *r = remote_find(names[i]);

			if (r == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_OBJECT),
						 errmsg("there is no connection named \"%s\"", names[i])));
			rs[nr++] = r;
		}
	for (;;)
	{
		bool		ready = false;
		bool		waiting = false;
		long		left;

		for (int i = 0; i < nr; i++)
		{
			if (remote_waiting(rs[i]))
			{
				remote_step(rs[i], false);
				waiting = waiting || remote_waiting(rs[i]);
			}
			if (rs[i]->state == RS_DONE || rs[i]->state == RS_BROKEN)
				ready = true;
		}
		if (ready || !waiting)
			break;
		left = remote_ms_left(until);
		if (left == 0)
			break;
		remote_wait_once(rs, nr, left);
	}
	astate = initArrayResult(TEXTOID, CurrentMemoryContext, false);
	for (int i = 0; i < nr; i++)
		if (rs[i]->state == RS_DONE || rs[i]->state == RS_BROKEN)
			astate = accumArrayResult(astate, PointerGetDatum(cstring_to_text(rs[i]->name)),
									  false, TEXTOID, CurrentMemoryContext);
	PG_RETURN_DATUM(makeArrayResult(astate, CurrentMemoryContext));
}

/* The outcome as jsonb; taken (the remote is idle again) unless busy */
static Datum
outcome_jsonb(Remote *r)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"state\": ");
	if (r->state == RS_DONE)
		escape_json(&b, r->failed ? "error" : "ok");
	else
		escape_json(&b, remote_state_names[r->state]);
	if (r->state == RS_DONE && !r->failed)
	{
		appendStringInfoString(&b, ", \"value\": ");
		if (r->value)
			escape_json(&b, r->value);
		else
			appendStringInfoString(&b, "null");
	}
	if (r->failed)
	{
		appendStringInfoString(&b, ", \"sqlstate\": ");
		escape_json(&b, r->sqlstate);
		appendStringInfoString(&b, ", \"message\": ");
		escape_json(&b, r->message ? r->message : "");
		if (r->detail)
		{
			appendStringInfoString(&b, ", \"detail\": ");
			escape_json(&b, r->detail);
		}
	}
	appendStringInfoChar(&b, '}');
	if (r->state == RS_DONE)
	{
		remote_clear_outcome(r);
		/* what it stood by for is over: no cancel of it can be needed now */
		remote_drop_spare(r);
		r->state = r->conn ? RS_IDLE : RS_BROKEN;
		if (r->state == RS_BROKEN)
		{
			r->failed = true;
			strlcpy(r->sqlstate, "08006", sizeof(r->sqlstate));
			r->message = remote_strdup("the connection was lost");
		}
	}
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/*
 * ranread_remote_result(name text, timeout_ms integer) RETURNS jsonb
 *
 * The outcome of the query in flight, waiting at most timeout_ms (NULL:
 * until it comes): {"state": "ok", "value": ...} (the first column of the
 * first row, or null), {"state": "error", "sqlstate", "message", "detail"}
 * (the node's error), {"state": "broken", ...} (the connection is lost),
 * {"state": "busy"} (no answer yet) or {"state": "idle"} (nothing sent).
 */
Datum
ranread_remote_result(PG_FUNCTION_ARGS)
{
	Remote	   *r = remote_get(PG_GETARG_TEXT_PP(0));
	TimestampTz until = remote_deadline_in(remote_timeout_arg(fcinfo, 1));

	(void) remote_await(&r, until);
	PG_RETURN_DATUM(outcome_jsonb(r));
}

/*
 * ranread_remote_query(name text, sql text, timeout_ms integer) RETURNS text
 *
 * A query and its answer (the first column of the first row), within
 * timeout_ms (NULL: no bound).  The node's error is raised with its
 * SQLSTATE, but for a cancel there (57000, so that plpgsql's WHEN OTHERS
 * tells it from a cancel of this call) and an internal error (38000); a
 * connection that is lost, or does not answer in time (then closed),
 * raises 08006.
 */
Datum
ranread_remote_query(PG_FUNCTION_ARGS)
{
	Remote	   *r = remote_get(PG_GETARG_TEXT_PP(0));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			timeout = remote_timeout_arg(fcinfo, 2);
	TimestampTz until = remote_deadline_in(timeout);
	char	   *value;

	if (!remote_send(r, sql))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("%s", r->message ? r->message : "the connection is closed")));
	if (!remote_await(&r, until))
		remote_set_broken(r, psprintf("the server did not answer within %d ms", timeout));
	if (r->state == RS_BROKEN || r->failed)
	{
		char		st[6];
		char	   *m = pstrdup(r->message ? r->message : "the query failed");
		char	   *d = r->detail ? pstrdup(r->detail) : NULL;

		strlcpy(st, r->sqlstate[0] ? r->sqlstate : "08006", sizeof(st));
		if (st[0] == 'X' && st[1] == 'X')
			strlcpy(st, "38000", sizeof(st));
		if (strcmp(st, "57014") == 0)
			strlcpy(st, "57000", sizeof(st));
		if (r->state == RS_DONE)
		{
			remote_clear_outcome(r);
			r->state = r->conn ? RS_IDLE : RS_BROKEN;
		}
		ereport(ERROR,
				(errcode(MAKE_SQLSTATE(st[0], st[1], st[2], st[3], st[4])),
				 errmsg("%s", m),
				 d ? errdetail("%s", d) : 0));
	}
	value = r->value ? pstrdup(r->value) : NULL;
	remote_clear_outcome(r);
	r->state = r->conn ? RS_IDLE : RS_BROKEN;
	if (value == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(value));
}

/*
 * ranread_remote_state(name text) RETURNS text
 *
 * connecting, idle, busy, done, broken, or NULL when there is no such
 * connection.  A busy one is checked for news first, without waiting.
 */
Datum
ranread_remote_state(PG_FUNCTION_ARGS)
{
	Remote	   *r = remote_find(text_to_cstring(PG_GETARG_TEXT_PP(0)));

	if (r == NULL)
		PG_RETURN_NULL();
	if (r->state == RS_BUSY)
		remote_step(r, false);
	PG_RETURN_TEXT_P(cstring_to_text(remote_state_names[r->state]));
}

/*
 * ranread_remote_close(names text[]) RETURNS void
 *
 * Close the named connections that are open (without waiting for anything:
 * a query in flight is abandoned, and its server sees the connection go).
 */
Datum
ranread_remote_close(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	names = remote_text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? remote_find(names[i]) : NULL;

		if (r)
			remote_drop(r);
	}
	PG_RETURN_VOID();
}

/*
 * ranread_remote_last_words(name text, sql text) RETURNS void
 *
 * The statement to send on the named connection when it is closed, by
 * ranread_remote_close, at the end of the transaction or when this backend
 * exits (a terminate), unless the call clears it first (sql NULL): see the
 * top of this file.  It is sent only on a connection with nothing in
 * flight, and without waiting for it.
 */
Datum
ranread_remote_last_words(PG_FUNCTION_ARGS)
{
	Remote	   *r;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	r = remote_get(PG_GETARG_TEXT_PP(0));
	free(r->last_words);
	r->last_words = PG_ARGISNULL(1) ? NULL : remote_strdup(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_VOID();
}

