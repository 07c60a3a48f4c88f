/*
 * history.c
 *		Figures from histograms, and the history tables: the batch row, one
 *		row per process, per-second intervals, orphan repair, ranread_reset.
 *
 * History is written by the batch's recording worker (worker 0) in its own
 * transactions, never in the caller's: the 'running' row before the first
 * I/O, everything else after the last.  So a batch survives the caller's
 * ROLLBACK, cancel or disconnect.  A server crash can leave a 'running' row
 * behind; the next setup or run marks it failed (history_fail_orphans).
 *
 * Writes go through SPI as the extension's owner, so that roles granted only
 * EXECUTE on the functions need no privileges on the tables.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_reset);

static const char *pattern_names[] = {"random", "sequential"};
static const char *engine_names[] = {"auto", "io_uring", "sync"};

/* Look up the extension's schema and owner in pg_extension */
static void
extension_info(Oid *nsp, Oid *owner)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("ranread"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"ranread\" is not installed in this database")));
	*nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	*owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
}

/* The extension's schema, unquoted */
char *
ranread_schema_name_raw(void)
{
	Oid			nsp;
	Oid			owner;

	extension_info(&nsp, &owner);
	return get_namespace_name(nsp);
}

/* The extension's schema, quoted for SQL text */
char *
ranread_schema_name(void)
{
	return pstrdup(quote_identifier(ranread_schema_name_raw()));
}

/* The role that owns the extension */
Oid
ranread_ext_owner(void)
{
	Oid			nsp;
	Oid			owner;

	extension_info(&nsp, &owner);
	return owner;
}

/*
 * Figures of a set of I/Os given their read and write histograms; all
 * receives the two merged, which the totals' percentiles come from.
 */
void
figures_from_hists(RanreadFigures *f, const RanreadHist *r, const RanreadHist *w,
				   RanreadHist *all, uint64 reads, uint64 writes, double seconds,
				   int block_size)
{
	hist_reset(all);
	hist_merge(all, r);
	hist_merge(all, w);
	memset(f, 0, sizeof(*f));
	f->reads = reads;
	f->writes = writes;
	f->seconds = seconds;
	f->iops = seconds > 0 ? (reads + writes) / seconds : 0;
	f->mbps = f->iops * block_size / 1048576.0;
	f->avg_ms = hist_avg_ms(all);
	f->min_ms = all->count ? all->min_ns / 1e6 : 0;
	f->p50_ms = hist_percentile_ms(all, 50);
	f->p95_ms = hist_percentile_ms(all, 95);
	f->p99_ms = hist_percentile_ms(all, 99);
	f->p999_ms = hist_percentile_ms(all, 99.9);
	f->max_ms = all->max_ns / 1e6;
	f->read_avg_ms = hist_avg_ms(r);
	f->read_p99_ms = hist_percentile_ms(r, 99);
	f->read_max_ms = r->max_ns / 1e6;
	f->write_avg_ms = hist_avg_ms(w);
	f->write_p99_ms = hist_percentile_ms(w, 99);
	f->write_max_ms = w->max_ns / 1e6;
}

/* Seconds a process measured: to its last completion */
static double
stream_seconds(BatchShared *bs, StreamStats *st)
{
	const BatchParams *p = &bs->p;
	double		s = st->last_ns > bs->measure_ns ? (st->last_ns - bs->measure_ns) / 1e9 : 0;

	/*
	 * A process that ran for the whole duration was measuring all of it, even
	 * if its last I/O completed a little before the end (a paced process may
	 * wait seconds between I/Os).  One that finished its iterations first, or
	 * was stopped, measured until its last completion.
	 */
	if (p->duration_ns > 0 && bs->status == STOP_NONE &&
		(p->iterations == 0 || st->reads + st->writes < (uint64) p->iterations))
		s = Max(s, p->duration_ns / 1e9);
	return s;
}

/*
 * Figures of the whole batch: percentiles from the merged histograms, IOPS
 * the sum of the processes' IOPS (the seed's SUM(IOPS)), seconds the longest
 * process.  all and writes receive the merged histograms.
 */
void
batch_figures(BatchShared *bs, RanreadFigures *f, RanreadHist *all, RanreadHist *writes)
{
	RanreadHist *reads = palloc(sizeof(RanreadHist));
	double		seconds = 0;
	double		iops = 0;
	uint64		nreads = 0;
	uint64		nwrites = 0;

	hist_reset(reads);
	hist_reset(writes);
	for (int i = 0; i < bs->p.processes; i++)
	{
		StreamStats *st = batch_stream(bs, i);
		double		s = stream_seconds(bs, st);

		hist_merge(reads, &st->hist[HIST_READS]);
		hist_merge(writes, stream_write_hist(bs, st));
		seconds = Max(seconds, s);
		nreads += st->reads;
		nwrites += st->writes;
		if (s > 0)
			iops += (st->reads + st->writes) / s;
	}
	figures_from_hists(f, reads, writes, all, nreads, nwrites, seconds, bs->p.block_size);
	f->iops = iops;
	f->mbps = iops * bs->p.block_size / 1048576.0;
	pfree(reads);
}

/*
 * Act as the extension's owner (for SPI on the extension's tables and for
 * creating targets), so that roles granted only EXECUTE need nothing more.
 * Undone by ranread_restore_user, or by the transaction's abort.
 */
void
ranread_become_owner(RanreadOwnerState *st)
{
	GetUserIdAndSecContext(&st->save_user, &st->save_sec);
	SetUserIdAndSecContext(ranread_ext_owner(), st->save_sec | SECURITY_LOCAL_USERID_CHANGE);
	/* the caller's search_path must not choose our operators and functions */
	st->guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

/* Back to the caller's role and search_path */
void
ranread_restore_user(RanreadOwnerState *st)
{
	AtEOXact_GUC(true, st->guc_level);
	SetUserIdAndSecContext(st->save_user, st->save_sec);
}

/* Run SQL as the extension owner inside the current transaction */
static void
exec_as_owner(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
			  int expect)
{
	RanreadOwnerState st;
	int			rc;

	ranread_become_owner(&st);
	rc = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	if (rc != expect)
		elog(ERROR, "ranread history statement failed (%s): %s",
			 SPI_result_code_string(rc), sql);
	ranread_restore_user(&st);
}

/* A float8 datum, or NULL when there were no I/Os */
#define FIG(v, ok, i) (values[i] = Float8GetDatum(v), nulls[i] = (ok) ? ' ' : 'n')

/* Insert the batch's 'running' row: called by the recorder before go */
void
history_insert_running(BatchShared *bs)
{
	BatchParams *p = &bs->p;
	Oid			types[21] = {INT8OID, TIMESTAMPTZOID, NAMEOID, NAMEOID, INT4OID, INT8OID,
		INTERVALOID, INT4OID, INT4OID, INT4OID, TEXTOID, FLOAT8OID, FLOAT8OID,
	INTERVALOID, INT4OID, INT8OID, INT4OID, TEXTOID, INT8OID, NAMEOID, TEXTOID};
	Datum		values[21];
	char		nulls[21];
	NameData	target,
				spc,
				who;

	memset(nulls, ' ', sizeof(nulls));
	namestrcpy(&target, p->target);
	namestrcpy(&spc, p->tablespace);
	namestrcpy(&who, p->started_by);
	values[0] = Int64GetDatum(p->batch);
	values[1] = TimestampTzGetDatum(bs->run_at);
	values[2] = NameGetDatum(&target);
	values[3] = NameGetDatum(&spc);
	values[4] = Int32GetDatum(p->processes);
	values[5] = Int64GetDatum(p->iterations);
	nulls[5] = p->iterations > 0 ? ' ' : 'n';
	values[6] = IntervalPGetDatum(&p->duration);
	nulls[6] = p->duration_ns > 0 ? ' ' : 'n';
	values[7] = Int32GetDatum(p->block_size);
	values[8] = Int32GetDatum(p->queue_depth);
	values[9] = Int32GetDatum(p->write_pct);
	values[10] = CStringGetTextDatum(pattern_names[p->pattern]);
	values[11] = Float8GetDatum(p->region_start);
	values[12] = Float8GetDatum(p->region_end);
	values[13] = IntervalPGetDatum(&p->warmup);
	values[14] = Int32GetDatum(p->rate_iops);
	nulls[14] = p->rate_iops > 0 ? ' ' : 'n';
	values[15] = Int64GetDatum(p->seed);
	values[16] = Int32GetDatum(p->nworkers);
	values[17] = CStringGetTextDatum(engine_names[p->engine]);
	values[18] = Int64GetDatum(p->sweep);
	nulls[18] = p->sweep > 0 ? ' ' : 'n';
	values[19] = NameGetDatum(&who);
	values[20] = CStringGetTextDatum("running");

	exec_as_owner(psprintf("INSERT INTO %s.ranread_batches (batch, run_at, target, tablespace, "
						   "processes, iterations, duration, block_size, queue_depth, write_pct, "
						   "pattern, region_start, region_end, warmup, rate_iops, seed, workers, "
						   "engine, sweep, started_by, status) VALUES ($1, $2, $3, $4, $5, $6, $7, "
						   "$8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
						   p->schema),
				  21, types, values, nulls, SPI_OK_INSERT);
}

/* Insert one process's row */
static void
insert_process_row(BatchShared *bs, int i, const char *status, SPIPlanPtr plan)
{
	BatchParams *p = &bs->p;
	StreamStats *st = batch_stream(bs, i);
	const RanreadHist *wh = stream_write_hist(bs, st);
	RanreadFigures f;
	RanreadHist *all = palloc(sizeof(RanreadHist));
	Datum		values[28];
	char		nulls[28];
	NameData	target;
	bool		any;

	figures_from_hists(&f, &st->hist[HIST_READS], wh, all, st->reads, st->writes,
					   stream_seconds(bs, st), p->block_size);
	any = st->hist[HIST_READS].count + wh->count > 0;
	memset(nulls, ' ', sizeof(nulls));
	namestrcpy(&target, p->target);
	values[0] = Int64GetDatum(p->batch);
	values[1] = Int32GetDatum(i + 1);
	values[2] = TimestampTzGetDatum(bs->run_at);
	values[3] = NameGetDatum(&target);
	values[4] = Int32GetDatum(p->processes);
	values[5] = Int64GetDatum(p->iterations);
	nulls[5] = p->iterations > 0 ? ' ' : 'n';
	values[6] = Int32GetDatum(p->block_size);
	values[7] = Int32GetDatum(p->queue_depth);
	values[8] = Int32GetDatum(p->write_pct);
	values[9] = CStringGetTextDatum(pattern_names[p->pattern]);
	values[10] = Int64GetDatum((int64) f.reads);
	values[11] = Int64GetDatum((int64) f.writes);
	values[12] = Float8GetDatum(f.seconds);
	values[13] = Float8GetDatum(f.iops);
	FIG(f.avg_ms, any, 14);
	FIG(f.min_ms, any, 15);
	FIG(f.p50_ms, any, 16);
	FIG(f.p95_ms, any, 17);
	FIG(f.p99_ms, any, 18);
	FIG(f.p999_ms, any, 19);
	FIG(f.max_ms, any, 20);
	FIG(f.read_avg_ms, st->hist[HIST_READS].count > 0, 21);
	FIG(f.read_p99_ms, st->hist[HIST_READS].count > 0, 22);
	FIG(f.write_avg_ms, wh->count > 0, 23);
	FIG(f.write_p99_ms, wh->count > 0, 24);
	values[25] = PointerGetDatum(hist_to_bytea(all));
	values[26] = PointerGetDatum(hist_to_bytea(wh));
	nulls[26] = wh->count > 0 ? ' ' : 'n';
	values[27] = CStringGetTextDatum(status);

	if (SPI_execute_plan(plan, values, nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record process %d of batch " INT64_FORMAT, i + 1, p->batch);
	pfree(all);
}

/* One second of the batch, every worker's share merged */
static IntervalSlot
interval_sum(BatchShared *bs, int s)
{
	IntervalSlot sum = {0, 0, 0, 0};

	for (int w = 0; w < bs->p.nworkers; w++)
	{
		IntervalSlot *iv = batch_intervals(bs, w) + s;

		sum.reads += iv->reads;
		sum.writes += iv->writes;
		sum.sum_ns += iv->sum_ns;
		sum.max_ns = Max(sum.max_ns, iv->max_ns);
	}
	return sum;
}

/*
 * Insert the per-second rows.  Seconds without any I/O get a row too (a
 * stall is news).  In a duration run the I/Os still in flight when the time
 * is up complete a little after it; they count in the last second, whose
 * length stretches to cover them.
 */
static void
insert_intervals(BatchShared *bs, double seconds)
{
	BatchParams *p = &bs->p;
	int			n;
	Oid			types[7] = {INT8OID, INT4OID, INT8OID, INT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID};
	SPIPlanPtr	plan;

	if (p->duration_ns > 0)
		n = (int) Min((p->duration_ns - 1) / 1000000000 + 1, (int64) ceil(seconds));
	else
		n = (int) ceil(seconds);
	n = Min(n, p->nintervals);

	plan = SPI_prepare(psprintf("INSERT INTO %s.ranread_intervals (batch, second, reads, writes, "
								"iops, avg_ms, max_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)",
								p->schema), 7, types);
	for (int s = 0; s < n; s++)
	{
		IntervalSlot sum = interval_sum(bs, s);
		Datum		values[7];
		char		nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', ' '};
		uint64		ios = sum.reads + sum.writes;
		double		len = s == n - 1 ? seconds - s : 1.0;

		values[0] = Int64GetDatum(p->batch);
		values[1] = Int32GetDatum(s);
		values[2] = Int64GetDatum((int64) sum.reads);
		values[3] = Int64GetDatum((int64) sum.writes);
		values[4] = Float8GetDatum(len > 0 ? ios / len : 0);
		values[5] = Float8GetDatum(ios ? sum.sum_ns / (double) ios / 1e6 : 0);
		nulls[5] = ios && p->timing ? ' ' : 'n';
		values[6] = Float8GetDatum(sum.max_ns / 1e6);
		nulls[6] = ios && p->timing ? ' ' : 'n';
		if (SPI_execute_plan(plan, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not record intervals of batch " INT64_FORMAT, p->batch);
	}
}

/* What the I/O buffers of the batch's started workers were made of */
RanreadPages
batch_pages(BatchShared *bs)
{
	RanreadPages all = PAGES_UNKNOWN;

	for (int i = 0; i < bs->p.nworkers; i++)
	{
		RanreadPages w = bs->workers[i].pages;

		if (w == PAGES_UNKNOWN || w == all)
			continue;
		all = all == PAGES_UNKNOWN ? w : PAGES_MIXED;
	}
	return all;
}

/*
 * Record a finished batch: its row, one row per process, its seconds.
 * Called by the recorder in its own transaction once every worker is done.
 */
void
history_finish(BatchShared *bs)
{
	BatchParams *p = &bs->p;
	RanreadFigures f;
	RanreadHist *all = palloc(sizeof(RanreadHist));
	RanreadHist *writes = palloc(sizeof(RanreadHist));
	const char *status = ranread_status_name(bs->status);
	Oid			types[24];
	Datum		values[24];
	char		nulls[24];
	bool		any;
	const char *pages = ranread_pages_name(batch_pages(bs));
	RanreadOwnerState st;
	SPIPlanPtr	plan;
	Oid			rtypes[28] = {INT8OID, INT4OID, TIMESTAMPTZOID, NAMEOID, INT4OID, INT8OID,
		INT4OID, INT4OID, INT4OID, TEXTOID, INT8OID, INT8OID, FLOAT8OID, FLOAT8OID,
		FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID,
	FLOAT8OID, FLOAT8OID, FLOAT8OID, FLOAT8OID, BYTEAOID, BYTEAOID, TEXTOID};

	batch_figures(bs, &f, all, writes);
	any = all->count > 0;
	memset(nulls, ' ', sizeof(nulls));
	for (int i = 0; i < 24; i++)
		types[i] = FLOAT8OID;
	types[0] = INT8OID;
	types[1] = INT8OID;
	types[2] = INT8OID;
	types[19] = BYTEAOID;
	types[20] = BYTEAOID;
	types[21] = TEXTOID;
	types[22] = TEXTOID;
	types[23] = TEXTOID;
	values[0] = Int64GetDatum(p->batch);
	values[1] = Int64GetDatum((int64) f.reads);
	values[2] = Int64GetDatum((int64) f.writes);
	FIG(f.seconds, true, 3);
	FIG(f.iops, true, 4);
	FIG(f.mbps, true, 5);
	FIG(f.avg_ms, any, 6);
	FIG(f.min_ms, any, 7);
	FIG(f.p50_ms, any, 8);
	FIG(f.p95_ms, any, 9);
	FIG(f.p99_ms, any, 10);
	FIG(f.p999_ms, any, 11);
	FIG(f.max_ms, any, 12);
	FIG(f.read_avg_ms, all->count > writes->count, 13);
	FIG(f.read_p99_ms, all->count > writes->count, 14);
	FIG(f.read_max_ms, all->count > writes->count, 15);
	FIG(f.write_avg_ms, writes->count > 0, 16);
	FIG(f.write_p99_ms, writes->count > 0, 17);
	FIG(f.write_max_ms, writes->count > 0, 18);
	values[19] = PointerGetDatum(hist_to_bytea(all));
	values[20] = PointerGetDatum(hist_to_bytea(writes));
	nulls[20] = writes->count > 0 ? ' ' : 'n';
	values[21] = CStringGetTextDatum(status);
	values[22] = CStringGetTextDatum(bs->message);
	nulls[22] = bs->message[0] ? ' ' : 'n';
	values[23] = pages ? CStringGetTextDatum(pages) : (Datum) 0;
	nulls[23] = pages ? ' ' : 'n';

	exec_as_owner(psprintf("UPDATE %s.ranread_batches SET finished_at = pg_catalog.now(), "
						   "reads = $2, writes = $3, seconds = $4, iops = $5, mbps = $6, "
						   "avg_ms = $7, min_ms = $8, p50_ms = $9, p95_ms = $10, p99_ms = $11, "
						   "p999_ms = $12, max_ms = $13, read_avg_ms = $14, read_p99_ms = $15, "
						   "read_max_ms = $16, write_avg_ms = $17, write_p99_ms = $18, "
						   "write_max_ms = $19, histogram = $20, write_histogram = $21, "
						   "status = $22, message = $23, buffer_pages = $24 "
						   "WHERE batch OPERATOR(pg_catalog.=) $1", p->schema),
				  24, types, values, nulls, SPI_OK_UPDATE);

	ranread_become_owner(&st);
	plan = SPI_prepare(psprintf("INSERT INTO %s.ranread_results (batch, process, run_at, target, "
								"processes, iterations, block_size, queue_depth, write_pct, pattern, "
								"reads, writes, seconds, iops, avg_ms, min_ms, p50_ms, p95_ms, "
								"p99_ms, p999_ms, max_ms, read_avg_ms, read_p99_ms, write_avg_ms, "
								"write_p99_ms, histogram, write_histogram, status) VALUES ($1, $2, "
								"$3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, "
								"$17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28)",
								p->schema), 28, rtypes);
	if (plan == NULL)
		elog(ERROR, "could not prepare the results insert: %s",
			 SPI_result_code_string(SPI_result));
	for (int i = 0; i < p->processes; i++)
		insert_process_row(bs, i, status, plan);
	insert_intervals(bs, f.seconds);
	ranread_restore_user(&st);
}

#define ORPHAN_UPDATE \
	"UPDATE %s.ranread_batches SET status = 'failed', finished_at = pg_catalog.now(), " \
	"message = 'the batch was interrupted by a server restart' " \
	"WHERE status OPERATOR(pg_catalog.=) 'running' AND batch OPERATOR(pg_catalog.<>) $1"

/* Batches of this database left 'running', sparing the one that runs now */
static int64
count_orphans(int64 running)
{
	Oid			types[1] = {INT8OID};
	Datum		values[1] = {Int64GetDatum(running)};
	bool		isnull;

	exec_as_owner(psprintf("SELECT pg_catalog.count(*) FROM %s.ranread_batches "
						   "WHERE status OPERATOR(pg_catalog.=) 'running' "
						   "AND batch OPERATOR(pg_catalog.<>) $1", ranread_schema_name()),
				  1, types, values, NULL, SPI_OK_SELECT);
	return DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/*
 * Background worker: mark this database's orphans failed in a transaction
 * of its own, so the repair stands even if the caller's statement fails.
 */
void
ranread_repair_main(Datum arg)
{
	Oid			dboid = DatumGetObjectId(arg);
	int64		running;
	Oid			owner;
	Oid			types[1] = {INT8OID};
	Datum		values[1];

	memcpy(&running, MyBgworkerEntry->bgw_extra, sizeof(int64));
	memcpy(&owner, MyBgworkerEntry->bgw_extra + sizeof(int64), sizeof(Oid));
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnectionByOid(dboid, owner, BGWORKER_BYPASS_ALLOWCONN);

	values[0] = Int64GetDatum(running);
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	SPI_execute_with_args(psprintf(ORPHAN_UPDATE, ranread_schema_name()),
						  1, types, values, NULL, false, 0);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
	proc_exit(0);
}

/* Run ranread_repair_main and wait for it; false if it could not start */
static bool
repair_in_own_transaction(int64 running)
{
	BackgroundWorker bgw;
	BackgroundWorkerHandle *handle;
	Oid			owner = ranread_ext_owner();

	ranread_worker_template(&bgw, "ranread_repair_main", "ranread history repair");
	bgw.bgw_main_arg = ObjectIdGetDatum(MyDatabaseId);
	memcpy(bgw.bgw_extra, &running, sizeof(int64));
	memcpy(bgw.bgw_extra + sizeof(int64), &owner, sizeof(Oid));
	if (!RegisterDynamicBackgroundWorker(&bgw, &handle))
		return false;
	return WaitForBackgroundWorkerShutdown(handle) == BGWH_STOPPED;
}

/*
 * Mark batches left 'running' by a crash as failed, before setup and run.
 * The batch that runs now (in this database) is spared.  The repair is
 * committed by a short-lived worker, so a failing caller does not undo it;
 * whatever that could not reach (rows of the caller's own transaction) is
 * repaired here.
 */
void
history_fail_orphans(void)
{
	RanreadControl *ctl = ranread_control();
	int64		running = 0;
	Oid			types[1] = {INT8OID};
	Datum		values[1];

	SpinLockAcquire(&ctl->mutex);
	if (ctl->running && ctl->dboid == MyDatabaseId)
		running = ctl->batch;
	SpinLockRelease(&ctl->mutex);

	values[0] = Int64GetDatum(running);
	SPI_connect();
	if (count_orphans(running) > 0)
	{
		(void) repair_in_own_transaction(running);
		if (count_orphans(running) > 0)
			exec_as_owner(psprintf(ORPHAN_UPDATE, ranread_schema_name()),
						  1, types, values, NULL, SPI_OK_UPDATE);
	}
	SPI_finish();
}

/* ranread_reset(before): delete history; returns batches removed */
Datum
ranread_reset(PG_FUNCTION_ARGS)
{
	char	   *schema = ranread_schema_name();
	Oid			types[1] = {TIMESTAMPTZOID};
	Datum		values[1];
	char		nulls[1] = {' '};
	int64		removed;

	history_fail_orphans();
	if (PG_ARGISNULL(0))
		nulls[0] = 'n';
	else
		values[0] = PG_GETARG_DATUM(0);

	SPI_connect();
	exec_as_owner(psprintf("WITH gone AS (DELETE FROM %s.ranread_batches "
						   "WHERE status OPERATOR(pg_catalog.<>) 'running' "
						   "AND ($1 IS NULL OR run_at OPERATOR(pg_catalog.<) $1) RETURNING batch), "
						   "r AS (DELETE FROM %s.ranread_results WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
						   "i AS (DELETE FROM %s.ranread_intervals WHERE batch OPERATOR(pg_catalog.=) ANY (ARRAY(SELECT batch FROM gone))), "
						   "s AS (DELETE FROM %s.ranread_sweeps "
						   "WHERE $1 IS NULL OR started_at OPERATOR(pg_catalog.<) $1) "
						   "SELECT pg_catalog.count(*) FROM gone", schema, schema, schema, schema),
				  1, types, values, nulls, SPI_OK_SELECT);
	{
		bool		isnull;

		removed = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	PG_RETURN_INT64(removed);
}
