/*
 * repair.c
 *		Upkeep of the history: batches a crash left 'running', who holds the
 *		locks a recording waits for, and ranread_reset.
 *
 * The history rows themselves are written by history.c, in the recording
 * worker's own transactions, as the extension's owner.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "history.h"

PG_FUNCTION_INFO_V1(ranread_reset);

/*
 * Mark this database's batches left 'running' as failed: only one batch
 * runs in the cluster, and it is ours, so any other is an orphan of a crash
 * or of a recording that gave up.
 */
void
history_repair_orphans(const BatchParams *p)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(p->batch)};

	if (SPI_execute_with_args(psprintf("UPDATE %s.ranread_batches SET status = 'failed', "
									   "finished_at = pg_catalog.now(), message = COALESCE(message, "
									   "'the batch was interrupted before its history was written "
									   "(a server restart, a killed worker, or a recording that gave up)') "
									   "WHERE status OPERATOR(pg_catalog.=) 'running' AND batch OPERATOR(pg_catalog.<>) $1",
									   quote_identifier(p->schema)),
							  1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not repair the ranread history");
}

/*
 * Say who holds or waits for a lock that keeps the recorder from the
 * history tables, in bs->blocked_by; its own transaction, errors ignored.
 */
static void
describe_blockers(BatchShared *bs)
{
	Oid			types[1] = {TEXTOID};
	Datum		values[1] = {CStringGetTextDatum(bs->p.schema)};

	bs->blocked_by[0] = '\0';
	if (SPI_execute_with_args("SELECT pg_catalog.string_agg(pg_catalog.format('PID %s %s %s on %s (%s)', "
							  "l.pid, CASE WHEN l.granted THEN 'holds' ELSE 'waits for' END, l.mode, c.relname, "
							  "pg_catalog.left(pg_catalog.regexp_replace(a.query, '\\s+', ' ', 'g'), 60)), '; ' ORDER BY l.pid) "
							  "FROM pg_catalog.pg_locks l JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) l.relation "
							  "JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace "
							  "LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid "
							  "WHERE n.nspname OPERATOR(pg_catalog.=) $1 AND c.relname OPERATOR(pg_catalog.~) '^ranread_(batches|results|intervals)' "
							  "AND l.pid OPERATOR(pg_catalog.<>) pg_catalog.pg_backend_pid() "
							  "AND l.mode OPERATOR(pg_catalog.=) ANY ('{ShareLock,ShareRowExclusiveLock,ExclusiveLock,AccessExclusiveLock}')",
							  1, types, values, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
	{
		char	   *s = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);

		if (s)
			ranread_strlcpy(bs->blocked_by, s, sizeof(bs->blocked_by));
	}
}

void
history_describe_blockers(BatchShared *bs)
{
	MemoryContext cxt = CurrentMemoryContext;

	PG_TRY();
	{
		SetCurrentStatementStartTimestamp();
		StartTransactionCommand();
		SPI_connect();
		PushActiveSnapshot(GetTransactionSnapshot());
		describe_blockers(bs);
		SPI_finish();
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
}

/*
 * The statement of ranread_reset: $1 is `before` (NULL: everything), $2 the
 * batch running now.  Sweeps and studies go whole (a run of batches is kept
 * or removed with all its batches), fleets with their nodes and seconds;
 * the named nodes (ranread_nodes) are settings, not history, and stay.
 */
static char *
reset_sql(const char *schema, bool v11)
{
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfo(&q, "WITH s AS (DELETE FROM %s.ranread_sweeps "
					 "WHERE $1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1 RETURNING sweep)", schema);
	if (v11)
		appendStringInfo(&q, ", st AS (DELETE FROM %1$s.ranread_studies "
						 "WHERE $1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1 RETURNING study), "
						 "f AS (DELETE FROM %1$s.ranread_fleets "
						 "WHERE $1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1 RETURNING fleet), "
						 "fn AS (DELETE FROM %1$s.ranread_fleet_nodes WHERE fleet OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT fleet FROM f))), "
						 "fs AS (DELETE FROM %1$s.ranread_fleet_seconds WHERE fleet OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT fleet FROM f))), "
						 "fw AS (DELETE FROM %1$s.ranread_fleet_sweeps WHERE $1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1)",
						 schema);

	/* the batches: all but the running one, or those of before's runs */
	appendStringInfo(&q, ", gone AS (DELETE FROM %1$s.ranread_batches b "
					 "WHERE (b.status OPERATOR(pg_catalog.<>) 'running' OR b.batch OPERATOR(pg_catalog.<>) $2) "
					 "AND ($1 IS NULL OR (b.sweep IS NULL%2$s AND b.run_at OPERATOR(pg_catalog.<) $1) "
					 "OR b.sweep OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT sweep FROM s)) "
					 "OR (b.sweep IS NOT NULL AND b.run_at OPERATOR(pg_catalog.<) $1 AND NOT EXISTS "
					 "(SELECT FROM %1$s.ranread_sweeps k WHERE k.sweep OPERATOR(pg_catalog.=) b.sweep))",
					 schema, v11 ? " AND b.study IS NULL" : "");
	if (v11)
		appendStringInfo(&q, " OR b.study OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT study FROM st)) "
						 "OR (b.study IS NOT NULL AND b.run_at OPERATOR(pg_catalog.<) $1 AND NOT EXISTS "
						 "(SELECT FROM %s.ranread_studies k WHERE k.study OPERATOR(pg_catalog.=) b.study))",
						 schema);
	appendStringInfo(&q, ") RETURNING batch), "
					 "r AS (DELETE FROM %1$s.ranread_results WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
					 "i AS (DELETE FROM %1$s.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone)))",
					 schema);
	if (v11)
		appendStringInfo(&q, ", g AS (DELETE FROM %s.ranread_groups WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone)))",
						 schema);
	appendStringInfoString(&q, " SELECT pg_catalog.count(*) FROM gone");
	return q.data;
}

/*
 * ranread_reset(before): delete history; returns batches removed.  A sweep
 * or a study goes with all its batches: with every batch when it started
 * before `before`, and not at all otherwise (its verdict stays with its
 * steps).
 * The batch that runs now in this database is kept.
 */
Datum
ranread_reset(PG_FUNCTION_ARGS)
{
	Oid			types[2] = {TIMESTAMPTZOID, INT8OID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	int64		removed;
	RanreadOwnerState owner;

	ranread_refuse_on_standby("ranread_reset");
	if (PG_ARGISNULL(0))
		nulls[0] = 'n';
	else
		values[0] = PG_GETARG_DATUM(0);
	values[1] = Int64GetDatum(ranread_live_batch());

	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(reset_sql(ranread_schema_name(), ranread_sql_version() >= 11),
							  2, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not reset the ranread history");
	{
		bool		isnull;

		removed = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	ranread_restore_user(&owner);
	PG_RETURN_INT64(removed);
}
