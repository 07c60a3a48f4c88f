/*
 * worker.c
 *		The background worker of a batch: joins the batch, opens the target,
 *		waits for the start, hands its streams to an engine, and (worker 0)
 *		records the batch in the history.
 *
 * Lifecycle of worker i, all state in the batch's DSM segment (BatchShared):
 *	 attach, join the control block's claim, connect to the database;
 *	 wait until the leader has divided the streams ("assigned");
 *	 worker 0 inserts the batch's 'running' row in its own transaction;
 *	 open the segment files (O_DIRECT), allocate aligned buffers, seed the
 *	 streams; count itself ready and wait for "go";
 *	 run the engine until iterations, duration or a stop end it;
 *	 mark itself done.  Worker 0 then waits for every other worker to be done
 *	 or gone, decides the status, writes the rows, and marks the batch
 *	 recorded.  Whatever happens, detaching from the segment marks the worker
 *	 exited and leaves the claim; the last one out frees the cluster.
 *
 * Errors inside the worker are caught and kept in its slot's message, so the
 * batch records 'failed' with the reason instead of losing its history.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "worker.h"

#define PROGRESS_NS		((uint64) 1000000000)

static int	my_index = -1;
static volatile sig_atomic_t cancel_requested = false;

/* Wake the leader, if it is still there */
static void
wake_leader(BatchShared *bs)
{
	Latch	   *latch = bs->leader_latch;

	if (latch)
		SetLatch(latch);
}

/* SIGINT (pg_cancel_backend on a worker): stop the batch, keep its history */
static void
worker_sigint(SIGNAL_ARGS)
{
	int			save_errno = errno;

	cancel_requested = true;
	SetLatch(MyLatch);
	errno = save_errno;
}

/* on_dsm_detach: mark this worker gone and leave the batch's claim */
static void
worker_detach(dsm_segment *seg, Datum arg)
{
	BatchShared *bs = (BatchShared *) DatumGetPointer(arg);

	if (my_index >= 0)
		bs->workers[my_index].exited = true;
	pg_memory_barrier();
	wake_leader(bs);
	ranread_release(bs->p.claim);
}

/*
 * Sleep until *flag is set or the leader gives up.  A stop requested now
 * does not cut the start short: the batch starts, stops at once, and is
 * recorded like any other.
 */
static bool
wait_for_flag(BatchShared *bs, volatile bool *flag)
{
	ConditionVariablePrepareToSleep(&bs->cv);
	while (!*flag && !bs->abort_start)
		ConditionVariableTimedSleep(&bs->cv, 100, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	return *flag && !bs->abort_start;
}

/* Progress for pg_stat_activity and the leader's notices, once a second */
void
worker_progress(Worker *w, uint64 now)
{
	char		activity[128];

	w->me->ios = w->ios;
	w->next_report_ns = now + PROGRESS_NS;
	snprintf(activity, sizeof(activity),
			 "ranread batch " INT64_FORMAT ": worker %d, %d processes, " UINT64_FORMAT " I/Os, %.0f s",
			 w->p->batch, w->index + 1, w->nstreams, w->ios,
			 now > w->measure_ns ? (now - w->measure_ns) / 1e9 : 0.0);
	pgstat_report_activity(STATE_RUNNING, activity);
	if (ProcDiePending || cancel_requested)
		ranread_request_stop(w->p->claim, STOP_CANCELLED);
}

/* An I/O failed or came back short: stop this worker and fail the batch */
void
worker_io_error(Worker *w, Slot *s, int err, int got)
{
	if (w->error[0])
		return;
	if (err)
		snprintf(w->error, sizeof(w->error),
				 "could not %s %d bytes at offset " UINT64_FORMAT " of segment %d of target \"%s\": %s",
				 s->is_write ? "write" : "read", w->p->block_size, s->offset, s->seg,
				 w->p->target, strerror(err));
	else
		snprintf(w->error, sizeof(w->error),
				 "short %s at offset " UINT64_FORMAT " of segment %d of target \"%s\": %d of %d bytes (was the file truncated?)",
				 s->is_write ? "write" : "read", s->offset, s->seg, w->p->target,
				 got, w->p->block_size);
	ranread_request_stop(w->p->claim, STOP_FAILED);
}

/*
 * Seed process g's stream.  Its block sequence depends only on the seed, g,
 * the pattern and the region, so the same seed repeats a process's blocks.
 */
static void
stream_init(Stream *st, const BatchParams *p, uint64 g, StreamStats *stats)
{
	uint64		n = p->unit_hi - p->unit_lo;

	rng_seed(st->rng, (uint64) p->seed * UINT64CONST(0x9E3779B97F4A7C15) + g);
	rng_seed(st->data_rng, ~((uint64) p->seed * UINT64CONST(0xD1B54A32D192ED03) + g));
	st->remaining = p->iterations > 0 ? (uint64) p->iterations : PG_UINT64_MAX;
	st->seq_lo = p->unit_lo + g * n / p->processes;
	st->seq_hi = Max(p->unit_lo + (g + 1) * n / p->processes, st->seq_lo + 1);
	st->seq_pos = st->seq_lo;
	st->stats = stats;
}

/*
 * The byte offsets (within the whole target) of process g's first n I/Os,
 * chosen by the very code the engines use; for ranread_blocks().
 */
void
worker_plan(const BatchParams *p, int g, int n, int64 *offsets)
{
	Worker		w;
	Stream		st;
	Slot		s;

	memset(&w, 0, sizeof(w));
	memset(&s, 0, sizeof(s));
	w.p = p;
	w.nunits = p->unit_hi - p->unit_lo;
	w.streams = &st;
	stream_init(&st, p, g, NULL);
	st.remaining = PG_UINT64_MAX;
	for (int i = 0; i < n; i++)
	{
		io_prepare(&w, &s, 0);
		offsets[i] = (int64) ((uint64) s.seg * p->seg_bytes + s.offset);
	}
}

/* The engine itself failed: stop this worker and fail the batch */
void
worker_engine_error(Worker *w, const char *msg)
{
	if (w->error[0])
		return;
	strlcpy(w->error, msg, sizeof(w->error));
	ranread_request_stop(w->p->claim, STOP_FAILED);
}

/* Open the target, allocate buffers, seed the streams */
static void
worker_prepare(Worker *w, BatchShared *bs, int index)
{
	const BatchParams *p = &bs->p;
	WorkerSlot *me = &bs->workers[index];
	Size		stride = IOBUF_STRIDE(p->block_size);
	char	   *bufs;

	memset(w, 0, sizeof(*w));
	w->bs = bs;
	w->p = p;
	w->me = me;
	w->index = index;
	w->stop = &ranread_control()->stop;
	w->nstreams = me->nstreams;
	w->nunits = p->unit_hi - p->unit_lo;
	w->intervals = batch_intervals(bs, index);

	w->fds = palloc(sizeof(int) * p->nsegs);
	for (int s = 0; s < p->nsegs; s++)
	{
		char	   *path = s == 0 ? pstrdup(p->relpath) : psprintf("%s.%d", p->relpath, s);

		w->fds[s] = open(path, (p->write_pct > 0 ? O_RDWR : O_RDONLY) | O_DIRECT | PG_BINARY);
		if (w->fds[s] < 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not open segment %d of target \"%s\" (\"%s\") with O_DIRECT: %m",
							s, p->target, path),
					 errhint("Run ranread_setup again to re-create the target.")));
	}

	w->streams = palloc0(sizeof(Stream) * w->nstreams);
	for (int i = 0; i < w->nstreams; i++)
		stream_init(&w->streams[i], p, me->first_stream + i, batch_stream(bs, me->first_stream + i));

	w->nslots = w->nstreams * p->queue_depth;
	w->slots = palloc0(sizeof(Slot) * w->nslots);
	bufs = ranread_iobuf_alloc(stride * w->nslots, p->huge_pages, &me->pages);
	if (bufs == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory for %d I/O buffers of %d bytes", w->nslots, p->block_size)));
	for (int i = 0; i < w->nslots; i++)
	{
		w->slots[i].stream = i / p->queue_depth;
		w->slots[i].buf = bufs + stride * i;
	}
	if (p->engine == ENGINE_URING && w->nslots > 1)
		engine_uring_prepare(w);
}

/* Timing of the measured part and of a paced run, once "go" is known */
static void
worker_start_clock(Worker *w)
{
	const BatchParams *p = w->p;

	w->measure_ns = w->bs->measure_ns;
	w->end_ns = p->duration_ns > 0 ? w->measure_ns + p->duration_ns : PG_UINT64_MAX;
	w->last_second = p->duration_ns > 0 ? (p->duration_ns - 1) / 1000000000 : PG_UINT64_MAX;
	w->next_report_ns = ranread_now_ns() + PROGRESS_NS;
	w->timing = p->timing;
	if (p->rate_iops > 0)
	{
		uint64		total_slots = (uint64) p->processes * p->queue_depth;
		uint64		first = (uint64) w->me->first_stream * p->queue_depth;

		/* every slot of the batch paced alike, their starts spread evenly */
		w->rate_interval_ns = total_slots * 1000000000 / p->rate_iops;
		for (int i = 0; i < w->nslots; i++)
			w->slots[i].due_ns = w->bs->go_ns + (first + i) * 1000000000 / p->rate_iops;
	}
}

/* Run fn in a transaction of its own, with SPI and a snapshot */
static void
in_transaction(void (*fn) (BatchShared *), BatchShared *bs)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	fn(bs);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* Worker 0: wait for the others, decide the status, write the history */
static void
record_batch(BatchShared *bs)
{
	RanreadControl *ctl = ranread_control();

	for (;;)
	{
		bool		all = true;

		for (int i = 0; i < bs->p.nworkers; i++)
		{
			WorkerSlot *ws = &bs->workers[i];

			/* a worker that never started will not come once the start is off */
			if (!ws->done && !ws->exited && !(bs->abort_start && ws->pid == 0))
				all = false;
		}
		if (all || ProcDiePending)
			break;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 10, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	pg_read_barrier();

	SpinLockAcquire(&ctl->mutex);
	bs->status = ctl->claim == bs->p.claim ? (RanreadStop) ctl->stop : STOP_CANCELLED;
	SpinLockRelease(&ctl->mutex);
	if (bs->abort_start && bs->status == STOP_NONE)
		bs->status = STOP_CANCELLED;
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		WorkerSlot *ws = &bs->workers[i];

		if (ws->failed || (!ws->done && ws->exited))
		{
			bs->status = STOP_FAILED;
			if (bs->message[0] == '\0')
				snprintf(bs->message, sizeof(bs->message), "worker %d: %s", i + 1,
						 ws->message[0] ? ws->message : "exited before finishing its I/O");
		}
	}
	if (bs->status == STOP_FAILED && bs->message[0] == '\0')
		strlcpy(bs->message, "the batch failed", sizeof(bs->message));

	/* a cancel or terminate now must not cost the batch its history */
	pgstat_report_activity(STATE_RUNNING, "ranread: recording the batch");
	HOLD_INTERRUPTS();
	PG_TRY();
	{
		in_transaction(history_finish, bs);
	}
	PG_CATCH();
	{
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
	}
	PG_END_TRY();
	RESUME_INTERRUPTS();
	pg_write_barrier();
	bs->recorded = true;
	wake_leader(bs);
}

/* Entry point of every ranread background worker */
void
ranread_worker_main(Datum arg)
{
	int			index = DatumGetInt32(arg);
	dsm_handle	handle;
	dsm_segment *seg;
	BatchShared *bs;
	WorkerSlot *me;
	Worker		w;

	memcpy(&handle, MyBgworkerEntry->bgw_extra, sizeof(dsm_handle));
	pqsignal(SIGTERM, die);
	pqsignal(SIGINT, worker_sigint);
	BackgroundWorkerUnblockSignals();

	seg = dsm_attach(handle);
	if (seg == NULL)
		proc_exit(0);			/* the batch ended before we came */
	bs = dsm_segment_address(seg);
	if (!ranread_join(bs->p.claim))
		proc_exit(0);
	my_index = index;
	me = &bs->workers[index];
	me->pid = MyProcPid;
	on_dsm_detach(seg, worker_detach, PointerGetDatum(bs));

	BackgroundWorkerInitializeConnectionByOid(bs->p.dboid, bs->p.ext_owner,
											  BGWORKER_BYPASS_ALLOWCONN);
	(void) prctl(PR_SET_TIMERSLACK, 1UL);
	ranread_raise_fd_limit();
	pgstat_report_activity(STATE_RUNNING, "ranread: starting");

	PG_TRY();
	{
		if (wait_for_flag(bs, &bs->assigned))
		{
			if (index == 0)
			{
				HOLD_INTERRUPTS();
				in_transaction(history_insert_running, bs);
				RESUME_INTERRUPTS();
				bs->running_row = true;
			}
			worker_prepare(&w, bs, index);
			pg_atomic_fetch_add_u32(&bs->ready, 1);
			wake_leader(bs);
			if (wait_for_flag(bs, &bs->go))
			{
				worker_start_clock(&w);
				/* one I/O in flight: a plain pread is the cheaper way */
				if (w.engine != NULL)
					engine_uring_run(&w);
				else
					engine_sync_run(&w);
				if (w.error[0])
				{
					strlcpy(me->message, w.error, sizeof(me->message));
					me->failed = true;
				}
			}
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(TopMemoryContext);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		strlcpy(me->message, edata->message, sizeof(me->message));
		me->failed = true;
		ranread_request_stop(bs->p.claim, STOP_FAILED);
	}
	PG_END_TRY();

	pg_write_barrier();
	me->done = true;
	wake_leader(bs);

	/* the recorder completes the batch's row whenever it wrote one */
	if (index == 0 && bs->running_row)
		record_batch(bs);
	proc_exit(0);
}
