/*
 * leader.c
 *		The leader of a batch: choose the engine and the workers, claim the
 *		cluster, create the batch's shared memory, launch the workers,
 *		divide the streams among them and settle the engine, start the
 *		clock, wait (progress, steady state, a recording that waits for a
 *		lock), collect, and tell the caller how it went.  The calling
 *		backend of ranread_run, ranread_mix, ranread_run_step (run.c) and
 *		ranread_commit_test (commit.c) is the leader of its batches.
 *
 * The leader never does I/O and never writes history itself (worker 0 does,
 * in its own transactions), so a ROLLBACK, a cancel or a lost client cannot
 * take the batch's record with it.  What the leader owns is the batch's DSM
 * segment and a share of the claim on the control block.  Its on_dsm_detach
 * callback runs on every way out (return, ERROR, FATAL) and asks the workers
 * to stop if they are still going; on a cancel the leader also waits
 * (briefly, with interrupts held) until the batch is recorded, so the
 * history is there when the error reaches psql.
 *
 * The leader holds no lock that the recorder needs: the lookups before the
 * batch read the extension's tables in a subtransaction rolled back at once
 * (target.c).  Should the caller's own transaction hold such a lock anyway
 * (it read the history before calling), and a lock request queue behind it
 * (VACUUM FULL of the history), the recorder would wait for the leader,
 * which waits for the recorder, and no deadlock detector sees the second
 * wait: the leader notices, tells the recorder to give up, and reports the
 * figures in a WARNING.  The figures themselves are computed once, by the
 * recorder, after every worker stopped counting (figures.c): the row
 * returned to the caller and the rows in the history are the same numbers.
 */
#include "postgres.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/dbcommands.h"
#include "commands/sequence.h"
#include "commands/tablespace.h"
#include "lib/stringinfo.h"
#include "libpq/libpq.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/lock.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/wait_event.h"

#include "calls.h"
#include "engine.h"
#include "figures.h"
#include "history.h"
#include "repair.h"
#include "iobuf.h"
#include "leader.h"
#include "params.h"
#include "serverpath.h"
#include "placement.h"
#include "progress.h"

#define NOTICE_EVERY_NS		((uint64) 5 * 1000000000)
#define START_TIMEOUT_NS	((uint64) 60 * 1000000000)
#define OWN_LOCK_PATIENCE_NS ((uint64) 1000000000)
#define CANCEL_WAIT_MS		5000
#define NOTICE_LATE_NS		((uint64) 50 * 1000000)	/* a worker's start this late is told */

/*
 * The engine the batch asks for: ranread.engine, and where it says auto,
 * io_uring if this server allows it (engine.h).  Once the streams are
 * divided, settle_engine may still choose the synchronous one.
 */
static RanreadEngine
choose_engine(void)
{
	char		why[128];
	bool		ok = engine_uring_ops.available(why, sizeof(why));

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

/*
 * How many workers the batch wants, within the limits of its engine and
 * what the server allows (placement.c: a worker per process by default)
 */
static int
choose_workers(BatchParams *p, RunContext *rc)
{
	const EngineOps *engine = engine_ops(p->engine);
	int			max_qd = 0;

	for (int i = 0; i < p->ngroups; i++)
		max_qd = Max(max_qd, p->groups[i].queue_depth);
	if (max_qd > engine->max_queue_depth)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("queue_depth %d needs the io_uring engine", max_qd),
				 errdetail("The synchronous engine keeps one I/O in flight per process."),
				 errhint("Use queue_depth 1, or SET ranread.engine = 'io_uring' where io_uring is available.")));
	/* the server path: each process a worker, as each backend is a process (serverpath.c) */
	if (batch_server_path(p) && p->processes > max_worker_processes)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("processes %d is more than max_worker_processes (%d) allows on path 'server'",
						p->processes, max_worker_processes),
				 errhint("A batch that reads through shared buffers runs each of its processes in a background worker of its own, as each backend is a process; use fewer processes or raise max_worker_processes (needs a restart).")));
	if (engine->one_stream_per_worker && p->processes > max_worker_processes)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("processes %d is more than max_worker_processes (%d) allows with the synchronous engine",
						p->processes, max_worker_processes),
				 errhint("The synchronous engine needs one background worker per process; use io_uring or fewer processes.")));
	if (batch_server_path(p) && rc->workers > 0 && rc->workers < p->processes)
		ereport(NOTICE,
				(errmsg("workers %d of %s is not taken: a batch with a group of path 'server' runs each of its %d processes in a worker of its own",
						rc->workers, rc->fn, p->processes),
				 errdetail("A backend is a process of its own; the server path reads as one does.")));
	return placement_want(p, rc->workers, engine->one_stream_per_worker || batch_server_path(p));
}

/*
 * The engine the batch runs, once the streams are divided: where every
 * worker keeps a single I/O in flight (one stream at queue depth 1), a
 * plain pread or pwrite costs less than a ring, and the whole batch runs
 * the synchronous engine (so do the commit test's batches, one process at
 * queue depth 1 whose I/O may be several writes, which only it does).
 * Otherwise the engine chosen stays, for every worker alike: the history
 * and the NOTICE name one engine, the one that ran.
 */
static RanreadEngine
settle_engine(const BatchShared *bs)
{
	const BatchParams *p = &bs->p;

	/* every stream reads through shared buffers: the buffer manager's (engine.h) */
	if (!batch_device_path(p))
		return ENGINE_BUFMGR;

	for (int i = 0; i < p->nworkers; i++)
	{
		const WorkerSlot *w = &bs->workers[i];

		if (w->nstreams != 1 || p->groups[batch_group_of(p, w->first_stream)].queue_depth != 1)
			return p->engine;
	}
	return ENGINE_SYNC;
}

/* Claim the cluster for a batch, or say who has it; returns the claim */
static uint64
claim(int64 batch, int processes)
{
	RanreadControl *ctl = ranread_control();
	RanreadCheck *chk = ranread_check();
	RanreadPending *pend = ranread_pending();
	TimestampTz statement = GetCurrentStatementStartTimestamp();
	int64		other;
	int			pid;
	int			procs;
	TimestampTz since;
	Oid			dboid;
	bool		super = superuser();
	char		checking[NAMEDATALEN] = "";

	SpinLockAcquire(&ctl->mutex);
	if (!ctl->running)
	{
		uint64		id = ++ctl->last_claim;

		ctl->running = true;
		ctl->claim = id;
		ctl->batch = batch;
		ctl->leader_pid = MyProcPid;
		ctl->leader_user = GetUserId();
		ctl->leader_super = super;
		ctl->dboid = MyDatabaseId;
		ctl->processes = processes;
		ctl->started_at = GetCurrentTimestamp();
		ctl->refcount = 1;
		/* a stop that came since this statement's last batch stops this one */
		ctl->stop = ranread_claim_pending(pend, statement);
		ctl->stop_requests = ctl->stop != STOP_NONE ? 1 : 0;
		ctl->recorded = false;
		SpinLockRelease(&ctl->mutex);
		return id;
	}
	other = ctl->batch;
	pid = ctl->leader_pid;
	procs = ctl->processes;
	since = ctl->started_at;
	dboid = ctl->dboid;
	if (chk->active && chk->claim == ctl->claim)
	{
		strlcpy(checking, chk->target, NAMEDATALEN);
		dboid = chk->dboid;
	}
	SpinLockRelease(&ctl->mutex);

	/* ranread_verify reads a whole target: a write could look torn to it */
	if (checking[0])
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("ranread_verify is checking target \"%s\" of database \"%s\"", checking,
						get_database_name(dboid) ? get_database_name(dboid) : "?"),
				 errdetail("It was started at %s by the session with PID %d; one batch or check runs at a time in the cluster.",
						   timestamptz_to_str(since), pid),
				 errhint("Wait for it to finish, or stop it with SELECT ranread_stop();")));

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("ranread batch " INT64_FORMAT " of database \"%s\" is already running", other,
					get_database_name(dboid) ? get_database_name(dboid) : "?"),
			 errdetail("It was started at %s by the session with PID %d and runs %d process%s; one batch runs at a time in the cluster.",
					   timestamptz_to_str(since), pid, procs, procs == 1 ? "" : "es"),
			 errhint("Wait for it to finish, or stop it with SELECT ranread_stop();")));
	return 0;					/* keep compiler quiet */
}

/*
 * The way out of a batch (a cancel, an error, the end) waits for its
 * workers at most CANCEL_WAIT_MS in all, however many of them there are and
 * however many of the waits below it passes through: a worker stalled in
 * the kernel (a hung device) must not hold its caller past its cancel.  The
 * claim stays with the workers still attached; they leave it when they can.
 * The first wait of a batch's way out sets the deadline (run_batch clears
 * it).
 */
static TimestampTz leaving_by = 0;

static bool
past_leaving_time(void)
{
	TimestampTz now = GetCurrentTimestamp();

	if (leaving_by == 0)
		leaving_by = TimestampTzPlusMilliseconds(now, CANCEL_WAIT_MS);
	return now >= leaving_by;
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
		for (;;)
		{
			pid_t		pid;

			if (handles[i] == NULL ||
				GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STOPPED)
				break;
			if (past_leaving_time())
			{
				RESUME_INTERRUPTS();
				return;
			}
			/* no postmaster reaps them any more: nothing to wait for */
			if (!PostmasterIsAlive())
			{
				RESUME_INTERRUPTS();
				return;
			}
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

	while (!past_leaving_time())
	{
		bool		left;

		SpinLockAcquire(&ctl->mutex);
		left = !ctl->running || ctl->claim != bs->p.claim || ctl->refcount <= 1;
		SpinLockRelease(&ctl->mutex);
		if (left || !PostmasterIsAlive())
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
	while (!past_leaving_time())
	{
		bool		any_left = false;

		if (bs->record_state != RECORD_PENDING || !PostmasterIsAlive())
			break;
		for (int w = 0; w < bs->p.nworkers; w++)
			if (bs->workers[w].pid != 0 && !bs->workers[w].exited)
				any_left = true;
		if (!any_left)
			break;
		pg_usleep(10000L);
	}
	if (bs->record_state != RECORD_PENDING)
		wait_for_workers_to_leave(bs, false);
	RESUME_INTERRUPTS();
}

/* on_dsm_detach of the leader: stop the workers if we leave early */
static void
leader_detach(dsm_segment *seg, Datum arg)
{
	BatchShared *bs = (BatchShared *) DatumGetPointer(arg);

	if (bs->record_state == RECORD_PENDING)
		stop_and_wait_for_record(bs);
	bs->leader_latch = NULL;
	progress_work_end();
	ranread_release(bs->p.claim);
}

/* Size of the batch's segment and the offsets inside it */
static uint32
hsec_pool_entries(const BatchParams *p)
{
	return (uint32) Min((uint64) p->nintervals * p->ngroups * HIST_SECOND_AVG_ENTRIES,
						(uint64) HIST_SECOND_POOL_MAX);
}

static Size
batch_layout(const BatchParams *p, int nworkers, Size *stream_off, Size *interval_off,
			 Size *hsec_index_off, Size *hsec_pool_off)
{
	Size		sz = MAXALIGN(add_size(offsetof(BatchShared, workers),
									   mul_size(nworkers, sizeof(WorkerSlot))));

	*stream_off = sz;
	sz = add_size(sz, mul_size(p->processes, stream_stats_size(batch_writes(p))));
	*interval_off = sz;
	sz = add_size(sz, mul_size(mul_size(mul_size(nworkers, p->ngroups), p->nintervals),
							   sizeof(IntervalSlot)));
	/* then the per-second histograms' index and pool */
	*hsec_index_off = sz = MAXALIGN(sz);
	sz = add_size(sz, mul_size(mul_size(p->ngroups, p->nintervals), sizeof(HistSecondIndex)));
	*hsec_pool_off = sz = MAXALIGN(sz);
	return add_size(sz, mul_size(hsec_pool_entries(p), sizeof(HistSecondEntry)));
}

/*
 * The size of a verified target's per-block words (verify.h): the blocks of
 * its verifying groups' regions only, within ranread.verify_max_memory
 * (params.c, resolve_verify_words)
 */
static Size
verify_words_size(const BatchTarget *t)
{
	return mul_size(t->words_blocks, VERIFY_BLOCK_BYTES);
}

/*
 * Where each verified target's per-block words go (verify.h), after the
 * rest of the segment of size sz; returns the segment's new size
 */
static Size
verify_layout(const BatchParams *p, Size sz, Size *verify_off)
{
	for (int t = 0; t < p->ntargets; t++)
	{
		verify_off[t] = 0;
		if (!p->targets[t].verified)
			continue;
		sz = MAXALIGN(sz);
		verify_off[t] = sz;
		sz = add_size(sz, verify_words_size(&p->targets[t]));
	}
	return sz;
}

/* Create the batch's shared memory and fill in what the workers read */
static BatchShared *
create_segment(BatchParams *p, RunContext *rc)
{
	Size		stream_off;
	Size		interval_off;
	Size		hsec_index_off;
	Size		hsec_pool_off;
	Size		verify_off[RANREAD_MAX_TARGETS];
	Size		size = verify_layout(p, batch_layout(p, rc->nworkers, &stream_off, &interval_off,
													 &hsec_index_off, &hsec_pool_off),
									 verify_off);
	BatchShared *bs;

	PG_TRY();
	{
		rc->seg = dsm_create(size, 0);
	}
	PG_CATCH();
	{
		ranread_release(p->claim);
		PG_RE_THROW();
	}
	PG_END_TRY();
	bs = dsm_segment_address(rc->seg);
	/* the pool is written before it is read: its pages stay untouched until used */
	memset(bs, 0, hsec_pool_off);
	/* ... and verify's per-block words, after the pool, start at zero */
	for (int t = 0; t < p->ntargets; t++)
		if (verify_off[t] != 0)
			memset((char *) bs + verify_off[t], 0, verify_words_size(&p->targets[t]));
	ConditionVariableInit(&bs->cv);
	pg_atomic_init_u32(&bs->ready, 0);
	bs->p = *p;
	on_dsm_detach(rc->seg, leader_detach, PointerGetDatum(bs));
	bs->stream_off = stream_off;
	bs->stream_size = stream_stats_size(batch_writes(p));
	bs->interval_off = interval_off;
	bs->hsec_index_off = hsec_index_off;
	bs->hsec_pool_off = hsec_pool_off;
	bs->hsec_pool_size = hsec_pool_entries(p);
	memcpy(bs->verify_off, verify_off, sizeof(verify_off));
	pg_atomic_init_u64(&bs->verify.next_seq, 1);
	pg_atomic_init_u32(&bs->verify.nerrors, 0);
	bs->leader_latch = &MyProc->procLatch;
	bs->run_at = GetCurrentTimestamp();
	for (int i = 0; i < p->processes; i++)
	{
		StreamStats *st = batch_stream(bs, i);

		hist_reset(&st->hist[HIST_READS]);
		if (batch_writes(p))
			hist_reset(&st->hist[HIST_WRITES]);
	}
	return bs;
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

/* Has the recorder gone away without saying how the recording ended? */
static bool
recorder_gone(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	pid_t		pid;

	return bs->record_state == RECORD_PENDING &&
		(bs->workers[0].exited || GetBackgroundWorkerPid(handles[0], &pid) == BGWH_STOPPED);
}

/* Have all workers finished their I/O (or left)? */
static bool
io_over(BatchShared *bs)
{
	for (int i = 0; i < bs->p.nworkers; i++)
		if (!bs->workers[i].done && !bs->workers[i].exited)
			return false;
	return true;
}

/*
 * Does this transaction hold a lock on a history table?  Then a recorder
 * that waits for a lock there may be waiting, through a queued request, for
 * us.
 */
static bool
leader_holds_history_lock(const BatchParams *p)
{
	static const char *const tables[] = {"ranread_batches", "ranread_results", "ranread_intervals"};
	Oid			nsp = get_namespace_oid(p->schema, true);

	for (int t = 0; t < lengthof(tables) && OidIsValid(nsp); t++)
	{
		Oid			relid = get_relname_relid(tables[t], nsp);
		LOCKTAG		tag;

		if (!OidIsValid(relid))
			continue;
		SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
		for (LOCKMODE mode = AccessShareLock; mode <= AccessExclusiveLock; mode++)
			if (LockHeldByMe(&tag, mode))
				return true;
	}
	return false;
}

/*
 * Every worker is ready: wait for start_at.  Latch waits until close to it,
 * then a sleep on the wall clock to the instant.  Late already: start now,
 * and say by how much (a fleet compares its nodes' first I/Os).  A stop, a
 * cancel or a worker that died end the wait early.
 */
static void
wait_for_start_at(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	TimestampTz now;

	while ((now = GetCurrentTimestamp()) < bs->p.start_at - 20 * 1000)
	{
		long		ms = (long) Min((bs->p.start_at - now) / 1000 - 10, 100);

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 Max(ms, 1), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		if (ranread_control()->stop != STOP_NONE)
			return;
		/* a worker that is gone ends the wait: the batch goes on without it */
		for (int i = 0; i < bs->p.nworkers; i++)
		{
			pid_t		pid;

			if (GetBackgroundWorkerPid(handles[i], &pid) == BGWH_STOPPED)
				return;
		}
	}
	if (now < bs->p.start_at)
	{
		/* TimestampTz counts from 2000-01-01; the realtime clock from 1970 */
		int64		us = bs->p.start_at + (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
		struct timespec ts;

		ts.tv_sec = us / USECS_PER_SEC;
		ts.tv_nsec = (us % USECS_PER_SEC) * 1000;
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	else if (now - bs->p.start_at > 1000)
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT " started %.1f ms after its start_at %s",
						bs->p.batch, (now - bs->p.start_at) / 1000.0, timestamptz_to_str(bs->p.start_at)),
				 errdetail("Its workers were ready only then."),
				 errhint("Give start_at more time ahead.")));
}

/* Wait until every worker is ready, then start the clock */
static void
start_batch(BatchShared *bs, BackgroundWorkerHandle **handles)
{
	uint64		deadline = ranread_now_ns() + START_TIMEOUT_NS;
	uint64		next_notice = ranread_now_ns() + NOTICE_EVERY_NS;

	for (;;)
	{
		uint64		now;

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
		now = ranread_now_ns();
		/* waiting for a lock to insert the batch's row is not a slow start */
		if (bs->record_blocked)
		{
			deadline = now + START_TIMEOUT_NS;
			if (now >= next_notice)
			{
				next_notice = now + NOTICE_EVERY_NS;
				ereport(NOTICE,
						(errmsg("ranread batch " INT64_FORMAT " waits for a lock to insert its row: %s",
								bs->p.batch, bs->blocked_by[0] ? bs->blocked_by : "held by another session"),
						 errhint("ranread_stop() or a cancel gives up the batch.")));
			}
		}
		if (now > deadline)
			ereport(ERROR,
					(errcode(ERRCODE_SYSTEM_ERROR),
					 errmsg("ranread workers of batch " INT64_FORMAT " did not start within 60 seconds",
							bs->p.batch)));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	if (bs->p.start_at != 0)
		wait_for_start_at(bs, handles);
	bs->go_ns = ranread_now_ns();
	bs->go_at = GetCurrentTimestamp();
	bs->measure_ns = bs->go_ns + bs->p.warmup_ns;
	pg_write_barrier();
	bs->go = true;
	ConditionVariableBroadcast(&bs->cv);
}

/*
 * While the I/O is over but the recording waits for a lock: say who holds
 * it now and then, and give up at once when it is our own transaction.
 */
static void
watch_recording(BatchShared *bs, uint64 now, uint64 *blocked_since, uint64 *next_notice)
{
	if (!bs->record_blocked || !io_over(bs))
	{
		*blocked_since = 0;
		return;
	}
	if (*blocked_since == 0)
		*blocked_since = now;
	if (!bs->give_up_record && now - *blocked_since >= OWN_LOCK_PATIENCE_NS &&
		leader_holds_history_lock(&bs->p))
		bs->give_up_record = true;
	else if (now >= *next_notice)
	{
		*next_notice = now + NOTICE_EVERY_NS;
		ereport(NOTICE,
				(errmsg("ranread batch " INT64_FORMAT " is over and waits for a lock to record its history: %s",
						bs->p.batch, bs->blocked_by[0] ? bs->blocked_by : "held by another session"),
				 errhint("SELECT ranread_stop(); gives up the recording and reports the figures here.")));
	}
}

/*
 * steady_state: once a second more is complete, see whether the last window
 * of seconds is steady, and end the run if so (completed, early).
 */
static void
watch_steady(BatchShared *bs, uint64 now, int *checked, int level)
{
	int			complete;

	if (bs->p.steady_pct <= 0 || !bs->go || now < bs->measure_ns || bs->ended_steady)
		return;
	complete = (int) ((now - bs->measure_ns) / 1000000000);
	if (complete == *checked)
		return;
	*checked = complete;
	if (figures_steady_now(bs, complete))
	{
		bs->ended_steady = true;
		ranread_request_stop(bs->p.claim, STOP_STEADY);
		ereport(level,
				(errmsg("ranread batch " INT64_FORMAT ": steady after %d s (%s), ending the run",
						bs->p.batch, complete, bs->p.steady_text)));
	}
}

/* The leader's side of the per-second histograms (batch.h) */
typedef struct HistWatch
{
	int			next;			/* the second to take next */
	bool		resync;			/* next is unknown: its end's snapshot is a base */
	bool		stopped;		/* the pool is full */
	uint64	   *prev;			/* [ngroups][HIST_BUCKETS]: the last snapshot */
	uint64	   *cur;			/* [HIST_BUCKETS]: one group now */
} HistWatch;

/* Add the buckets of h as they are now (the workers may be adding) */
static void
hsec_add_buckets(uint64 *sum, const RanreadHist *h)
{
	const volatile uint64 *b = h->buckets;

	for (int i = 0; i < HIST_BUCKETS; i++)
		sum[i] += b[i];
}

/*
 * Take second s: each group's merged buckets now, less the last snapshot,
 * into the pool (store), or only as the next base, s unknown (!store).
 * false when the pool has no room for it.
 */
static bool
hsec_take(BatchShared *bs, HistWatch *hw, int s, bool store)
{
	const BatchParams *p = &bs->p;
	HistSecondEntry *pool = batch_hsec_pool(bs);

	for (int g = 0; g < p->ngroups; g++)
	{
		const GroupParams *gp = &p->groups[g];
		uint64	   *prev = hw->prev + (Size) g * HIST_BUCKETS;
		HistSecondIndex *ix = batch_hsec_index(bs, s, g);

		memset(hw->cur, 0, HIST_BUCKETS * sizeof(uint64));
		for (int i = gp->first_stream; i < gp->first_stream + gp->processes; i++)
		{
			StreamStats *st = batch_stream(bs, i);

			hsec_add_buckets(hw->cur, &st->hist[HIST_READS]);
			hsec_add_buckets(hw->cur, stream_write_hist(bs, st));
		}
		ix->first = store ? bs->hsec_used : HSEC_UNKNOWN;
		ix->n = 0;
		for (int b = 0; b < HIST_BUCKETS; b++)
		{
			if (hw->cur[b] <= prev[b])
				continue;		/* monotonic: never less, but be safe */
			if (!store)
			{
				prev[b] = hw->cur[b];
				continue;
			}
			if (bs->hsec_used >= bs->hsec_pool_size)
				return false;
			pool[bs->hsec_used].bucket = (uint16) b;
			pool[bs->hsec_used].pad = 0;
			pool[bs->hsec_used].count = (uint32) Min(hw->cur[b] - prev[b], (uint64) PG_UINT32_MAX);
			bs->hsec_used++;
			ix->n++;
			prev[b] = hw->cur[b];
		}
	}
	return true;
}

/* Seconds from to before until are unknown (batch.h) */
static void
hsec_unknown(BatchShared *bs, int from, int until)
{
	for (int s = from; s < until; s++)
		for (int g = 0; g < bs->p.ngroups; g++)
		{
			batch_hsec_index(bs, s, g)->first = HSEC_UNKNOWN;
			batch_hsec_index(bs, s, g)->n = 0;
		}
	if (until > from)
		bs->hsec_gaps = true;
}

/*
 * Once a second of the measured part is over, take its histograms and
 * publish them (batch.h, "Per-second latency histograms").  A leader that
 * wakes more than a second after a second ended marks the seconds since
 * its last snapshot, and the one in progress, unknown, and takes the end
 * of that one as the base of the next.
 */
static void
watch_hist_seconds(BatchShared *bs, uint64 now, HistWatch *hw)
{
	const BatchParams *p = &bs->p;
	uint64		end;

	if (hw->stopped || !p->timing || !bs->go || now < bs->measure_ns || hw->next >= p->nintervals)
		return;
	end = bs->measure_ns + (uint64) (hw->next + 1) * 1000000000;
	if (now < end)
		return;
	if (now >= end + 1000000000)
	{
		/* late: every second up to the one in progress is unknown */
		int			current = (int) Min((now - bs->measure_ns) / 1000000000, (uint64) p->nintervals);

		hsec_unknown(bs, hw->next, current);
		hw->next = current;
		hw->resync = true;
	}
	else if (hw->resync)
	{
		(void) hsec_take(bs, hw, hw->next, false);
		bs->hsec_gaps = true;
		hw->resync = false;
		hw->next++;
	}
	else if (hsec_take(bs, hw, hw->next, true))
		hw->next++;
	else
	{
		hw->stopped = true;
		return;
	}
	pg_write_barrier();
	bs->hsec_done = hw->next;
}

/*
 * Wait for the batch to be recorded, with its progress published and said
 * in NOTICEs (at level; progress_batch.c)
 */
static void
wait_batch(BatchShared *bs, BackgroundWorkerHandle **handles, int level, ProgressWatch *pw)
{
	uint64		next_notice = bs->go_ns + NOTICE_EVERY_NS;
	uint64		next_conn_check = 0;
	uint64		blocked_since = 0;
	int			steady_checked = 0;
	HistWatch	hw = {0};

	hw.prev = palloc0((Size) bs->p.ngroups * HIST_BUCKETS * sizeof(uint64));
	hw.cur = palloc(HIST_BUCKETS * sizeof(uint64));
	while (bs->record_state == RECORD_PENDING)
	{
		uint64		now;

		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 100, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		now = ranread_now_ns();

		/*
		 * A lost client ends the batch; a leader with no client (a
		 * background worker, such as pg_cron's with
		 * cron.use_background_workers) has no connection to check
		 */
		if (now >= next_conn_check && MyProcPort != NULL)
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
			break;
		watch_steady(bs, now, &steady_checked, level);
		watch_hist_seconds(bs, now, &hw);
		watch_recording(bs, now, &blocked_since, &next_notice);
		batch_progress_watch(bs, pw, now, level);
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
	{
		Size		bytes = 0;

		for (int s = bs->workers[i].first_stream;
			 s < bs->workers[i].first_stream + bs->workers[i].nstreams; s++)
		{
			const GroupParams *g = &p->groups[batch_group_of(p, s)];

			bytes += (Size) g->queue_depth * IOBUF_STRIDE(g->block_size);
		}
		sum += ranread_iobuf_length(bytes, p->huge_pages);
	}
	return sum;
}

/*
 * Does io_uring register the batch's buffers?  Huge pages only (engine_uring.c
 * says why), and only when all of them fit the locked memory the server's
 * user may pin (iobuf.c): one layout for every worker.
 */
static bool
may_register(BatchShared *bs)
{
	double		limit;

	return bs->p.huge_pages && bs->p.engine == ENGINE_URING &&
		ranread_iobuf_may_register(iobuf_bytes(bs), &limit);
}

/* The figures in a sentence, for a warning that must carry them */
static char *
figures_sentence(const RanreadFigures *f)
{
	return psprintf(UINT64_FORMAT " reads and " UINT64_FORMAT " writes in %.3f s: %.0f IOPS, %.2f MiB/s; latency avg %.3f ms, p99 %.3f ms, max %.3f ms",
					f->reads, f->writes, f->seconds, f->iops, f->mbps,
					f->avg_ms, f->p99_ms, f->max_ms);
}

/* A block size in words: 8 KiB, 1 MiB, 512 B */
static char *
block_words(int bytes)
{
	if (bytes % (1024 * 1024) == 0)
		return psprintf("%d MiB", bytes / (1024 * 1024));
	if (bytes % 1024 == 0)
		return psprintf("%d KiB", bytes / 1024);
	return psprintf("%d B", bytes);
}

/* An average latency as a mix's line gives it: not measured without timing */
static char *
avg_words(const RanreadFigures *f)
{
	return f->latency ? psprintf("%s ms", figures_text(f->avg_ms, 3)) : pstrdup("not measured");
}

static char *steady_words(const BatchShared *bs);

/*
 * A batch's line, in fio's spirit (README, "A first run"): "batch 12: 20
 * processes, random 8 KiB reads, IOPS=41908, BW=327.4MiB/s, avg 0.480 ms,
 * p99 2.104 ms, 10.002 s", each figure rounded as the row ranread_run
 * returns has it (figures_text), then how it ended when that is not
 * completed ("3.104 s of 00:00:08, stopped"), and SNIA's verdict when
 * there is one.  A mix's line is its total ("mix of 2 groups"), after
 * mix_line's line per group (which gives the verdict).
 */
static char *
summary_line(const BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	const GroupParams *g = &p->groups[0];
	const RanreadFigures *f = &bs->total;
	char	   *what;
	const char *ended = bs->ended_steady ? ", ended steady" :
		bs->status == STOP_NONE ? "" : psprintf(", %s", ranread_status_name(bs->status));

	/* ended before its duration: of what it asked for */
	if (*ended && p->duration_ns > 0)
		ended = psprintf(" of %s%s",
						 DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&p->duration))),
						 ended);

	/* a mix: its total, as its total row (mix_line has each group) */
	if (p->ngroups > 1 || p->mix)
		what = psprintf("mix of %d group%s", p->ngroups, p->ngroups == 1 ? "" : "s");
	else
		what = psprintf("%s %s %s%s",
						g->pattern == PATTERN_RANDOM ? "random" : "sequential", block_words(g->block_size),
						g->write_pct == 0 ? "reads" : g->write_pct == 100 ? "writes" : psprintf("%d%% writes", g->write_pct),
						g->queue_depth > 1 ? psprintf(" (queue depth %d)", g->queue_depth) : "");
	return psprintf("batch " INT64_FORMAT ": %d process%s, %s, IOPS=%s, BW=%sMiB/s, %s%s, %s s%s%s",
					p->batch, p->processes, p->processes == 1 ? "" : "es", what,
					figures_text(f->iops, 0), figures_text(f->mbps, 1),
					f->latency ? psprintf("avg %s ms", figures_text(f->avg_ms, 3)) : "latency not measured",
					f->latency ? psprintf(", p99 %s ms", figures_text(f->p99_ms, 3)) : "",
					figures_text(f->seconds, 3), ended, p->ngroups > 1 || p->mix ? "" : steady_words(bs));
}

/* Seconds as an interval's text, to a tenth: 00:00:03.1 */
static char *
seconds_words(double secs)
{
	Interval	iv;

	memset(&iv, 0, sizeof(iv));
	iv.time = (TimeOffset) llround(secs * 10) * (USECS_PER_SEC / 10);
	return DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&iv)));
}

/*
 * How long the batch measured, against what it asked for, and why it ended
 * when it did: "00:00:08", "00:00:03.1 of 00:00:08, stopped", "00:00:07 of
 * 00:00:20, ended steady", "10000 iterations in 00:00:00.5".  The seconds
 * are the measured ones (the figures'), never the duration asked for.
 */
static char *
elapsed_words(const BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	const char *ran = seconds_words(bs->total.seconds);
	const char *why = bs->ended_steady ? "ended steady" :
		bs->status == STOP_NONE ? NULL : ranread_status_name(bs->status);
	char	   *s;

	if (p->duration_ns > 0)
	{
		const char *asked = DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&p->duration)));

		s = strcmp(ran, asked) == 0 ? pstrdup(ran) : psprintf("%s of %s", ran, asked);
	}
	else if (p->ngroups == 1 && !p->mix)
		s = psprintf(INT64_FORMAT " iterations in %s", p->groups[0].iterations, ran);
	else
		s = psprintf("iterations in %s", ran);
	return why ? psprintf("%s, %s", s, why) : s;
}

/*
 * What SNIA's verdict (steady) adds to the end line: figures_steady_words's
 * (nothing for a steady batch; too short to judge, or not steady and which
 * part failed).  When steady_state ended the run early (ended_steady) the two
 * are told apart: steady_state judges the last seconds of the run, SNIA's
 * rule five rounds of all of it, so a run may end steady and not be.
 */
static char *
steady_words(const BatchShared *bs)
{
	char	   *snia = figures_steady_words((BatchShared *) bs);

	if (snia == NULL)
		return "";
	if (bs->ended_steady && bs->steady == 0)
		return psprintf("; steady_state %s held for its last %d s (ended_steady), but by SNIA's rule on all of it the run was %s",
						bs->p.steady_text, bs->p.steady_window, snia);
	return psprintf("; %s", snia);
}

/* The seed's line for a mix: each group, what it did and how it fared */
static char *
mix_line(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfo(&s, "ranread batch " INT64_FORMAT ", %d group%s (%s):", p->batch, p->ngroups,
					 p->ngroups == 1 ? "" : "s", elapsed_words(bs));
	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *g = &p->groups[i];
		const RanreadFigures *f = &bs->group_fig[i];

		appendStringInfo(&s, "%s %s, %d process%s %s %s%s QD%d: average response time = %s, calculated IOPS = %s (%s MiB/s)",
						 i ? ";" : "", g->label, g->processes, g->processes == 1 ? "" : "es",
						 g->pattern == PATTERN_RANDOM ? "random" : "sequential",
						 block_words(g->block_size),
						 g->write_pct > 0 ? psprintf(" %d%% writes", g->write_pct) : "",
						 g->queue_depth, avg_words(f), figures_text(f->iops, 0), figures_text(f->mbps, 1));
	}
	appendStringInfoString(&s, steady_words(bs));
	return s.data;
}

/* The queue depth of the start NOTICE: one, or each group's */
static char *
queue_depth_words(const BatchParams *p)
{
	StringInfoData s;

	initStringInfo(&s);
	if (p->ngroups == 1 && !p->mix)
	{
		appendStringInfo(&s, "queue depth %d", p->groups[0].queue_depth);
		return s.data;
	}
	appendStringInfoString(&s, "queue depth");
	for (int i = 0; i < p->ngroups; i++)
		appendStringInfo(&s, "%s %d (%s)", i ? "," : "", p->groups[i].queue_depth, p->groups[i].label);
	return s.data;
}

/*
 * Is the batch one step of a larger call (a sweep, a study or profile, a
 * latency-target search, a fleet, a commit test)?  Then the call says one
 * line per step, and the batch's own NOTICEs are DEBUG1.
 */
static bool
batch_is_step(const BatchParams *p)
{
	return p->sweep != 0 || p->study != 0 || p->fleet != 0 || p->commit_test != 0 ||
		ranread_call_in_progress();
}

/*
 * What to do about a history that was not written, from the error that
 * ended the recording: the lock in the way, a full disk (where the history
 * tables are), another shortage, or any other error by its SQLSTATE
 */
static const char *
record_hint(BatchShared *bs)
{
	int			code = bs->record_sqlstate;
	Oid			spc;

	if (bs->give_up_record)
		return "Run ranread_run in a transaction that has not read ranread's history tables.";
	if (bs->record_state != RECORD_GAVE_UP)
		return "The server log has the recording worker's error; run the batch again once it is fixed.";
	if (code == ERRCODE_LOCK_NOT_AVAILABLE || code == ERRCODE_T_R_DEADLOCK_DETECTED)
		return "Run the batch again once the lock is gone.";
	if (code == ERRCODE_DISK_FULL)
	{
		spc = get_rel_tablespace(get_relname_relid("ranread_batches",
												   get_namespace_oid(bs->p.schema, false)));
		if (spc == InvalidOid)
			spc = MyDatabaseTableSpace;
		if (spc == DEFAULTTABLESPACE_OID)
			return "Free disk space on the filesystem of the data directory, which holds ranread's history tables, then run the batch again.";
		return psprintf("Free disk space on the filesystem of tablespace \"%s\", which holds ranread's history tables, then run the batch again.",
						get_tablespace_name(spc) ? get_tablespace_name(spc) : "?");
	}
	if (ERRCODE_TO_CATEGORY(code) == ERRCODE_INSUFFICIENT_RESOURCES)
		return psprintf("The server ran short of a resource (SQLSTATE %s); run the batch again once it has more.",
						unpack_sql_state(code));
	return psprintf("The recording failed with SQLSTATE %s, as the detail says; run the batch again once that is fixed.",
					unpack_sql_state(code));
}

/* The NOTICEs and WARNINGs of a finished batch */
static void
report_batch(BatchShared *bs, RunContext *rc, int level)
{
	const BatchParams *p = &bs->p;
	const RanreadFigures *f = &bs->total;
	RanreadPages pages = history_pages(bs);
	char	   *notes = history_notes(bs);
	int			late_worker;
	uint64		late = history_start_late_ns(bs, &late_worker);

	if (p->ngroups > 1 || p->mix)
	{
		ereport(level, (errmsg("%s", mix_line(bs))));
		ereport(level, (errmsg("%s", summary_line(bs))));
	}
	else
		ereport(level, (errmsg("%s", summary_line(bs))));
	if (batch_verifies(p))
		ereport(figures_verify_errors(f) > 0 ? WARNING : level,
				(errmsg("ranread batch " INT64_FORMAT " verify: " UINT64_FORMAT " bad blocks (" UINT64_FORMAT " corrupt, " UINT64_FORMAT " wrong block, " UINT64_FORMAT " lost) in " UINT64_FORMAT " pages read and checked",
						p->batch, figures_verify_errors(f), f->verify_bad[VERIFY_CORRUPT],
						f->verify_bad[VERIFY_WRONG_BLOCK], f->verify_bad[VERIFY_LOST], f->verify_checked),
				 errdetail(UINT64_FORMAT " pages read while a write of theirs was in flight were not checked; every page written was stamped and checksummed.",
						   f->verify_skipped),
				 figures_verify_errors(f) > 0 ?
				 errhint("The first bad blocks are in ranread_verify_errors (batch " INT64_FORMAT ").", p->batch) : 0));
	if (batch_server_path(p))
		serverpath_report(bs, level);
	/* each result says when caches may have answered, not only setup */
	if (history_cache_words(bs))
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT ": %s", p->batch, history_cache_words(bs)),
				 errhint("For figures from the disks, read a target of at least twice the server's RAM (ranread_setup); the batch's notes in ranread_summary_full say so too.")));
	if (history_device_words(bs))
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT ": %s", p->batch, history_device_words(bs)),
				 errhint("For the device's figures, put the target on a filesystem that honours O_DIRECT (ext4 in its default data=ordered mode, XFS), or read a target larger than the filesystem's cache; the batch's notes in ranread_summary_full say so too.")));
	if (bs->status == STOP_FAILED)
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT " failed: %s", p->batch, bs->message)));
	if (!isnan(f->busy) && notes && strstr(notes, "Little's law"))
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT ": the processes were busy %.1f%% of the measured time, below %.0f%%",
						p->batch, 100 * f->busy, 100 * FIGURES_BUSY_MIN),
				 errdetail("Each process keeps its queue depth of I/Os in flight, so its latencies should add up to the time it ran (Little's law); latency went missing, or the workers were starved of CPU."),
				 errhint("The batch's notes in ranread_summary say so too; fewer processes per worker (the workers argument) or a less busy server may help.")));
	if (late >= NOTICE_LATE_NS)
		ereport(level,
				(errmsg("ranread batch " INT64_FORMAT ": worker %d started its I/O %.0f ms after the batch's start",
						p->batch, late_worker + 1, late / 1e6),
				 errdetail("Its process got a CPU only then (a busy server). Each worker measured its whole duration from its own start; ranread_batches.start_late_ms keeps the delay.")));
	if (p->huge_pages && (pages == PAGES_SMALL || pages == PAGES_MIXED))
		ereport(NOTICE,
				(errmsg("ranread batch " INT64_FORMAT ": %s I/O buffers were in base pages, not huge pages",
						p->batch, pages == PAGES_SMALL ? "the" : "some"),
				 errdetail("A direct I/O from base pages reaches the device in more segments, which lowers large-block throughput on some virtual disks."),
				 errhint("The kernel gave fewer huge pages than asked for (see /sys/kernel/mm/transparent_hugepage/); the batch records buffer_pages '%s'.",
						 ranread_pages_name(pages))));
	if (bs->record_state != RECORD_DONE)
		ereport(WARNING,
				(errmsg("the history of ranread batch " INT64_FORMAT " was not written", p->batch),
				 errdetail("%s. The batch ended %s: %s.",
						   bs->record_state == RECORD_GAVE_UP ? bs->record_message :
						   "its recording worker exited before writing it",
						   ranread_status_name(bs->status), figures_sentence(f)),
				 errhint("%s %s",
						 bs->record_marked ? "ranread_summary shows the batch as failed, with this reason." :
						 "ranread_summary shows the batch as failed.",
						 record_hint(bs))));
	(void) rc;
}


/*
 * Run a batch whose parameters are checked (the targets not yet resolved),
 * wait for it, and leave its figures in rc->bs.  The caller builds its row
 * and detaches the segment.
 */
void
run_batch(BatchParams *p, RunContext *rc)
{
	RanreadEngine asked_engine;
	BatchShared *bs;
	int			want;
	int			level;
	ProgressWatch *pw = palloc(sizeof(ProgressWatch));

	leaving_by = 0;
	params_resolve(p, rc->fn);
	p->engine = choose_engine();
	want = choose_workers(p, rc);
	p->nintervals = p->duration_ns > 0 ?
		(int) Min((p->duration_ns / 1000000000) + 2, RANREAD_MAX_INTERVALS) : 3600;
	p->dboid = MyDatabaseId;
	p->ext_owner = ranread_ext_owner();
	p->sql_version = ranread_sql_version();
	strlcpy(p->schema, ranread_schema_name_raw(), NAMEDATALEN);
	strlcpy(p->started_by, GetUserNameFromId(GetUserId(), false), NAMEDATALEN);
	ranread_strlcpy(p->caller, rc->fn, NAMEDATALEN);
	p->timing = ranread_timing_guc;
	p->huge_pages = ranread_huge_pages_guc;
	p->nworkers = want;
	level = batch_is_step(p) ? DEBUG1 : NOTICE;

	/* Everything the batch needs is known before the cluster is claimed */
	p->batch = nextval_internal(get_relname_relid("ranread_batch_seq",
												  get_namespace_oid(p->schema, false)),
								false);
	p->claim = claim(p->batch, p->processes);
	batch_progress_begin(p, pw);

	/* From here on the claim is released by the DSM detach callbacks */
	rc->nworkers = want;
	bs = rc->bs = create_segment(p, rc);
	/* the server path: its targets' caches emptied before any worker starts */
	if (batch_server_path(p))
		serverpath_evict(&bs->p);
	rc->handles = palloc0(sizeof(BackgroundWorkerHandle *) * want);
	rc->nworkers = launch_workers(bs, rc->seg, want, rc->handles);
	if (rc->nworkers == 0 ||
		((engine_ops(p->engine)->one_stream_per_worker || batch_server_path(p)) && rc->nworkers < p->processes))
	{
		/* let the ones that did start go, and give their slots back */
		bs->abort_start = true;
		ConditionVariableBroadcast(&bs->cv);
		wait_for_shutdown(rc->handles, rc->nworkers);
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("only %d of the %d background workers %s needs could be started",
						rc->nworkers,
						engine_ops(p->engine)->one_stream_per_worker || batch_server_path(p) ? p->processes : 1,
						rc->fn),
				 errdetail("max_worker_processes is %d, and other work (parallel queries, replication, extensions) uses some.",
						   max_worker_processes),
				 errhint("Raise max_worker_processes (needs a restart), or wait for other work to finish.")));
	}
	if (rc->nworkers < want && rc->workers > 0)
		ereport(NOTICE,
				(errmsg("only %d of %d background workers were free; %d processes share them",
						rc->nworkers, want, p->processes)));

	/* Divide the streams, settle the engine, then let the workers go */
	placement_divide(bs, rc->nworkers);
	asked_engine = p->engine;
	p->engine = bs->p.engine = settle_engine(bs);
	p->register_buffers = bs->p.register_buffers = may_register(bs);
	pg_write_barrier();
	bs->assigned = true;
	ConditionVariableBroadcast(&bs->cv);
	if (placement_groups_share(bs) && rc->workers == 0)
		ereport(WARNING,
				(errmsg("ranread batch " INT64_FORMAT ": only %d background worker%s for %d groups, so groups share workers",
						p->batch, rc->nworkers, rc->nworkers == 1 ? " was free" : "s were free", p->ngroups),
				 errdetail("A worker reaps its streams together: a group's latency may include the waits of another group's I/O."),
				 errhint("Raise max_worker_processes (needs a restart), or run the batch when other work leaves more workers free.")));

	PG_TRY();
	{
		start_batch(bs, rc->handles);
		/* the engine named is the one settled, which the recorder records */
		ereport(level,
				(errmsg("ranread batch " INT64_FORMAT ": %s engine%s, %d worker%s for %d process%s, %s",
						p->batch, engine_ops(bs->p.engine)->name,
						/* why not the engine asked for: settle_engine's reason */
						asked_engine != bs->p.engine && bs->p.engine == ENGINE_SYNC ?
						" (each worker keeps one I/O in flight, where a plain pread or pwrite costs less than io_uring)" : "",
						rc->nworkers, rc->nworkers == 1 ? "" : "s", p->processes,
						p->processes == 1 ? "" : "es", queue_depth_words(p)),
				 errdetail("%s I/O buffers: %s. Memory: %.1f MB of shared memory (%.1f kB per process), %.1f MB of I/O buffers.",
						   placement_words(bs), history_layout_words(bs),
						   dsm_segment_map_length(rc->seg) / 1048576.0,
						   dsm_segment_map_length(rc->seg) / 1024.0 / p->processes,
						   iobuf_bytes(bs) / 1048576.0)));
		if (batch_server_path(p))
			serverpath_start_notice(&bs->p, level);
		wait_batch(bs, rc->handles, level, pw);
		if (!bs->figures_ready)
		{
			/* the recorder is gone: once every worker has left, count here */
			wait_for_shutdown(rc->handles, rc->nworkers);
			figures_conclude(bs, STOP_FAILED, NULL, NULL);
		}
		wait_for_workers_to_leave(bs, true);
		for (int i = 0; i < rc->nworkers; i++)
			(void) WaitForBackgroundWorkerShutdown(rc->handles[i]);
	}
	PG_CATCH();
	{
		stop_and_wait_for_record(bs);
		wait_for_shutdown(rc->handles, rc->nworkers);
		PG_RE_THROW();
	}
	PG_END_TRY();
	progress_work_end();
	report_batch(bs, rc, level);
}

