/*
 * worker.c
 *		The background worker of a batch: joins the batch, opens the
 *		targets, waits for the start, hands its streams to the batch's
 *		engine, and (worker 0, the recorder) records the batch in the
 *		history.
 *
 * Lifecycle of worker i, all state in the batch's DSM segment (BatchShared):
 *	 attach, join the control block's claim, connect to the database;
 *	 wait until the leader has divided the streams and settled the engine
 *	 ("assigned");
 *	 worker 0 inserts the batch's 'running' row in its own transaction;
 *	 open the targets' segment files (O_DIRECT), seed the streams, give
 *	 them slots and aligned buffers (io.c), prepare the engine (engine.h:
 *	 the one BatchParams.engine names, or the buffer manager's for a
 *	 server-path stream); count itself ready and wait for "go";
 *	 run the engine until iterations, duration or a stop end it, hearing
 *	 from it once a second (worker_progress) and when an I/O failed
 *	 (Worker.error);
 *	 mark itself done.  Worker 0 then waits until every other worker is done
 *	 or gone, computes the figures once (figures.c), writes the rows, and
 *	 says how the recording ended.  Whatever happens, detaching from the
 *	 segment marks the worker exited and leaves the claim; the last one out
 *	 frees the cluster.
 *
 * Locks.  The recorder writes the history tables, and anyone may hold or
 * queue for a lock on them (VACUUM FULL, TRUNCATE, LOCK, REINDEX ...).  Its
 * lock waits are therefore short (lock_timeout) and retried, and between
 * attempts it checks whether it should give up: a second ranread_stop(), a
 * SIGTERM, or a leader that knows the recorder waits for the leader's own
 * transaction.  A history that cannot be written is reported by the leader,
 * with the figures, instead of hanging.  Nothing holds interrupts while it
 * waits for a lock, so pg_terminate_backend always works.
 *
 * Signals.  SIGTERM (pg_terminate_backend, server shutdown) does not kill
 * the worker mid-write: it stops the I/O, lets the recorder make one attempt
 * to record what was done, and then exits.  A SIGTERM that stops a running
 * batch fails it, the message naming the worker and its process (ranread
 * itself never sends one: ranread_stop and the caller's cancel stop the
 * batch through the control block).  SIGINT (pg_cancel_backend) stops the
 * batch as cancelled.  Errors are caught, sent to the server log,
 * and kept in the worker's slot, so the batch records 'failed' with the
 * reason instead of losing its history.
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "access/xact.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "engine.h"
#include "figures.h"
#include "fsinfo.h"
#include "history.h"
#include "repair.h"
#include "io.h"
#include "worker.h"

#define STOP_GRACE_MS		5000	/* others to stop counting, once stopped */
#define RECORD_LOCK_TIMEOUT "250ms"
#define RECORD_RETRY_MS		100

/*
 * A background worker of a batch: the I/O state its engine drives (first,
 * so that worker_progress gets from the one to the other) and its place in
 * the batch
 */
typedef struct BatchWorker
{
	Worker		io;
	BatchShared *bs;
	WorkerSlot *me;
	int			index;
	const EngineOps *ops;		/* the batch's engine */
	FsDevice	devices[RANREAD_MAX_TARGETS];	/* under each target */
	bool		window_open;	/* its measured window has started */
	bool		window_closed;
	uint64		cpu_user0_ns;	/* getrusage at the window's start */
	uint64		cpu_sys0_ns;
} BatchWorker;

static volatile sig_atomic_t ranread_worker_terminate = false;
static int	my_index = -1;
static volatile sig_atomic_t cancel_requested = false;
static volatile sig_atomic_t recording = false;	/* in a history transaction */
static bool terminate_stopped = false;	/* a SIGTERM to this worker stopped the batch */

/* Wake the leader, if it is still there */
static void
wake_leader(BatchShared *bs)
{
	Latch	   *latch = bs->leader_latch;

	if (latch)
		SetLatch(latch);
}

/*
 * SIGINT: pg_cancel_backend on a worker stops the batch, keeping its
 * history.  While the recorder writes, SIGINT is also how PostgreSQL ends a
 * lock wait at lock_timeout (the timeout handler signals its own process),
 * so there it is the server's own cancel, and a user's cancel then gives up
 * the attempt.
 */
static void
worker_sigint(SIGNAL_ARGS)
{
	int			save_errno = errno;

	if (recording)
		StatementCancelHandler(postgres_signal_arg);
	else
	{
		cancel_requested = true;
		SetLatch(MyLatch);
	}
	errno = save_errno;
}

/*
 * SIGTERM (pg_terminate_backend, shutdown): stop the I/O, record what was
 * done if the tables let us at once, then exit.
 */
static void
worker_sigterm(SIGNAL_ARGS)
{
	int			save_errno = errno;

	ranread_worker_terminate = true;
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
 * A SIGTERM reached this worker while the batch ran: stop the batch as
 * failed, and, when nothing had stopped it before, say so in the worker's
 * slot, so that the batch's message names the worker and its process.
 * Not on the hot path: from worker_progress, after the engine's run, and
 * from the recorder's wait for the others.
 */
static void
worker_terminated(const BatchParams *p)
{
	if (!terminate_stopped &&
		((volatile RanreadControl *) ranread_control())->stop == STOP_NONE)
		terminate_stopped = true;
	ranread_request_stop(p->claim, STOP_FAILED);
}

/* The slot's words for a worker that worker_terminated stopped */
static void
worker_note_terminated(WorkerSlot *me)
{
	if (!terminate_stopped || me->failed)
		return;
	snprintf(me->message, sizeof(me->message),
			 "its process (PID %d) was terminated (SIGTERM: pg_terminate_backend() or a server shutdown) while the batch ran, and the batch stopped there",
			 MyProcPid);
	pg_write_barrier();
	me->failed = true;
}

/* Sleep on the latch for a while, waking for signals */
static void
nap(int ms)
{
	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 ms, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
}

/*
 * Sleep until *flag is set or the leader gives up.  A stop requested now
 * does not cut the start short: the batch starts, stops at once, and is
 * recorded like any other.  A SIGTERM does.
 */
static bool
wait_for_flag(BatchShared *bs, volatile bool *flag)
{
	ConditionVariablePrepareToSleep(&bs->cv);
	while (!*flag && !bs->abort_start && !ranread_worker_terminate)
		ConditionVariableTimedSleep(&bs->cv, 100, PG_WAIT_EXTENSION);
	ConditionVariableCancelSleep();
	return *flag && !bs->abort_start && !ranread_worker_terminate;
}

/* A timeval in nanoseconds */
static uint64
timeval_ns(const struct timeval *tv)
{
	return (uint64) tv->tv_sec * 1000000000 + (uint64) tv->tv_usec * 1000;
}

/*
 * One end of the worker's measured window: what fio shows beside latency.
 * The CPU the worker's process used and each target device's busy time,
 * read twice per batch, at the end of the warm-up and when the engine's run
 * is over; never per I/O.
 *
 * getrusage(RUSAGE_SELF) counts every thread of the process: since Linux
 * 5.12 io_uring's io-wq workers (iou-wrk-PID, the ones that do an I/O that
 * cannot be issued without blocking) are threads of the process that
 * submits, so they count here; with DEFER_TASKRUN (engine_uring.c) the
 * completions run in the worker's own task.  ranread uses no SQPOLL thread.
 * Not counted, for ranread as for fio: the device's interrupts and the
 * block layer's softirq completions, which the kernel charges to whatever
 * was running (or to no task, with IRQ time accounting).  The sum of user
 * and system time is the scheduler's exact runtime; the split between them
 * is the kernel's tick-sampled estimate.
 */
static void
worker_window(BatchWorker *bw, bool end)
{
	WorkerSlot *me = bw->me;
	struct rusage ru;
	uint64		ticks[RANREAD_MAX_TARGETS];
	uint64		read[RANREAD_MAX_TARGETS];
	bool		cpu = getrusage(RUSAGE_SELF, &ru) == 0;
	uint64		now = ranread_now_ns();

	for (int t = 0; t < bw->io.p->ntargets; t++)
	{
		FsCounters	c;

		if (!fsinfo_counters(&bw->devices[t], &c))
			c.io_ticks_ms = c.read_bytes = PG_UINT64_MAX;
		ticks[t] = c.io_ticks_ms;
		read[t] = c.read_bytes;
	}
	if (!end)
	{
		bw->window_open = cpu;
		bw->cpu_user0_ns = timeval_ns(&ru.ru_utime);
		bw->cpu_sys0_ns = timeval_ns(&ru.ru_stime);
		me->window_start_ns = now;
		memcpy(me->dev_ticks_start, ticks, sizeof(ticks));
		memcpy(me->dev_read_start, read, sizeof(read));
		return;
	}
	bw->window_closed = true;
	if (!bw->window_open || !cpu)
		return;
	me->window_end_ns = now;
	me->cpu_user_ns = timeval_ns(&ru.ru_utime) - Min(bw->cpu_user0_ns, timeval_ns(&ru.ru_utime));
	me->cpu_sys_ns = timeval_ns(&ru.ru_stime) - Min(bw->cpu_sys0_ns, timeval_ns(&ru.ru_stime));
	memcpy(me->dev_ticks_end, ticks, sizeof(ticks));
	memcpy(me->dev_read_end, read, sizeof(read));
	pg_write_barrier();
	me->window_done = true;
}

/*
 * Progress for pg_stat_activity and the leader's notices, once a second
 * while the engine runs; a signal received stops the batch from here
 */
static void
worker_progress(Worker *w, uint64 now)
{
	BatchWorker *bw = (BatchWorker *) w;
	char		activity[128];

	/* the warm-up is over: the measured window starts (worker_start_clock) */
	if (!bw->window_open && !bw->window_closed && now >= w->measure_ns)
		worker_window(bw, false);
	if (!bw->window_open)
		w->next_report_ns = Min(w->next_report_ns, w->measure_ns);
	bw->me->ios = w->ios;
	snprintf(activity, sizeof(activity),
			 "ranread batch " INT64_FORMAT ": worker %d, %d process%s, " UINT64_FORMAT " I/Os, %.0f s",
			 w->p->batch, bw->index + 1, w->nstreams, w->nstreams == 1 ? "" : "es", w->ios,
			 now > w->measure_ns ? (now - w->measure_ns) / 1e9 : 0.0);
	pgstat_report_activity(STATE_RUNNING, activity);
	if (ranread_worker_terminate)
		worker_terminated(w->p);
	else if (cancel_requested)
		ranread_request_stop(w->p->claim, STOP_CANCELLED);
}

/* A stream's I/Os drawn one at a time, for ranread_blocks() */
struct WorkerPlan
{
	Worker		w;
	Stream		st;
	Slot		slot;
};

/*
 * Start drawing stream s's I/Os, by the very code the engines use; in
 * context cxt, which must hold p as long as the plan is used
 */
WorkerPlan *
worker_plan_begin(MemoryContext cxt, const BatchParams *p, int s)
{
	WorkerPlan *wp = MemoryContextAllocZero(cxt, sizeof(WorkerPlan));

	wp->w.p = p;
	wp->w.streams = &wp->st;
	io_stream_init(&wp->st, p, s);
	wp->st.remaining = PG_UINT64_MAX;
	return wp;
}

/* The byte offset (within its target) of the stream's next I/O */
int64
worker_plan_next(WorkerPlan *wp)
{
	io_prepare(&wp->w, &wp->slot, 0);
	return (int64) ((uint64) wp->slot.file * RELSEG_SIZE * BLCKSZ + wp->slot.offset);
}

/*
 * Open every segment file of the batch's targets, with O_DIRECT (all but
 * the commit test's buffered ones, which imitate the server's WAL writes)
 */
static void
open_targets(Worker *w, int *fd_base)
{
	const BatchParams *p = w->p;

	w->nfds = 0;
	for (int t = 0; t < p->ntargets; t++)
		w->nfds += p->targets[t].nsegs;
	w->fds = palloc(sizeof(int) * w->nfds);
	for (int t = 0, f = 0; t < p->ntargets; t++)
	{
		const BatchTarget *bt = &p->targets[t];

		fd_base[t] = f;
		for (int s = 0; s < bt->nsegs; s++, f++)
		{
			char	   *path = s == 0 ? pstrdup(bt->relpath) : psprintf("%s.%d", bt->relpath, s);

			w->fds[f] = open(path, (bt->written ? O_RDWR : O_RDONLY) | (bt->buffered ? 0 : O_DIRECT) | PG_BINARY);
			if (w->fds[f] < 0 && bt->scratch)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not open the commit test's scratch file \"%s\": %m", path)));
			if (w->fds[f] < 0)
				ereport(ERROR,
						(errcode_for_file_access(),
						 errmsg("could not open segment %d of target \"%s\" (\"%s\") with O_DIRECT: %m",
								s, bt->name, path),
						 errhint("Run ranread_setup again to re-create the target.")));
		}
	}
}

/*
 * The batch's io_priority for this worker (ioprio_set(2), the process and
 * so every I/O it submits, io_uring's too, which takes the submitter's
 * priority): set before the worker counts itself ready, so a priority the
 * server may not set (realtime without CAP_SYS_ADMIN or CAP_SYS_NICE) fails
 * the batch before any I/O is measured.  Only an I/O scheduler that honours
 * priorities (bfq; mq-deadline for realtime) acts on them.
 */
#define RANREAD_IOPRIO_WHO_PROCESS 1
static void
worker_io_priority(const BatchParams *p, int index)
{
	if (p->ioprio == 0)
		return;
	if (syscall(SYS_ioprio_set, RANREAD_IOPRIO_WHO_PROCESS, 0, p->ioprio) != 0)
	{
		int			err = errno;

		/* the leader passes the message on alone: it says what to do */
		ereport(ERROR,
				(errcode(err == EPERM ? ERRCODE_INSUFFICIENT_PRIVILEGE : ERRCODE_SYSTEM_ERROR),
				 errmsg("could not set io_priority '%s' for worker %d of batch " INT64_FORMAT ": %m%s",
						p->ioprio_text, index + 1, p->batch,
						err == EPERM ? " (realtime needs CAP_SYS_ADMIN or CAP_SYS_NICE; use 'best-effort:N' or 'idle')" : "")));
	}
}

/*
 * Open the targets, seed the streams, give them slots and buffers, and
 * prepare the batch's engine
 */
static void
worker_prepare(BatchWorker *bw, BatchShared *bs, int index)
{
	Worker	   *w = &bw->io;
	const BatchParams *p = &bs->p;
	WorkerSlot *me = &bs->workers[index];
	int			fd_base[RANREAD_MAX_TARGETS];

	memset(bw, 0, sizeof(*bw));
	bw->bs = bs;
	bw->me = me;
	bw->index = index;
	bw->ops = engine_of_worker(p, me->first_stream, me->nstreams);
	w->p = p;
	w->stop = &ranread_control()->stop;
	w->interrupt = &ranread_worker_terminate;
	w->progress = worker_progress;
	w->nstreams = me->nstreams;
	worker_io_priority(p, index);
	open_targets(w, fd_base);
	for (int t = 0; t < p->ntargets; t++)
	{
		fsinfo_device(p->targets[t].relpath, &bw->devices[t]);
		if (index == 0)
			ranread_strlcpy(bs->device[t], bw->devices[t].known ? bw->devices[t].name : "",
							sizeof(bs->device[t]));
	}

	w->streams = palloc0(sizeof(Stream) * Max(w->nstreams, 1));
	for (int i = 0; i < w->nstreams; i++)
	{
		Stream	   *st = &w->streams[i];
		int			s = me->first_stream + i;

		io_stream_init(st, p, s);
		st->stats = batch_stream(bs, s);
		st->fd_base = fd_base[st->g->target];
		st->fill = !p->targets[st->g->target].scratch;
		st->intervals = batch_intervals(bs, index, st->group);
		/* its written pages' stamp; verify: the target's words (verify.h) */
		st->stamp.target = p->targets[st->g->target].relid;
		st->verify = st->g->verify && st->fill && bs->verify_off[st->g->target] != 0;
		/* the batch only where verify needs it: a seeded batch repeated writes the same bytes */
		st->stamp.batch = 0;
		if (st->verify)
		{
			st->stamp.batch = p->batch;
			st->stamp.flags = STAMP_CHECKSUM | STAMP_VERIFIED;
			st->words = (pg_atomic_uint64 *) ((char *) bs + bs->verify_off[st->g->target]);
			st->words_first = (BlockNumber) p->targets[st->g->target].words_first;
			st->begun = (pg_atomic_uint32 *) (st->words + p->targets[st->g->target].words_blocks);
			st->vs = &bs->verify;
		}
	}
	io_alloc_slots(w, p->huge_pages);
	me->pages = w->pages;
	/* no stream (never divided so): no slots, nothing to prepare or run */
	if (w->nslots > 0 && bw->ops->prepare)
		bw->ops->prepare(w);
	me->registered = w->registered;
}

/* Run the engine over the streams to their end, then let it go */
static void
worker_run(BatchWorker *bw)
{
	Worker	   *w = &bw->io;

	if (w->nslots > 0)
	{
		bw->ops->run(w);
		worker_window(bw, true);
		if (bw->ops->release)
			bw->ops->release(w);
	}
	else
		io_report(w, ranread_now_ns());
}

/*
 * Timing of the measured part and of paced slots, once "go" is known.
 *
 * Each worker counts its warm-up and duration from when it starts its I/O:
 * the go, or later when its process got a CPU only later (a busy server,
 * where a DBA measures: the workers wake on the condition variable, and on
 * a loaded machine one may run hundreds of ms after the go).  So every
 * stream runs its whole duration, however late its worker; the worker's
 * lateness is kept (WorkerSlot.late_ns) and the batch says it
 * (ranread_batches.start_late_ms, its notes).  Each stream keeps the start
 * of its measured part (StreamStats.measure_ns), from which its seconds
 * count (figures.c), as its per-second slots do.  Every slot of a paced
 * group is paced alike, their starts spread evenly over the first interval
 * from the worker's start.
 */
static void
worker_start_clock(BatchWorker *bw)
{
	Worker	   *w = &bw->io;
	const BatchParams *p = w->p;
	BatchShared *bs = bw->bs;
	uint64		now = ranread_now_ns();
	uint64		late = now > bs->go_ns ? now - bs->go_ns : 0;
	int			slot = 0;

	bw->me->late_ns = late;
	w->measure_ns = bs->measure_ns + late;
	w->end_ns = p->duration_ns > 0 ? w->measure_ns + p->duration_ns : PG_UINT64_MAX;
	w->last_second = p->duration_ns > 0 ? (p->duration_ns - 1) / 1000000000 : PG_UINT64_MAX;
	w->next_report_ns = now + IO_REPORT_NS;
	w->timing = p->timing;
	/* the measured window starts now, or at the first report after the warm-up */
	if (now >= w->measure_ns)
		worker_window(bw, false);
	else
		w->next_report_ns = Min(w->next_report_ns, w->measure_ns);
	for (int i = 0; i < w->nstreams; i++)
	{
		const GroupParams *g = w->streams[i].g;
		int			s = bw->me->first_stream + i;

		w->streams[i].stats->measure_ns = w->measure_ns;
		for (int q = 0; q < g->queue_depth; q++, slot++)
		{
			uint64		group_slots = (uint64) g->processes * g->queue_depth;
			uint64		k = (uint64) (s - g->first_stream) * g->queue_depth + q;

			if (g->rate_iops <= 0)
				continue;
			w->slots[slot].rate_interval_ns = group_slots * 1000000000 / g->rate_iops;
			w->slots[slot].due_ns = bs->go_ns + late + k * 1000000000 / g->rate_iops;
		}
	}
	/* pg_stat_activity shows its run begun ("... 0 I/Os, 0 s") */
	worker_progress(w, now);
}

/*
 * Run fn in a transaction of its own, with SPI and a snapshot, waiting at
 * most RECORD_LOCK_TIMEOUT for any lock.
 */
static void
in_transaction(void (*fn) (BatchShared *), BatchShared *bs)
{
	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	(void) set_config_option("lock_timeout", RECORD_LOCK_TIMEOUT, PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, 0, false);
	SPI_connect();
	PushActiveSnapshot(GetTransactionSnapshot());
	fn(bs);
	SPI_finish();
	PopActiveSnapshot();
	CommitTransactionCommand();
}

/* Should the recorder stop trying to write the history? */
static const char *
give_up_reason(BatchShared *bs, uint32 stops_at_start)
{
	RanreadControl *ctl = ranread_control();
	uint32		stops;

	SpinLockAcquire(&ctl->mutex);
	stops = ctl->stop_requests;
	SpinLockRelease(&ctl->mutex);
	if (ranread_worker_terminate)
		return "its recording worker was terminated";
	if (stops != stops_at_start)
		return "ranread_stop() was called while it waited";
	if (bs->give_up_record)
		return "the session that ran it holds a lock the recording waits for";
	return NULL;
}

/*
 * Run fn in its own transaction until it commits, retrying while it cannot
 * get a lock.  Returns true when it committed; otherwise bs->record_message
 * says why it gave up.  Errors other than lock waits are logged and end the
 * attempts.
 */
static bool
record_with_retries(BatchShared *bs, void (*fn) (BatchShared *), const char *what)
{
	RanreadControl *ctl = ranread_control();
	uint32		stops_at_start;
	MemoryContext cxt = CurrentMemoryContext;

	SpinLockAcquire(&ctl->mutex);
	stops_at_start = ctl->stop_requests;
	SpinLockRelease(&ctl->mutex);

	for (;;)
	{
		ErrorData  *edata = NULL;
		const char *reason;

		PG_TRY();
		{
			recording = true;
			in_transaction(fn, bs);
			recording = false;
		}
		PG_CATCH();
		{
			recording = false;
			MemoryContextSwitchTo(cxt);
			edata = CopyErrorData();
			if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE &&
				edata->sqlerrcode != ERRCODE_T_R_DEADLOCK_DETECTED)
				EmitErrorReport();
			FlushErrorState();
			AbortCurrentTransaction();
		}
		PG_END_TRY();
		MemoryContextSwitchTo(cxt);

		if (edata == NULL)
		{
			bs->record_blocked = false;
			return true;
		}
		if (edata->sqlerrcode != ERRCODE_LOCK_NOT_AVAILABLE &&
			edata->sqlerrcode != ERRCODE_T_R_DEADLOCK_DETECTED)
		{
			ranread_strlcpy(bs->record_message, psprintf("could not %s: %s", what, edata->message),
							sizeof(bs->record_message));
			bs->record_sqlstate = edata->sqlerrcode;
			return false;
		}

		/* a lock is in the way: say whose, and try again unless told not to */
		history_describe_blockers(bs);
		bs->record_blocked = true;
		wake_leader(bs);
		if ((reason = give_up_reason(bs, stops_at_start)) != NULL)
		{
			ranread_strlcpy(bs->record_message,
							psprintf("could not %s: it waited for a lock (%s), and %s",
									 what, bs->blocked_by[0] ? bs->blocked_by : "held by another session", reason),
							sizeof(bs->record_message));
			bs->record_sqlstate = edata->sqlerrcode;
			return false;
		}
		pgstat_report_activity(STATE_RUNNING, psprintf("ranread batch " INT64_FORMAT ": waiting for a lock to %s",
													   bs->p.batch, what));
		nap(RECORD_RETRY_MS);
	}
}

/*
 * The history could not be written for a reason other than a lock (a full
 * disk, say): one attempt to mark the batch's row failed with the reason,
 * so that the cause stays in the history.  A lock in the way would be in
 * the way of this too, and the leader may be waiting: no attempt then.
 */
static void
mark_unrecorded(BatchShared *bs)
{
	MemoryContext cxt = CurrentMemoryContext;

	if (bs->record_sqlstate == 0 || bs->record_sqlstate == ERRCODE_LOCK_NOT_AVAILABLE ||
		bs->record_sqlstate == ERRCODE_T_R_DEADLOCK_DETECTED)
		return;
	PG_TRY();
	{
		recording = true;
		in_transaction(history_mark_unrecorded, bs);
		recording = false;
	}
	PG_CATCH();
	{
		recording = false;
		MemoryContextSwitchTo(cxt);
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
		bs->record_marked = false;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
}

/*
 * Worker 0, once its own I/O is done: wait until no worker counts any more,
 * compute the figures once, write the history.
 */
static void
record_batch(BatchShared *bs)
{
	RanreadControl *ctl = ranread_control();
	RanreadStop ended;
	uint64		stop_seen_ns = 0;
	RanreadHist *all;
	RanreadHist *writes;

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
		if (all)
			break;
		if (ranread_worker_terminate)
		{
			worker_terminated(&bs->p);
			worker_note_terminated(&bs->workers[my_index]);
		}
		else if (cancel_requested)
			ranread_request_stop(bs->p.claim, STOP_CANCELLED);
		/* once stopped, workers stop counting within 0.1 s; do not wait forever */
		if (((volatile RanreadControl *) ctl)->stop != STOP_NONE)
		{
			if (stop_seen_ns == 0)
				stop_seen_ns = ranread_now_ns();
			else if (ranread_now_ns() - stop_seen_ns > (uint64) STOP_GRACE_MS * 1000000)
			{
				snprintf(bs->message, sizeof(bs->message),
						 "a worker did not stop within %d s after the batch stopped", STOP_GRACE_MS / 1000);
				break;
			}
		}
		nap(10);
	}
	pg_read_barrier();

	SpinLockAcquire(&ctl->mutex);
	ended = ctl->claim == bs->p.claim ? (RanreadStop) ctl->stop : STOP_CANCELLED;
	SpinLockRelease(&ctl->mutex);
	if (bs->message[0] && ended == STOP_NONE)
		ended = STOP_FAILED;

	pgstat_report_activity(STATE_RUNNING, "ranread: recording the batch");
	all = palloc(sizeof(RanreadHist) * (bs->p.ngroups + 1));
	writes = palloc(sizeof(RanreadHist) * (bs->p.ngroups + 1));
	figures_conclude(bs, ended, all, writes);
	history_set_hists(all, writes);
	if (record_with_retries(bs, history_finish, "write the history of the batch"))
	{
		ranread_mark_recorded(bs->p.claim);
		bs->record_state = RECORD_DONE;
	}
	else
	{
		mark_unrecorded(bs);
		if (!bs->record_marked)
			history_remember_unrecorded(bs);
		bs->record_state = RECORD_GAVE_UP;
	}
	pg_write_barrier();
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
	BatchWorker bw;

	memcpy(&handle, MyBgworkerEntry->bgw_extra, sizeof(dsm_handle));
	pqsignal(SIGTERM, worker_sigterm);
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
		bool		assigned = wait_for_flag(bs, &bs->assigned);

		/*
		 * Once the streams are divided the batch is recorded, also when its
		 * leader gave it up before the start (a cancel while many workers
		 * started on a busy server): the recorder inserts its row, and
		 * records it cancelled with what it did, nothing.
		 */
		if (assigned || (index == 0 && bs->assigned && !ranread_worker_terminate))
		{
			if (index == 0 &&
				record_with_retries(bs, history_insert_running, "insert the row of the batch"))
				bs->running_row = true;
			if (!assigned)
				;				/* given up: nothing to prepare or run */
			else if (index != 0 || bs->running_row)
			{
				worker_prepare(&bw, bs, index);
				pg_atomic_fetch_add_u32(&bs->ready, 1);
				wake_leader(bs);
				pgstat_report_activity(STATE_RUNNING,
									   psprintf("ranread batch " INT64_FORMAT ": worker %d ready, waiting for the start",
												bs->p.batch, index + 1));
				if (wait_for_flag(bs, &bs->go))
				{
					worker_start_clock(&bw);
					worker_run(&bw);
					/* the server is going: leave now, so that it can restart */
					if (!PostmasterIsAlive())
						proc_exit(1);
					if (bw.io.error[0])
					{
						ranread_strlcpy(me->message, bw.io.error, sizeof(me->message));
						me->failed = true;
					}
					if (ranread_worker_terminate)
					{
						worker_terminated(&bs->p);
						worker_note_terminated(me);
					}
				}
				else if (bw.io.nslots > 0 && bw.ops->release)
					bw.ops->release(&bw.io);	/* no start: what prepare made (a transaction) */
			}
			else
			{
				ranread_strlcpy(me->message, bs->record_message, sizeof(me->message));
				me->failed = true;
			}
		}
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(TopMemoryContext);
		edata = CopyErrorData();
		EmitErrorReport();
		FlushErrorState();
		AbortCurrentTransaction();
		ranread_strlcpy(me->message, edata->message, sizeof(me->message));
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
