/*
 * run.c
 *		ranread_run: check every argument, claim the cluster, launch the
 *		workers, wait for them, and return the batch's row.
 *
 * The calling backend is the leader.  It never does I/O and never writes
 * history itself (worker 0 does, in its own transactions), so a ROLLBACK,
 * a cancel or a lost client cannot take the batch's record with it.  What
 * the leader owns is the batch's DSM segment and a share of the claim on the
 * control block.  Its on_dsm_detach callback runs on every way out (return,
 * ERROR, FATAL) and asks the workers to stop if they are still going; on a
 * cancel the leader also waits (briefly, with interrupts held) until the
 * batch is recorded, so the history is there when the error reaches psql.
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/wait_event.h"

#include "ranread.h"
#include "worker.h"

PG_FUNCTION_INFO_V1(ranread_run);
PG_FUNCTION_INFO_V1(ranread_blocks);

/* The SQL function whose arguments are being checked, for messages */
static const char *fn_name = "ranread_run";

#define NOTICE_EVERY_NS		((uint64) 5 * 1000000000)
#define START_TIMEOUT_NS	((uint64) 60 * 1000000000)
#define CANCEL_WAIT_MS		5000
#define MAX_DURATION_US		((int64) 86400 * 1000000)
#define MAX_RATE_IOPS		100000000

/* The arguments of ranread_run, checked */
typedef struct RunArgs
{
	int			processes;
	int64		iterations;
	char		target[NAMEDATALEN];
	Interval	duration;
	int64		duration_ns;
	int			block_size;
	int			write_pct;
	int			queue_depth;
	RanreadPattern pattern;
	double		region_start;
	double		region_end;
	Interval	warmup;
	int64		warmup_ns;
	int			rate_iops;
	int64		seed;
	int			workers;		/* 0 = default */
	int64		sweep;
} RunArgs;

/* Error for a NULL where a value is needed */
static void
require(FunctionCallInfo fcinfo, int argno, const char *name)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of %s must not be null", name, fn_name)));
}

/* Error for an integer out of its range */
static void
check_range(const char *name, int64 value, int64 lo, int64 hi, const char *hint)
{
	if (value < lo || value > hi)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be between " INT64_FORMAT " and " INT64_FORMAT ", not " INT64_FORMAT,
						name, fn_name, lo, hi, value),
				 hint ? errhint("%s", hint) : 0));
}

/* Microseconds in an interval, months as 30 days; -1 if absurd */
static int64
interval_us(const Interval *iv)
{
	int128		us = (int128) iv->month * 30 * USECS_PER_DAY +
		(int128) iv->day * USECS_PER_DAY + iv->time;

	if (us > PG_INT64_MAX / 1000 || us < -(PG_INT64_MAX / 1000))
		return -1;
	return (int64) us;
}

/* Read and check an interval argument (duration, warmup) */
static int64
interval_arg_ns(FunctionCallInfo fcinfo, int argno, const char *name, bool allow_zero,
				Interval *out)
{
	Interval   *iv = PG_GETARG_INTERVAL_P(argno);
	int64		us = interval_us(iv);

	*out = *iv;
	if (us < 0 || (!allow_zero && us == 0) || us > MAX_DURATION_US)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be %s and at most 24 hours, not %s",
						name, fn_name, allow_zero ? "zero or positive" : "positive",
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(iv))))));
	return us * 1000;
}

/* 'random' or 'sequential' */
static RanreadPattern
parse_pattern(const char *pat)
{
	if (pg_strcasecmp(pat, "random") == 0)
		return PATTERN_RANDOM;
	if (pg_strcasecmp(pat, "sequential") == 0)
		return PATTERN_SEQUENTIAL;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown pattern \"%s\" for %s", pat, fn_name),
			 errhint("pattern is 'random' or 'sequential'.")));
	return PATTERN_RANDOM;		/* keep compiler quiet */
}

/* region_start and region_end must make a slice of the target */
static void
check_region(double start, double end)
{
	if (isnan(start) || isnan(end) || start < 0 || end > 100 || start >= end)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("region_start %g and region_end %g of %s do not make a region",
						start, end, fn_name),
				 errhint("Both are percentages of the target: 0 <= region_start < region_end <= 100.")));
}

/* Read every argument and check what needs no target */
static void
parse_args(FunctionCallInfo fcinfo, RunArgs *a)
{
	memset(a, 0, sizeof(*a));

	require(fcinfo, 0, "processes");
	a->processes = PG_GETARG_INT32(0);
	check_range("processes", a->processes, 1, RANREAD_MAX_PROCESSES,
				"processes is how many independent I/O streams run at once.");

	if (!PG_ARGISNULL(1))
	{
		a->iterations = PG_GETARG_INT64(1);
		check_range("iterations", a->iterations, 1, PG_INT64_MAX / 2,
					"iterations is how many I/Os each process does.");
	}

	strlcpy(a->target, target_arg(fcinfo, 2, fn_name), NAMEDATALEN);

	if (!PG_ARGISNULL(3))
		a->duration_ns = interval_arg_ns(fcinfo, 3, "duration", false, &a->duration);
	if (a->iterations == 0 && a->duration_ns == 0)
		a->iterations = RANREAD_DEFAULT_ITERATIONS;

	require(fcinfo, 4, "block_size");
	a->block_size = PG_GETARG_INT32(4);
	check_range("block_size", a->block_size, 512, RANREAD_MAX_BLOCK_SIZE,
				"block_size is in bytes: a multiple of the direct I/O alignment, 8192 by default.");

	require(fcinfo, 5, "write_pct");
	a->write_pct = PG_GETARG_INT32(5);
	check_range("write_pct", a->write_pct, 0, 100, "write_pct is the share of I/Os that write, in percent.");
	if (a->write_pct > 0 && a->block_size % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d cannot be used with write_pct %d", a->block_size, a->write_pct),
				 errdetail("Writes replace whole pages of %d bytes.", BLCKSZ),
				 errhint("Use a block_size that is a multiple of %d, or write_pct 0.", BLCKSZ)));

	require(fcinfo, 6, "queue_depth");
	a->queue_depth = PG_GETARG_INT32(6);
	check_range("queue_depth", a->queue_depth, 1, RANREAD_MAX_QUEUE_DEPTH,
				"queue_depth is how many I/Os each process keeps in flight.");
	if ((int64) a->processes * a->queue_depth > RANREAD_MAX_INFLIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes %d times queue_depth %d is more than %d I/Os in flight",
						a->processes, a->queue_depth, RANREAD_MAX_INFLIGHT),
				 errhint("Lower processes or queue_depth.")));
	if ((uint64) a->processes * a->queue_depth * a->block_size > (uint64) RANREAD_MAX_INFLIGHT_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes %d times queue_depth %d times block_size %d needs more than 1 GB of I/O buffers",
						a->processes, a->queue_depth, a->block_size),
				 errhint("Lower processes, queue_depth or block_size.")));

	require(fcinfo, 7, "pattern");
	a->pattern = parse_pattern(text_to_cstring(PG_GETARG_TEXT_PP(7)));

	require(fcinfo, 8, "region_start");
	require(fcinfo, 9, "region_end");
	a->region_start = PG_GETARG_FLOAT8(8);
	a->region_end = PG_GETARG_FLOAT8(9);
	check_region(a->region_start, a->region_end);

	if (!PG_ARGISNULL(10))
		a->warmup_ns = interval_arg_ns(fcinfo, 10, "warmup", true, &a->warmup);

	if (!PG_ARGISNULL(11))
	{
		a->rate_iops = PG_GETARG_INT32(11);
		check_range("rate_iops", a->rate_iops, 1, MAX_RATE_IOPS,
					"rate_iops caps the I/Os per second of the whole batch; NULL means no cap.");
	}

	if (PG_ARGISNULL(12))
		a->seed = (int64) (ranread_now_ns() ^ ((uint64) MyProcPid << 40)) & PG_INT64_MAX;
	else
		a->seed = PG_GETARG_INT64(12);

	if (!PG_ARGISNULL(13))
	{
		a->workers = PG_GETARG_INT32(13);
		check_range("workers", a->workers, 1, a->processes,
					"workers is how many background workers share the processes; NULL chooses.");
	}

	if (PG_NARGS() > 14 && !PG_ARGISNULL(14))
		a->sweep = PG_GETARG_INT64(14);
}

/* Which engine runs, honouring ranread.engine */
static RanreadEngine
choose_engine(void)
{
	char		why[128];
	bool		ok = engine_uring_available(why, sizeof(why));

	if (ranread_engine_guc == ENGINE_SYNC)
		return ENGINE_SYNC;
	if (ranread_engine_guc == ENGINE_URING && !ok)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("io_uring is not available on this server: %s", why),
				 errhint("SET ranread.engine = 'auto' or 'sync' to use the synchronous engine.")));
	if (!ok)
		ereport(NOTICE,
				(errmsg("io_uring is not available (%s); using the synchronous engine", why),
				 errdetail("The synchronous engine runs one process per background worker.")));
	return ok ? ENGINE_URING : ENGINE_SYNC;
}

/* Check the target: known, filled, and fit for the block size and region */
static void
check_target(RunArgs *a, RanreadTarget *t, BatchParams *p)
{
	int64		nblocks;
	uint64		last_bytes;
	uint64		units;

	if (!target_lookup(a->target, t))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", a->target),
				 errhint("Create it first, e.g. SELECT * FROM ranread_setup('10GB', target => %s);",
						 quote_literal_cstr(a->target))));

	nblocks = (int64) DatumGetInt64(DirectFunctionCall2(pg_relation_size,
														ObjectIdGetDatum(t->relid),
														CStringGetTextDatum("main"))) / BLCKSZ;
	if (nblocks == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" is empty", a->target),
				 errdetail("Crash recovery resets unlogged relations, and targets are unlogged."),
				 errhint("Run ranread_setup again: SELECT * FROM ranread_setup(%s, %s, %s);",
						 quote_literal_cstr(text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty, Int64GetDatum(t->size_bytes))))),
						 quote_literal_cstr(t->tablespace), quote_literal_cstr(a->target))));
	if ((uint64) nblocks * BLCKSZ != t->size_bytes)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("ranread target \"%s\" has " INT64_FORMAT " bytes on disk, not the " UINT64_FORMAT " it was made with",
						a->target, nblocks * BLCKSZ, t->size_bytes),
				 errhint("Run ranread_setup again to re-create it.")));

	if (a->block_size % t->dio_align != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d of %s is not a multiple of the direct I/O alignment %d of target \"%s\"",
						a->block_size, fn_name, t->dio_align, a->target),
				 errhint("Use a multiple of %d, such as 8192.", t->dio_align)));

	p->seg_bytes = (uint64) RELSEG_SIZE * BLCKSZ;
	p->nsegs = (int) ((t->size_bytes + p->seg_bytes - 1) / p->seg_bytes);
	p->units_per_seg = p->seg_bytes / a->block_size;
	last_bytes = t->size_bytes - (uint64) (p->nsegs - 1) * p->seg_bytes;
	units = (uint64) (p->nsegs - 1) * p->units_per_seg + last_bytes / a->block_size;
	p->unit_lo = (uint64) ceil(units * a->region_start / 100.0);
	p->unit_hi = (uint64) floor(units * a->region_end / 100.0);
	if (p->unit_hi <= p->unit_lo)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d of %s is larger than the region %g%%..%g%% of target \"%s\"",
						a->block_size, fn_name, a->region_start, a->region_end, a->target),
				 errdetail("The region holds " UINT64_FORMAT " bytes.",
						   (uint64) ((a->region_end - a->region_start) / 100.0 * t->size_bytes)),
				 errhint("Widen the region, lower block_size, or make a larger target.")));
	strlcpy(p->relpath, t->relpath, MAXPGPATH);
	strlcpy(p->tablespace, t->tablespace, NAMEDATALEN);
}

/* Claim the cluster for a batch, or say who has it; returns the claim */
static uint64
claim(int64 batch, int processes)
{
	RanreadControl *ctl = ranread_control();
	int64		other;
	int			pid;
	int			procs;
	TimestampTz since;

	SpinLockAcquire(&ctl->mutex);
	if (!ctl->running)
	{
		uint64		id = ++ctl->last_claim;

		ctl->running = true;
		ctl->claim = id;
		ctl->batch = batch;
		ctl->leader_pid = MyProcPid;
		ctl->leader_user = GetUserId();
		ctl->dboid = MyDatabaseId;
		ctl->processes = processes;
		ctl->started_at = GetCurrentTimestamp();
		ctl->refcount = 1;
		ctl->stop = STOP_NONE;
		SpinLockRelease(&ctl->mutex);
		return id;
	}
	other = ctl->batch;
	pid = ctl->leader_pid;
	procs = ctl->processes;
	since = ctl->started_at;
	SpinLockRelease(&ctl->mutex);

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("ranread batch " INT64_FORMAT " is already running", other),
			 errdetail("It was started at %s by the session with PID %d and runs %d processes; one batch runs at a time in the cluster.",
					   timestamptz_to_str(since), pid, procs),
			 errhint("Wait for it to finish, or stop it with SELECT ranread_stop();")));
	return 0;					/* keep compiler quiet */
}

/*
 * Wait (up to a few seconds, interrupts held) until the postmaster has
 * reaped every worker we registered, so their slots are free for whatever
 * comes next, also when we leave by an error.
 */
static void
wait_for_shutdown(BackgroundWorkerHandle **handles, int n)
{
	HOLD_INTERRUPTS();
	for (int i = 0; i < n; i++)
	{
		for (int tries = 0; tries < CANCEL_WAIT_MS; tries++)
		{
			pid_t		pid;

			if (handles[i] == NULL ||
				GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STOPPED)
				break;
			pg_usleep(1000L);
		}
	}
	RESUME_INTERRUPTS();
}

/*
 * Wait (up to a few seconds) until every worker has left the batch, so the
 * cluster is free for the next batch when ranread_run returns.
 */
static void
wait_for_workers_to_leave(BatchShared *bs, bool interruptible)
{
	RanreadControl *ctl = ranread_control();

	for (int i = 0; i < CANCEL_WAIT_MS; i++)
	{
		bool		left;

		SpinLockAcquire(&ctl->mutex);
		left = !ctl->running || ctl->claim != bs->p.claim || ctl->refcount <= 1;
		SpinLockRelease(&ctl->mutex);
		if (left)
			return;
		if (interruptible)
			CHECK_FOR_INTERRUPTS();
		pg_usleep(1000L);
	}
}

/*
 * On the way out before the batch is recorded (cancel, error, terminate,
 * lost client): stop the workers and give them a moment to record, so the
 * history is there by the time the caller hears of it.
 */
static void
stop_and_wait_for_record(BatchShared *bs)
{
	HOLD_INTERRUPTS();
	ranread_request_stop(bs->p.claim, STOP_CANCELLED);
	bs->abort_start = true;
	ConditionVariableBroadcast(&bs->cv);
	for (int i = 0; i < CANCEL_WAIT_MS / 10; i++)
	{
		bool		any_left = false;

		if (bs->recorded)
			break;
		for (int w = 0; w < bs->p.nworkers; w++)
			if (bs->workers[w].pid != 0 && !bs->workers[w].exited)
				any_left = true;
		if (!any_left)
			break;
		pg_usleep(10000L);
	}
	if (bs->recorded)
		wait_for_workers_to_leave(bs, false);
	RESUME_INTERRUPTS();
}

/* on_dsm_detach of the leader: stop the workers if we leave early */
static void
leader_detach(dsm_segment *seg, Datum arg)
{
	BatchShared *bs = (BatchShared *) DatumGetPointer(arg);

	if (!bs->recorded)
		stop_and_wait_for_record(bs);
	bs->leader_latch = NULL;
	ranread_release(bs->p.claim);
}

/* Size of the batch's segment and the offsets inside it */
static Size
batch_layout(int nworkers, int processes, int write_pct, int nintervals,
			 Size *stream_off, Size *interval_off)
{
	Size		sz = MAXALIGN(add_size(offsetof(BatchShared, workers),
									   mul_size(nworkers, sizeof(WorkerSlot))));

	*stream_off = sz;
	sz = add_size(sz, mul_size(processes, stream_stats_size(write_pct)));
	*interval_off = sz;
	sz = add_size(sz, mul_size(mul_size(nworkers, nintervals), sizeof(IntervalSlot)));
	return sz;
}

/* Register up to want workers; returns how many the postmaster took */
static int
launch_workers(BatchShared *bs, dsm_segment *seg, int want, BackgroundWorkerHandle **handles)
{
	BackgroundWorker bgw;
	dsm_handle	h = dsm_segment_handle(seg);
	int			n;

	ranread_worker_template(&bgw, "ranread_worker_main", "ranread worker");
	memcpy(bgw.bgw_extra, &h, sizeof(h));

	for (n = 0; n < want; n++)
	{
		snprintf(bgw.bgw_name, BGW_MAXLEN, "ranread worker %d of batch " INT64_FORMAT,
				 n + 1, bs->p.batch);
		bgw.bgw_main_arg = Int32GetDatum(n);
		if (!RegisterDynamicBackgroundWorker(&bgw, &handles[n]))
			break;
	}
	return n;
}

/* Sum of completed I/Os so far, for progress notices */
static uint64
batch_progress(BatchShared *bs)
{
	uint64		ios = 0;

	for (int i = 0; i < bs->p.nworkers; i++)
		ios += bs->workers[i].ios;
	return ios;
}

/* Have all workers that could record gone away without recording? */
static bool
recorder_gone(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	pid_t		pid;

	return !bs->recorded && (bs->workers[0].exited ||
							 GetBackgroundWorkerPid(handles[0], &pid) == BGWH_STOPPED);
}

/* Wait until every worker is ready, then start the clock */
static void
start_batch(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	uint64		deadline = ranread_now_ns() + START_TIMEOUT_NS;

	for (;;)
	{
		if (pg_atomic_read_u32(&bs->ready) == (uint32) bs->p.nworkers)
			break;
		for (int i = 0; i < bs->p.nworkers; i++)
		{
			pid_t		pid;

			if (!bs->workers[i].failed && !bs->workers[i].exited &&
				GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STOPPED)
				bs->workers[i].exited = true;	/* died before it could say so */
			if (bs->workers[i].failed || bs->workers[i].exited)
				ereport(ERROR,
						(errcode(ERRCODE_SYSTEM_ERROR),
						 errmsg("ranread worker %d of batch " INT64_FORMAT " failed to start%s%s",
								i + 1, bs->p.batch, bs->workers[i].message[0] ? ": " : "",
								bs->workers[i].message)));
		}
		if (ranread_now_ns() > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("ranread workers of batch " INT64_FORMAT " did not start within 60 seconds",
							bs->p.batch)));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	bs->go_ns = ranread_now_ns();
	bs->measure_ns = bs->go_ns + bs->p.warmup_ns;
	pg_write_barrier();
	bs->go = true;
	ConditionVariableBroadcast(&bs->cv);
}

/* Wait for the batch to be recorded, with progress notices */
static void
wait_batch(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	uint64		next_notice = bs->go_ns + NOTICE_EVERY_NS;
	uint64		next_conn_check = 0;

	while (!bs->recorded)
	{
		uint64		now;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		now = ranread_now_ns();

		if (now >= next_conn_check)
		{
			next_conn_check = now + 1000000000;
			if (!pq_check_connection())
			{
				stop_and_wait_for_record(bs);
				ClientConnectionLost = 1;
				InterruptPending = 1;
				CHECK_FOR_INTERRUPTS();
			}
		}
		if (recorder_gone(bs, handles))
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("the recording worker of ranread batch " INT64_FORMAT " exited before recording it",
							bs->p.batch),
					 errdetail("%s", bs->workers[0].message[0] ? bs->workers[0].message : "No reason was given."),
					 errhint("The batch will be marked failed by the next ranread_run.")));
		if (now >= next_notice && now > bs->measure_ns)
		{
			double		secs = (now - bs->measure_ns) / 1e9;
			uint64		ios = batch_progress(bs);

			next_notice = now + NOTICE_EVERY_NS;
			ereport(NOTICE,
					(errmsg("ranread batch " INT64_FORMAT ": %.0f s, " UINT64_FORMAT " I/Os, about %.0f IOPS",
							bs->p.batch, secs, ios, ios / secs)));
		}
	}
	pg_read_barrier();
}

/* The I/O buffers the workers map (iobuf.c rounds each up to whole pages) */
static double
iobuf_bytes(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	double		sum = 0;

	for (int i = 0; i < p->nworkers; i++)
		sum += ranread_iobuf_length((Size) bs->workers[i].nstreams * p->queue_depth *
									IOBUF_STRIDE(p->block_size), p->huge_pages);
	return sum;
}

/* Build the result row and the seed's NOTICE line */
static Datum
result_row(FunctionCallInfo fcinfo, BatchShared *bs, RunArgs *a)
{
	TupleDesc	tupdesc;
	RanreadFigures f;
	RanreadHist *all = palloc(sizeof(RanreadHist));
	RanreadHist *writes = palloc(sizeof(RanreadHist));
	Datum		values[15];
	bool		nulls[15];
	NameData   *tn = palloc(sizeof(NameData));
	bool		any;

	batch_figures(bs, &f, all, writes);
	any = all->count > 0;
	memset(nulls, 0, sizeof(nulls));

	if (a->duration_ns > 0 && a->iterations == 0)
		ereport(NOTICE,
				(errmsg("%d processes (%s) average response time = %.2fms, calculated IOPS = %.0f",
						a->processes,
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&a->duration))),
						f.avg_ms, f.iops)));
	else
		ereport(NOTICE,
				(errmsg("%d processes (" INT64_FORMAT " iterations) average response time = %.2fms, calculated IOPS = %.0f",
						a->processes, a->iterations, f.avg_ms, f.iops)));
	if (bs->status == STOP_FAILED)
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT " failed: %s", bs->p.batch, bs->message)));
	if (bs->p.huge_pages)
	{
		RanreadPages pages = batch_pages(bs);

		if (pages == PAGES_SMALL || pages == PAGES_MIXED)
			ereport(NOTICE,
					(errmsg("ranread batch " INT64_FORMAT ": %s I/O buffers were in base pages, not huge pages",
							bs->p.batch, pages == PAGES_SMALL ? "the" : "some"),
					 errdetail("A direct I/O from base pages reaches the device in more segments, which lowers large-block throughput on some virtual disks."),
					 errhint("The kernel gave fewer huge pages than asked for (see /sys/kernel/mm/transparent_hugepage/); the batch records buffer_pages '%s'.",
							 ranread_pages_name(pages))));
	}

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	namestrcpy(tn, a->target);
	values[0] = Int64GetDatum(bs->p.batch);
	values[1] = NameGetDatum(tn);
	values[2] = Int32GetDatum(a->processes);
	values[3] = Int64GetDatum((int64) f.reads);
	values[4] = Int64GetDatum((int64) f.writes);
	values[5] = Float8GetDatum(f.seconds);
	values[6] = Float8GetDatum(f.iops);
	values[7] = Float8GetDatum(f.mbps);
	values[8] = Float8GetDatum(f.avg_ms);
	values[9] = Float8GetDatum(f.p50_ms);
	values[10] = Float8GetDatum(f.p95_ms);
	values[11] = Float8GetDatum(f.p99_ms);
	values[12] = Float8GetDatum(f.p999_ms);
	values[13] = Float8GetDatum(f.max_ms);
	for (int i = 8; i <= 13; i++)
		nulls[i] = !any;
	values[14] = CStringGetTextDatum(ranread_status_name(bs->status));
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/*
 * ranread_run(processes, iterations, target, duration, block_size, write_pct,
 *			   queue_depth, pattern, region_start, region_end, warmup,
 *			   rate_iops, seed, workers [, sweep])
 */
Datum
ranread_run(PG_FUNCTION_ARGS)
{
	RunArgs		a;
	RanreadTarget t;
	BatchParams p;
	RanreadEngine engine;
	int			want;
	int			nworkers;
	int			nintervals;
	int64		batch;
	uint64		claim_id;
	Size		stream_off;
	Size		interval_off;
	dsm_segment *seg;
	BatchShared *bs;
	BackgroundWorkerHandle **handles;
	Datum		result;

	/* Everything is checked before any worker starts */
	fn_name = "ranread_run";
	parse_args(fcinfo, &a);
	history_fail_orphans();
	memset(&p, 0, sizeof(p));
	check_target(&a, &t, &p);
	engine = choose_engine();
	if (engine == ENGINE_SYNC && a.queue_depth > 1)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("queue_depth %d needs the io_uring engine", a.queue_depth),
				 errdetail("The synchronous engine keeps one I/O in flight per process."),
				 errhint("Use queue_depth 1, or SET ranread.engine = 'io_uring' where io_uring is available.")));

	if (engine == ENGINE_SYNC)
		want = a.processes;
	else if (a.workers > 0)
		want = a.workers;
	else
		want = Min(a.processes, (int) Max(1, sysconf(_SC_NPROCESSORS_ONLN)));
	want = Min(want, max_worker_processes);
	if (engine == ENGINE_SYNC && a.processes > max_worker_processes)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("processes %d is more than max_worker_processes (%d) allows with the synchronous engine",
						a.processes, max_worker_processes),
				 errhint("The synchronous engine needs one background worker per process; use io_uring or fewer processes.")));

	nintervals = a.duration_ns > 0 ?
		(int) Min((a.duration_ns / 1000000000) + 2, RANREAD_MAX_INTERVALS) : 3600;

	/* Everything the batch needs is known before the cluster is claimed */
	p.sweep = a.sweep;
	p.dboid = MyDatabaseId;
	p.ext_owner = ranread_ext_owner();
	strlcpy(p.schema, ranread_schema_name(), NAMEDATALEN);
	strlcpy(p.target, a.target, NAMEDATALEN);
	strlcpy(p.started_by, GetUserNameFromId(GetUserId(), false), NAMEDATALEN);
	p.processes = a.processes;
	p.iterations = a.iterations;
	p.duration_ns = a.duration_ns;
	p.duration = a.duration;
	p.warmup = a.warmup;
	p.block_size = a.block_size;
	p.write_pct = a.write_pct;
	p.queue_depth = a.queue_depth;
	p.pattern = a.pattern;
	p.region_start = a.region_start;
	p.region_end = a.region_end;
	p.warmup_ns = a.warmup_ns;
	p.rate_iops = a.rate_iops;
	p.seed = a.seed;
	p.engine = engine;
	p.nintervals = nintervals;
	p.timing = ranread_timing_guc;
	p.huge_pages = ranread_huge_pages_guc;
	p.nworkers = want;

	batch = nextval_internal(get_relname_relid("ranread_batch_seq",
											   get_namespace_oid(ranread_schema_name_raw(), false)),
							 false);
	claim_id = claim(batch, a.processes);

	/* From here on the claim is released by the DSM detach callbacks */
	seg = NULL;
	PG_TRY();
	{
		Size		size = batch_layout(want, a.processes, a.write_pct, nintervals, &stream_off, &interval_off);

		seg = dsm_create(size, 0);
	}
	PG_CATCH();
	{
		ranread_release(claim_id);
		PG_RE_THROW();
	}
	PG_END_TRY();
	bs = dsm_segment_address(seg);
	memset(bs, 0, batch_layout(want, a.processes, a.write_pct, nintervals, &stream_off, &interval_off));
	ConditionVariableInit(&bs->cv);
	pg_atomic_init_u32(&bs->ready, 0);
	p.batch = batch;
	p.claim = claim_id;
	bs->p = p;
	on_dsm_detach(seg, leader_detach, PointerGetDatum(bs));
	bs->stream_off = stream_off;
	bs->stream_size = stream_stats_size(a.write_pct);
	bs->interval_off = interval_off;
	bs->leader_latch = &MyProc->procLatch;
	bs->run_at = GetCurrentTimestamp();
	for (int i = 0; i < a.processes; i++)
	{
		StreamStats *st = batch_stream(bs, i);

		hist_reset(&st->hist[HIST_READS]);
		if (a.write_pct > 0)
			hist_reset(&st->hist[HIST_WRITES]);
	}

	handles = palloc0(sizeof(BackgroundWorkerHandle *) * want);
	nworkers = launch_workers(bs, seg, want, handles);
	if (nworkers == 0 || (engine == ENGINE_SYNC && nworkers < a.processes))
	{
		/* let the ones that did start go, and give their slots back */
		bs->abort_start = true;
		ConditionVariableBroadcast(&bs->cv);
		wait_for_shutdown(handles, nworkers);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("only %d of the %d background workers ranread_run needs could be started",
						nworkers, engine == ENGINE_SYNC ? a.processes : 1),
				 errdetail("max_worker_processes is %d, and other work (parallel queries, replication, extensions) uses some.",
						   max_worker_processes),
				 errhint("Raise max_worker_processes (needs a restart), or wait for other work to finish.")));
	}
	if (nworkers < want)
		ereport(NOTICE,
				(errmsg("only %d of %d background workers were free; %d processes share them",
						nworkers, want, a.processes)));

	/* Divide the streams, then let the workers go */
	bs->p.nworkers = nworkers;
	for (int i = 0; i < nworkers; i++)
	{
		bs->workers[i].first_stream = (int) ((int64) a.processes * i / nworkers);
		bs->workers[i].nstreams = (int) ((int64) a.processes * (i + 1) / nworkers) -
			bs->workers[i].first_stream;
	}
	pg_write_barrier();
	bs->assigned = true;
	ConditionVariableBroadcast(&bs->cv);

	ereport(NOTICE,
			(errmsg("ranread batch " INT64_FORMAT ": %s engine, %d worker%s for %d process%s, queue depth %d",
					batch, engine == ENGINE_URING ? "io_uring" : "synchronous",
					nworkers, nworkers == 1 ? "" : "s", a.processes,
					a.processes == 1 ? "" : "es", a.queue_depth),
			 errdetail("Memory: %.1f MB of shared memory (%.1f kB per process), %.1f MB of I/O buffers.",
					   dsm_segment_map_length(seg) / 1048576.0,
					   dsm_segment_map_length(seg) / 1024.0 / a.processes,
					   iobuf_bytes(bs) / 1048576.0)));

	PG_TRY();
	{
		start_batch(bs, handles);
		wait_batch(bs, handles);
		wait_for_workers_to_leave(bs, true);
		for (int i = 0; i < nworkers; i++)
			(void) WaitForBackgroundWorkerShutdown(handles[i]);
	}
	PG_CATCH();
	{
		stop_and_wait_for_record(bs);
		wait_for_shutdown(handles, nworkers);
		PG_RE_THROW();
	}
	PG_END_TRY();

	result = result_row(fcinfo, bs, &a);
	dsm_detach(seg);
	PG_RETURN_DATUM(result);
}

/*
 * ranread_blocks(processes, n, target, block_size, pattern, region_start,
 *				  region_end, seed): where each process's first n I/Os go, as
 * byte offsets in the target.  No I/O is done; the offsets come from the
 * engines' own block choice, so users and tests can see the region and the
 * seed at work.
 */
Datum
ranread_blocks(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RunArgs		a;
	RanreadTarget t;
	BatchParams p;
	int			n;
	int64	   *offsets;

	fn_name = "ranread_blocks";
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 8; i++)
		if (i != 2)
			require(fcinfo, i, i == 0 ? "processes" : i == 1 ? "n" :
					i == 3 ? "block_size" : i == 4 ? "pattern" : i == 5 ? "region_start" :
					i == 6 ? "region_end" : "seed");
	a.processes = PG_GETARG_INT32(0);
	check_range("processes", a.processes, 1, RANREAD_MAX_PROCESSES, NULL);
	n = PG_GETARG_INT32(1);
	check_range("n", n, 1, 1000000, NULL);
	strlcpy(a.target, target_arg(fcinfo, 2, fn_name), NAMEDATALEN);
	a.block_size = PG_GETARG_INT32(3);
	check_range("block_size", a.block_size, 512, RANREAD_MAX_BLOCK_SIZE, NULL);
	a.pattern = parse_pattern(text_to_cstring(PG_GETARG_TEXT_PP(4)));
	a.region_start = PG_GETARG_FLOAT8(5);
	a.region_end = PG_GETARG_FLOAT8(6);
	check_region(a.region_start, a.region_end);
	a.seed = PG_GETARG_INT64(7);

	memset(&p, 0, sizeof(p));
	check_target(&a, &t, &p);
	p.processes = a.processes;
	p.block_size = a.block_size;
	p.pattern = a.pattern;
	p.seed = a.seed;

	InitMaterializedSRF(fcinfo, 0);
	offsets = palloc(sizeof(int64) * n);
	for (int g = 0; g < a.processes; g++)
	{
		worker_plan(&p, g, n, offsets);
		for (int i = 0; i < n; i++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			values[0] = Int32GetDatum(g + 1);
			values[1] = Int32GetDatum(i + 1);
			values[2] = Int64GetDatum(offsets[i]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
