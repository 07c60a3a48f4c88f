/*
 * probe_cron.c
 *		What pg_cron needs on this server to run a scheduled probe
 *		(docs/keeping-watch.md, "On a schedule"; docs/design.md, "Keeping
 *		watch: the probe and its schedule").
 *
 * pg_cron runs a job either in a background worker of its own
 * (cron.use_background_workers = on) or through a libpq connection of its
 * own, without a password, to cron.host at this server's port, as the role
 * that scheduled the job, in cron.database_name.  On Debian's default
 * pg_hba.conf that connection (to localhost over TCP) needs a password, and
 * every run of the job ends in "connection failed".  ranread_probe_schedule
 * (sql/code/61_probe.sql) refuses a schedule that would fail so; it decides
 * in PL/pgSQL from what is read here:
 *
 *	 - ranread_probe_cron_settings(): pg_cron's settings as this server
 *	   runs them (NULL when pg_cron is not loaded at server start).  C,
 *	   because pg_cron marks them GUC_SUPERUSER_ONLY, and a monitoring role
 *	   scheduling its probes must still be told what is missing.
 *	 - ranread_probe_cron_connect(socket boolean): makes the connection
 *	   pg_cron would make, now, and returns libpq's error (NULL when it
 *	   connected).  Same server process environment as pg_cron's launcher
 *	   (a child of the postmaster, the same operating-system user, so the
 *	   same .pgpass and peer identity), the same keywords, no password.
 *	   The host is cron.host, or with socket the first of
 *	   unix_socket_directories (to say whether pointing cron.host there
 *	   would do); never a host of the caller's choosing, and the role is
 *	   always the caller's own: nothing is reached that the caller's own
 *	   scheduled job would not reach.  The connection is closed as soon as
 *	   it is up; its wait is bounded (10 s) and interruptible.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq-fe.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "postmaster/postmaster.h"
#include "storage/fd.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/varlena.h"
#include "utils/wait_event.h"

#include "sqlfunc.h"

PG_FUNCTION_INFO_V1(ranread_probe_cron_settings);
PG_FUNCTION_INFO_V1(ranread_probe_cron_connect);

/* how long the connection pg_cron would make may take to come up */
#define CRON_CONNECT_TIMEOUT_MS 10000

/*
 * ranread_internal.ranread_probe_cron_settings(OUT database_name text,
 * OUT background_workers boolean, OUT host text, OUT port integer,
 * OUT socket text): pg_cron's settings, all NULL but port and socket when
 * pg_cron is not loaded (its settings exist only once shared_preload_libraries
 * loaded it); socket is the first of unix_socket_directories, or NULL
 */
Datum
ranread_probe_cron_settings(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5];
	const char *dbname = GetConfigOption("cron.database_name", true, false);
	const char *bgw = GetConfigOption("cron.use_background_workers", true, false);
	const char *host = GetConfigOption("cron.host", true, false);
	char	   *dirs;
	List	   *dirlist = NIL;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	memset(nulls, 0, sizeof(nulls));

	nulls[0] = dbname == NULL;
	values[0] = dbname ? CStringGetTextDatum(dbname) : (Datum) 0;
	nulls[1] = bgw == NULL;
	values[1] = BoolGetDatum(bgw != NULL && strcmp(bgw, "on") == 0);
	nulls[2] = host == NULL;
	values[2] = host ? CStringGetTextDatum(host) : (Datum) 0;
	values[3] = Int32GetDatum(PostPortNumber);
	dirs = pstrdup(Unix_socket_directories ? Unix_socket_directories : "");
	if (SplitDirectoriesString(dirs, ',', &dirlist) && dirlist != NIL)
		values[4] = CStringGetTextDatum((char *) linitial(dirlist));
	else
		nulls[4] = true;

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* libpq's message on one line: its lines (one per address tried) joined */
static char *
one_line(const char *msg)
{
	StringInfoData s;
	const char *p;

	initStringInfo(&s);
	for (p = msg; *p; p++)
	{
		if (*p == '\n')
		{
			if (p[1] != '\0')
				appendStringInfoString(&s, "; ");
		}
		else
			appendStringInfoChar(&s, *p);
	}
	return s.data;
}

/*
 * Connect as pg_cron would to host at this server's port, in this database,
 * as the current role, and close: NULL when the connection came up, else
 * why not (libpq's message)
 */
static char *
connect_as_cron(const char *host)
{
	char		port[12];
	char	   *user = GetUserNameFromId(GetUserId(), false);
	char	   *dbname = get_database_name(MyDatabaseId);
	const char *kw[] = {"host", "port", "fallback_application_name", "client_encoding",
	"dbname", "user", NULL};
	const char *vals[] = {host, port, "ranread_probe_schedule", GetDatabaseEncodingName(),
	dbname, user, NULL};
	PGconn	   *volatile conn = NULL;
	char	   *volatile why = NULL;
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), CRON_CONNECT_TIMEOUT_MS);

	snprintf(port, sizeof(port), "%d", PostPortNumber);
	if (!AcquireExternalFD())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("too many files open in this backend to try the connection pg_cron would make"),
				 errhint("Close other connections of this session (dblink, fleets) and call it again.")));
	PG_TRY();
	{
		PostgresPollingStatusType st = PGRES_POLLING_WRITING;

		conn = PQconnectStartParams(kw, vals, 0);
		if (conn == NULL)
			why = "out of memory";
		else if (PQstatus(conn) == CONNECTION_BAD)
			st = PGRES_POLLING_FAILED;
		while (why == NULL && st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED)
		{
			long		left = TimestampDifferenceMilliseconds(GetCurrentTimestamp(), deadline);
			int			rc;

			if (left <= 0)
			{
				why = psprintf("no answer within %d s", CRON_CONNECT_TIMEOUT_MS / 1000);
				break;
			}
			rc = WaitLatchOrSocket(MyLatch,
								   WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH |
								   (st == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE),
								   PQsocket(conn), left, PG_WAIT_EXTENSION);
			if (rc & WL_LATCH_SET)
				ResetLatch(MyLatch);
			CHECK_FOR_INTERRUPTS();
			if (rc & (WL_SOCKET_READABLE | WL_SOCKET_WRITEABLE))
				st = PQconnectPoll(conn);
		}
		if (why == NULL && PQstatus(conn) != CONNECTION_OK)
			why = one_line(PQerrorMessage(conn));
	}
	PG_FINALLY();
	{
		if (conn != NULL)
			PQfinish(conn);
		ReleaseExternalFD();
	}
	PG_END_TRY();
	return why;
}

/*
 * ranread_internal.ranread_probe_cron_connect(socket boolean): the
 * connection pg_cron would make for a job of the current role, to cron.host
 * (socket false) or to the first of unix_socket_directories (socket true);
 * NULL when it came up, libpq's error when not.  NULL too when there is no
 * such host (pg_cron not loaded, no socket directory): nothing was tried.
 */
Datum
ranread_probe_cron_connect(PG_FUNCTION_ARGS)
{
	bool		socket = !PG_ARGISNULL(0) && PG_GETARG_BOOL(0);
	const char *host;
	char	   *why;

	if (socket)
	{
		char	   *dirs = pstrdup(Unix_socket_directories ? Unix_socket_directories : "");
		List	   *dirlist = NIL;

		host = SplitDirectoriesString(dirs, ',', &dirlist) && dirlist != NIL
			? (const char *) linitial(dirlist) : NULL;
	}
	else
		host = GetConfigOption("cron.host", true, false);
	if (host == NULL)
		PG_RETURN_NULL();
	why = connect_as_cron(host);
	if (why == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(why));
}
