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
#include "utils/array.h"
#include "utils/builtins.h"
#include "storage/spin.h"
#include "utils/snapmgr.h"

#include "calls.h"
#include "repair.h"

PG_FUNCTION_INFO_V1(ranread_reset);

/*
 * The words a batch whose history was not written keeps in its message:
 * why (the recorder's error and its SQLSTATE), and what the batch did
 */
char *
history_unrecorded_words(BatchShared *bs)
{
	const RanreadFigures *f = &bs->total;

	return psprintf("the history of the batch was not written (%s, SQLSTATE %s); it ended %s with "
					UINT64_FORMAT " reads and " UINT64_FORMAT " writes in %.3f s: %.0f IOPS, latency avg %.3f ms, max %.3f ms%s%s",
					bs->record_message, unpack_sql_state(bs->record_sqlstate),
					ranread_status_name(bs->status), f->reads, f->writes, f->seconds, f->iops,
					f->avg_ms, f->max_ms, bs->message[0] ? "; " : "", bs->message);
}

/*
 * The last batch whose recording gave up without marking its row (a lock
 * in the way, or a disk too full even for that): why, in the words its
 * row should keep, until the next batch of its database repairs the row.
 * In shared memory, so a server restart forgets it (the repair's general
 * words then).
 */
typedef struct RanreadUnrecorded
{
	slock_t		mutex;
	Oid			dboid;
	int64		batch;
	char		message[1024];
} RanreadUnrecorded;

static RanreadUnrecorded *
unrecorded(void)
{
	static RanreadUnrecorded *u = NULL;

	if (u == NULL)
		u = ranread_shmem_struct("ranread unrecorded", sizeof(RanreadUnrecorded),
								 offsetof(RanreadUnrecorded, mutex));
	return u;
}

/* The recorder gave up and could not mark the row: remember why */
void
history_remember_unrecorded(BatchShared *bs)
{
	RanreadUnrecorded *u = unrecorded();
	char		words[sizeof(u->message)];

	ranread_strlcpy(words, history_unrecorded_words(bs), sizeof(words));
	SpinLockAcquire(&u->mutex);
	u->dboid = bs->p.dboid;
	u->batch = bs->p.batch;
	memcpy(u->message, words, sizeof(words));
	SpinLockRelease(&u->mutex);
}

/*
 * Mark this database's batches left 'running' as failed: only one batch
 * runs in the cluster, and it is ours, so any other is an orphan of a crash
 * or of a recording that gave up (which, remembered, says why).
 */
void
history_repair_orphans(const BatchParams *p)
{
	RanreadUnrecorded *u = unrecorded();
	Oid			types[3] = {INT8OID, INT8OID, TEXTOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	char		words[sizeof(u->message)];
	int64		batch;

	SpinLockAcquire(&u->mutex);
	batch = u->dboid == p->dboid ? u->batch : 0;
	memcpy(words, u->message, sizeof(words));
	SpinLockRelease(&u->mutex);
	values[0] = Int64GetDatum(p->batch);
	values[1] = Int64GetDatum(batch);
	values[2] = CStringGetTextDatum(words);
	if (batch == 0)
		nulls[1] = nulls[2] = 'n';

	if (SPI_execute_with_args(psprintf("UPDATE %s.ranread_batches SET status = 'failed', "
									   "finished_at = pg_catalog.now(), message = COALESCE(message, "
									   "CASE WHEN batch OPERATOR(pg_catalog.=) $2 THEN $3 END, "
									   "'the batch was interrupted before its history was written "
									   "(a server restart, a killed worker, or a recording that gave up)') "
									   "WHERE status OPERATOR(pg_catalog.=) 'running' AND batch OPERATOR(pg_catalog.<>) $1",
									   quote_identifier(p->schema)),
							  3, types, values, nulls, false, 0) != SPI_OK_UPDATE)
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
 * batch running now, $3 to $6 the sweeps, studies, latency-target searches
 * and fleets that run now (calls.c).  Sweeps and studies go whole (a run of
 * batches is kept or removed with all its batches), fleets with their nodes
 * and seconds, a probe (ranread_probes) with its batch; what runs now stays whole, whatever `before` says, so that a
 * reset never splits a call that is still writing; the named nodes
 * (ranread_nodes) are settings, not history, and stay.
 */
static char *
reset_sql(const char *schema, bool v11)
{
	StringInfoData q;

	initStringInfo(&q);
	appendStringInfo(&q, "WITH s AS (DELETE FROM %s.ranread_sweeps "
					 "WHERE ($1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1) "
					 "AND sweep OPERATOR(pg_catalog.<>) ALL ($3) RETURNING sweep)", schema);
	if (v11)
		appendStringInfo(&q, ", st AS (DELETE FROM %1$s.ranread_studies "
						 "WHERE ($1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1) "
						 "AND study OPERATOR(pg_catalog.<>) ALL ($4) RETURNING study), "
						 "f AS (DELETE FROM %1$s.ranread_fleets "
						 "WHERE ($1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1) "
						 "AND fleet OPERATOR(pg_catalog.<>) ALL ($6) RETURNING fleet), "
						 "fn AS (DELETE FROM %1$s.ranread_fleet_nodes WHERE fleet OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT fleet FROM f))), "
						 "fs AS (DELETE FROM %1$s.ranread_fleet_seconds WHERE fleet OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT fleet FROM f))), "
						 "fw AS (DELETE FROM %1$s.ranread_fleet_sweeps WHERE ($1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1) "
						 "AND sweep OPERATOR(pg_catalog.<>) ALL ($3))",
						 schema);

	/* the batches: all but the running ones, or those of before's runs */
	appendStringInfo(&q, ", gone AS (DELETE FROM %1$s.ranread_batches b "
					 "WHERE (b.status OPERATOR(pg_catalog.<>) 'running' OR b.batch OPERATOR(pg_catalog.<>) $2) "
					 "AND COALESCE(b.sweep OPERATOR(pg_catalog.<>) ALL ($3), true) "
					 "AND ($1 IS NULL OR (b.sweep IS NULL%2$s AND b.run_at OPERATOR(pg_catalog.<) $1) "
					 "OR b.sweep OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT sweep FROM s)) "
					 "OR (b.sweep IS NOT NULL AND b.run_at OPERATOR(pg_catalog.<) $1 AND NOT EXISTS "
					 "(SELECT FROM %1$s.ranread_sweeps k WHERE k.sweep OPERATOR(pg_catalog.=) b.sweep))",
					 schema, v11 ? " AND b.study IS NULL" : "");
	if (v11)
		appendStringInfo(&q, " OR b.study OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT study FROM st)) "
						 "OR (b.study IS NOT NULL AND b.run_at OPERATOR(pg_catalog.<) $1 AND NOT EXISTS "
						 "(SELECT FROM %1$s.ranread_studies k WHERE k.study OPERATOR(pg_catalog.=) b.study))) "
						 "AND COALESCE(b.study OPERATOR(pg_catalog.<>) ALL ($4), true) "
						 "AND COALESCE((b.point OPERATOR(pg_catalog.->>) 'latency_target') OPERATOR(pg_catalog.<>) ALL ($5), true) "
						 "AND COALESCE(b.fleet OPERATOR(pg_catalog.<>) ALL ($6), true",
						 schema);
	appendStringInfo(&q, ") RETURNING batch), "
					 "r AS (DELETE FROM %1$s.ranread_results WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
					 "i AS (DELETE FROM %1$s.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone)))",
					 schema);
	if (v11)
		appendStringInfo(&q, ", g AS (DELETE FROM %1$s.ranread_groups WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
						 "pr AS (DELETE FROM %1$s.ranread_probes WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
						 /* verify's bad blocks: a batch's with it, ranread_verify's (batch NULL) by their time */
						 "ve AS (DELETE FROM %1$s.ranread_verify_errors WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone)) "
						 "OR (batch IS NULL AND ($1 IS NULL OR at OPERATOR(pg_catalog.<) $1)))",
						 schema);
	appendStringInfoString(&q, " SELECT pg_catalog.count(*) FROM gone");
	return q.data;
}

/* An array of the ids of one kind of running call, as int8[] or (latency) text[] */
static Datum
call_ids(const RanreadCallInfo *info, int n, RanreadCallKind kind, bool as_text)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));
	int			k = 0;

	for (int i = 0; i < n; i++)
		if (info[i].kind == kind)
			elems[k++] = as_text ? CStringGetTextDatum(psprintf(INT64_FORMAT, info[i].id)) :
				Int64GetDatum(info[i].id);
	return PointerGetDatum(as_text ? construct_array(elems, k, TEXTOID, -1, false, TYPALIGN_INT) :
						   construct_array(elems, k, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * ranread_reset(before): delete history; returns batches removed.  A sweep
 * or a study goes with all its batches: with every batch when it started
 * before `before`, and not at all otherwise (its verdict stays with its
 * steps).  The batch that runs now in this database is kept, and so are
 * the sweeps, studies, latency-target searches and fleets that other
 * sessions run now, whole, with a NOTICE naming them (what this session ran
 * in this transaction, it sees whole, and may remove whole).
 */
Datum
ranread_reset(PG_FUNCTION_ARGS)
{
	Oid			types[6] = {TIMESTAMPTZOID, INT8OID, INT8ARRAYOID, INT8ARRAYOID, TEXTARRAYOID, INT8ARRAYOID};
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	int64		removed;
	int64		live;
	RanreadOwnerState owner;
	RanreadCallInfo info[RANREAD_MAX_CALLS];
	int			n;
	bool		v11;

	ranread_refuse_on_standby("ranread_reset");
	if (PG_ARGISNULL(0))
		nulls[0] = 'n';
	else
		values[0] = PG_GETARG_DATUM(0);
	live = ranread_live_batch();
	values[1] = Int64GetDatum(live);
	v11 = ranread_sql_version() >= 11;
	/* a 1.0 database has none of the registry's functions: nothing registers */
	n = v11 ? ranread_calls_running(info, lengthof(info), false) : 0;
	values[2] = call_ids(info, n, CALL_SWEEP, false);
	values[3] = call_ids(info, n, CALL_STUDY, false);
	values[4] = call_ids(info, n, CALL_LATENCY_TARGET, true);
	values[5] = call_ids(info, n, CALL_FLEET, false);

	ranread_become_owner(&owner);
	SPI_connect();
	if (SPI_execute_with_args(reset_sql(ranread_schema_name(), v11),
							  6, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not reset the ranread history");
	{
		bool		isnull;

		removed = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	ranread_restore_user(&owner);

	if (n > 0 || live > 0)
	{
		StringInfoData kept;

		initStringInfo(&kept);
		for (int i = 0; i < n; i++)
			appendStringInfo(&kept, "%s%s " INT64_FORMAT " (PID %d)", i ? ", " : "",
							 info[i].kind == CALL_LATENCY_TARGET ? "latency-target search" :
							 ranread_call_kind_name(info[i].kind), info[i].id, info[i].pid);
		if (live > 0)
			appendStringInfo(&kept, "%sbatch " INT64_FORMAT, n ? ", " : "", live);
		ereport(NOTICE,
				(errmsg("ranread_reset kept what runs now: %s", kept.data),
				 errdetail("A call that runs now keeps every batch and row it has written, so that it stays whole."),
				 errhint("Reset again once it has ended to remove it too.")));
	}
	PG_RETURN_INT64(removed);
}
