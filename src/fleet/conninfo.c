/*
 * conninfo.c
 *		Connection strings read by libpq's own rules, so that no password is
 *		ever stored, shown or logged: the SQL functions ranread_conninfo_*.
 *
 * Connection strings are read with PQconninfoParse, which knows key = value
 * strings and URIs (with percent-encoding and query parameters) exactly as
 * the connection will, and every option libpq marks secret (password,
 * sslpassword) is a password.  What is stored and shown is rebuilt from the
 * parsed options without them (ranread_conninfo_strip); names are host:port
 * (ranread_conninfo_name); messages are scrubbed of every spelling of each
 * password (ranread_conninfo_scrub, the spellings from secrets.c); and
 * ranread_conninfo_hide takes the passwords out of the text of the running
 * statement as the server logs it (log_min_error_statement's STATEMENT
 * line) and shows it (pg_stat_activity), so that a password typed into a
 * call reaches neither.  A string libpq cannot read is refused without
 * quoting any of it: libpq's own message quotes the text, which may hold a
 * password in a spelling libpq does not know.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <ctype.h>
#include <stdlib.h>

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "remote.h"

PG_FUNCTION_INFO_V1(ranread_conninfo_problem);
PG_FUNCTION_INFO_V1(ranread_conninfo_has_password);
PG_FUNCTION_INFO_V1(ranread_conninfo_strip);
PG_FUNCTION_INFO_V1(ranread_conninfo_name);
PG_FUNCTION_INFO_V1(ranread_conninfo_scrub);
PG_FUNCTION_INFO_V1(ranread_conninfo_hide);

/* the statement's text without its passwords (ranread_conninfo_hide) */
static char *hidden_query = NULL;

/*
 * What is wrong with a connection string libpq cannot read, in words that
 * quote none of it (libpq's own message quotes the text, which may hold a
 * password in a spelling libpq does not know).
 */
static const char *
parse_problem(const char *errmsg)
{
	if (errmsg == NULL)
		return "libpq cannot read it";
	if (strstr(errmsg, "invalid connection option") || strstr(errmsg, "invalid URI query parameter"))
		return "a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)";
	if (strstr(errmsg, "missing \"=\""))
		return "a word without \"= value\" (a connection string is keyword = value pairs, or a postgresql:// URI)";
	if (strstr(errmsg, "unterminated quoted string"))
		return "a quoted value without its closing quote";
	if (strstr(errmsg, "URI") || strstr(errmsg, "percent"))
		return "a malformed postgresql:// URI";
	if (strstr(errmsg, "invalid") && strstr(errmsg, "value"))
		return "a value libpq refuses";
	return "libpq cannot read it";
}

/* The parsed options, or NULL with *problem set */
PQconninfoOption *
conninfo_parse(const char *conninfo, const char **problem)
{
	char	   *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &err);

	*problem = NULL;
	if (opts == NULL)
	{
		*problem = parse_problem(err);
		if (err)
			PQfreemem(err);
	}
	return opts;
}

/* A value quoted for a connection string, when it needs quotes */
static void
append_value(StringInfo out, const char *v)
{
	bool		plain = *v != '\0';

	for (const char *p = v; *p && plain; p++)
		if (isspace((unsigned char) *p) || *p == '\'' || *p == '\\')
			plain = false;
	if (plain)
	{
		appendStringInfoString(out, v);
		return;
	}
	appendStringInfoChar(out, '\'');
	for (const char *p = v; *p; p++)
	{
		if (*p == '\'' || *p == '\\')
			appendStringInfoChar(out, '\\');
		appendStringInfoChar(out, *p);
	}
	appendStringInfoChar(out, '\'');
}

/* The options as keyword = value pairs, without the secret ones */
static char *
rebuild(PQconninfoOption *opts)
{
	StringInfoData out;

	initStringInfo(&out);
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || conninfo_secret_keyword(o->keyword))
			continue;
		if (out.len > 0)
			appendStringInfoChar(&out, ' ');
		appendStringInfo(&out, "%s=", o->keyword);
		append_value(&out, o->val);
	}
	return out.data;
}

const char *
conninfo_opt(PQconninfoOption *opts, const char *kw)
{
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, kw) == 0)
			return o->val;
	return NULL;
}

bool
conninfo_has_secret(PQconninfoOption *opts)
{
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && o->val[0] && conninfo_secret_keyword(o->keyword))
			return true;
	return false;
}

/* host:port as libpq will choose them (defaults from its environment) */
static char *
conninfo_name(PQconninfoOption *opts)
{
	const char *host = conninfo_opt(opts, "host");
	const char *port = conninfo_opt(opts, "port");
	const char *service = conninfo_opt(opts, "service");
	StringInfoData out;
	char	  **ports = NULL;
	int			nports = 0;
	char	   *h,
			   *pcopy,
			   *tok,
			   *save = NULL;
	int			k = 0;

	if (host == NULL || host[0] == '\0')
		host = conninfo_opt(opts, "hostaddr");
	if ((host == NULL || host[0] == '\0') && service && service[0])
		return psprintf("service=%s", service);
	if (host == NULL || host[0] == '\0')
		host = getenv("PGHOST");
	if (host == NULL || host[0] == '\0')
		host = DEFAULT_PGSOCKET_DIR[0] ? DEFAULT_PGSOCKET_DIR : "localhost";
	if (port == NULL || port[0] == '\0')
		port = getenv("PGPORT");
	if (port == NULL || port[0] == '\0')
		port = DEF_PGPORT_STR;

	pcopy = pstrdup(port);
	ports = palloc(sizeof(char *) * (strlen(port) + 1));
	for (tok = strtok_r(pcopy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		ports[nports++] = tok;
	initStringInfo(&out);
	h = pstrdup(host);
	save = NULL;
	for (tok = strtok_r(h, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++)
	{
		const char *pt = nports == 0 ? DEF_PGPORT_STR : nports == 1 ? ports[0] : k < nports ? ports[k] : "?";

		if (out.len > 0)
			appendStringInfoChar(&out, ',');
		appendStringInfo(&out, "%s:%s", tok, pt[0] ? pt : DEF_PGPORT_STR);
	}
	if (out.len == 0)
		appendStringInfo(&out, "%s:%s", host, port);
	return out.data;
}

/*
 * ranread_conninfo_problem(conninfo text) RETURNS text
 *
 * NULL when libpq reads the string; else what is wrong with it, quoting
 * none of it.
 */
Datum
ranread_conninfo_problem(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const char *problem;
	PQconninfoOption *opts = conninfo_parse(s, &problem);

	if (opts)
	{
		PQconninfoFree(opts);
		PG_RETURN_NULL();
	}
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}

/* The options, or an error (22023) saying what is wrong, quoting nothing */
static PQconninfoOption *
parse_or_error(const char *s)
{
	const char *problem;
	PQconninfoOption *opts = conninfo_parse(s, &problem);

	if (opts == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid connection string: %s", problem),
				 errhidestmt(true),
				 errhint("A connection string is libpq's: keyword = value pairs such as 'host=db2 port=5432 dbname=app', or a postgresql:// URI.")));
	return opts;
}

/*
 * The text that fn makes of the options libpq reads from the first argument
 * (a connection string); an error when libpq cannot read it.
 */
static Datum
conninfo_as_text(FunctionCallInfo fcinfo, char *(*fn) (PQconninfoOption *opts))
{
	PQconninfoOption *opts = parse_or_error(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	char	   *r = fn(opts);

	PQconninfoFree(opts);
	PG_RETURN_TEXT_P(cstring_to_text(r));
}

/*
 * ranread_conninfo_has_password(conninfo text) RETURNS boolean
 *
 * Whether libpq would take a password (or another secret) from it; an
 * error when libpq cannot read it.
 */
Datum
ranread_conninfo_has_password(PG_FUNCTION_ARGS)
{
	PQconninfoOption *opts = parse_or_error(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	bool		r = conninfo_has_secret(opts);

	PQconninfoFree(opts);
	PG_RETURN_BOOL(r);
}

/*
 * ranread_conninfo_strip(conninfo text) RETURNS text
 *
 * The connection string as it may be stored and shown: the options libpq
 * reads from it, as keyword = value pairs, without any password.
 */
Datum
ranread_conninfo_strip(PG_FUNCTION_ARGS)
{
	return conninfo_as_text(fcinfo, rebuild);
}

/*
 * ranread_conninfo_name(conninfo text) RETURNS text
 *
 * A node's name in rows and charts: host:port (each of a host list), as
 * libpq will choose them.
 */
Datum
ranread_conninfo_name(PG_FUNCTION_ARGS)
{
	return conninfo_as_text(fcinfo, conninfo_name);
}

/*
 * ranread_conninfo_scrub(msg text, conninfo text) RETURNS text
 *
 * A message with every spelling of the connection string's passwords
 * blanked out.  With a string libpq cannot read, the message is withheld.
 */
Datum
ranread_conninfo_scrub(PG_FUNCTION_ARGS)
{
	char	   *msg;
	char	   *ci;
	const char *problem;
	PQconninfoOption *opts;
	List	   *sp;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	msg = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ci = text_to_cstring(PG_GETARG_TEXT_PP(1));
	opts = conninfo_parse(ci, &problem);
	if (opts == NULL)
		PG_RETURN_TEXT_P(cstring_to_text("(a message withheld: it may hold a password of an unreadable connection string)"));
	sp = conninfo_secret_spellings(ci, opts);
	PQconninfoFree(opts);
	PG_RETURN_TEXT_P(cstring_to_text(conninfo_replace_all(msg, sp, SCRUBBED)));
}

/* A plain word (a name of ranread_nodes): [A-Za-z0-9_.-], 1 to 63 bytes */
static bool
plain_word(const char *s)
{
	int			n = strlen(s);

	if (n < 1 || n > 63)
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char) *p) || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return true;
}

/*
 * ranread_conninfo_hide(conninfos text[]) RETURNS void
 *
 * Take the passwords of these connection strings, and any string libpq
 * cannot read whole, out of the running statement's text as the server
 * logs it (the STATEMENT line of an error, a cancel or a terminate) and
 * shows it (pg_stat_activity.query).  The fleet calls this first, before
 * anything can fail.  What log_statement logged before the call began is
 * the server's: README says to prefer ranread_nodes and a password file.
 */
Datum
ranread_conninfo_hide(PG_FUNCTION_ARGS)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *pats = NIL;
	char	   *q;

	if (PG_ARGISNULL(0) || debug_query_string == NULL)
		PG_RETURN_VOID();
	arr = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *ci;
		const char *problem;
		PQconninfoOption *opts;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			continue;
		ci = TextDatumGetCString(elems[i]);
		if (ci[0] == '\0')
			continue;
		opts = conninfo_parse(ci, &problem);
		if (opts == NULL && plain_word(ci))
			continue;			/* a node's name, or an unknown one: no secret */
		if (opts == NULL)
		{
			/*
			 * unreadable: any of it may be a password; a short one (no room
			 * for much of a secret) only as a whole literal, lest it spoil
			 * the rest of the text
			 */
			pats = conninfo_add_patterns(pats, conninfo_add_spelling(NIL, ci, strlen(ci)),
								"(unreadable connection string)", strlen(ci) < 8);
			continue;
		}
		if (conninfo_has_secret(opts))
		{
			pats = conninfo_add_patterns(pats, conninfo_add_spelling(NIL, ci, strlen(ci)), rebuild(opts), false);
			pats = conninfo_add_patterns(pats, conninfo_secret_spellings(ci, opts), SCRUBBED, false);
		}
		PQconninfoFree(opts);
	}
	if (pats == NIL)
		PG_RETURN_VOID();
	q = conninfo_replace_once(debug_query_string, pats);
	if (strcmp(q, debug_query_string) != 0)
	{
		char	   *copy = MemoryContextStrdup(TopMemoryContext, q);
		char	   *old = hidden_query;

		debug_query_string = copy;
		hidden_query = copy;
		if (old)
			pfree(old);
		if (pgstat_track_activities)
		{
			uint64		qid = pgstat_get_my_query_id();

			pgstat_report_activity(STATE_RUNNING, copy);
			pgstat_report_query_id(qid, true);
		}
	}
	PG_RETURN_VOID();
}

