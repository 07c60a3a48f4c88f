/*
 * progress.c
 *		What runs now and how far it is, for any session:
 *		ranread_internal.ranread_progress_rows(), behind the view
 *		ranread_progress (docs/running.md, "Watching a run from another
 *		session"; docs/design.md, "Progress").
 *
 * Each backend that leads a batch, fills a target (ranread_setup) or reads
 * one whole (ranread_verify) publishes what it does in a slot of a small
 * block of the main shared memory segment, made on first use in its slack
 * as the control block is (ranread.c): the kind and id of the work, its
 * phase, I/Os and measured seconds so far, the IOPS and p99 of the last
 * seconds, bytes done of a total, and the seconds it expects still to
 * take.  Only the owner writes its slot, under the block's spinlock, at
 * most ten times a second (the leader's wait, the fill's and the check's
 * once-a-second progress); the hot I/O loop is not touched: the leader
 * reads the counters the workers publish anyway (WorkerSlot.ios) and the
 * per-second histograms it takes anyway (batch.h).
 *
 * A call that runs many batches (a sweep, a study, a fleet) says where it
 * is with ranread_progress_call (its step of how many, its phase, the
 * seconds it needs after this step), only for a call this session runs
 * now (the registry, calls.c).  The view's rows: each call of the registry
 * that has not returned, with the work of its backend; then each work no
 * call is around (a run, a probe, a commit test, a setup, a verify, a
 * fleet node's batch).
 *
 * Nothing here may outlive what it describes: a slot whose backend is gone
 * is free; work counts only in the transaction that published it, and a
 * batch only while its claim holds; a backend ends its work on the way out
 * of the batch (leader.c), on an error (the abort callbacks below) and at
 * exit.  A slot whose backend is idle may be taken by another backend;
 * one that finds none (32 busy) reports nothing: progress is never worth
 * an error.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "calls.h"
#include "progress.h"
#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_progress_call);
PG_FUNCTION_INFO_V1(ranread_progress_rows);

typedef struct ProgressSlot
{
	int			pid;			/* 0: free */
	Oid			dboid;
	Oid			role;
	bool		work_set;
	LocalTransactionId work_lxid;
	TimestampTz work_started;
	TimestampTz work_updated;
	ProgressWork work;
	bool		call_set;
	LocalTransactionId call_lxid;
	ProgressCall call;
} ProgressSlot;

typedef struct ProgressBlock
{
	slock_t		mutex;
	ProgressSlot slots[RANREAD_PROGRESS_SLOTS];
} ProgressBlock;

static ProgressBlock *block = NULL;
static int	my_slot = -1;
static SubTransactionId work_subid = InvalidSubTransactionId;	/* this backend's work began in it */
static bool callbacks_registered = false;

static ProgressBlock *
progress_block(void)
{
	if (block == NULL)
		block = ranread_shmem_struct("ranread progress", sizeof(ProgressBlock),
									 offsetof(ProgressBlock, mutex));
	return block;
}

/* On the way out of the backend: the slot is free */
static void
progress_exit(int code, Datum arg)
{
	if (block == NULL || my_slot < 0)
		return;
	SpinLockAcquire(&block->mutex);
	if (block->slots[my_slot].pid == MyProcPid)
		block->slots[my_slot].pid = 0;
	SpinLockRelease(&block->mutex);
	my_slot = -1;
}

/*
 * An error ended what this backend was doing: its work, when it began in
 * the subtransaction that aborts (subid) or a later one, or in any (0)
 */
static void
progress_abort(SubTransactionId subid)
{
	if (block == NULL || my_slot < 0 || (subid != InvalidSubTransactionId && work_subid < subid))
		return;
	SpinLockAcquire(&block->mutex);
	if (block->slots[my_slot].pid == MyProcPid)
		block->slots[my_slot].work_set = false;
	SpinLockRelease(&block->mutex);
}

static void
progress_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT)
		progress_abort(InvalidSubTransactionId);
}

static void
progress_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						  SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		progress_abort(mySubid);
}

/*
 * This backend's slot, taken on first use: a free one, one whose backend is
 * gone, or one whose backend is idle (no work, no call of its present
 * transaction), so that backends that once ran something do not keep the
 * slots from those that run something now (an owner always checks that
 * its slot is still its own).  NULL when every slot is busy.
 */
static ProgressSlot *
progress_slot(void)
{
	ProgressBlock *b = progress_block();
	ProgressSlot *copy = palloc(sizeof(ProgressSlot) * RANREAD_PROGRESS_SLOTS);
	bool		take[RANREAD_PROGRESS_SLOTS];

	if (my_slot >= 0 && b->slots[my_slot].pid == MyProcPid)
		return &b->slots[my_slot];
	my_slot = -1;

	/* the slots' backends, checked outside the spinlock */
	SpinLockAcquire(&b->mutex);
	memcpy(copy, b->slots, sizeof(ProgressSlot) * RANREAD_PROGRESS_SLOTS);
	SpinLockRelease(&b->mutex);
	for (int i = 0; i < RANREAD_PROGRESS_SLOTS; i++)
	{
		PGPROC	   *proc = copy[i].pid == 0 ? NULL : BackendPidGetProc(copy[i].pid);

		take[i] = proc == NULL || copy[i].pid == MyProcPid ||
			(!copy[i].work_set && (!copy[i].call_set || proc->lxid != copy[i].call_lxid));
	}

	SpinLockAcquire(&b->mutex);
	for (int i = 0; i < RANREAD_PROGRESS_SLOTS && my_slot < 0; i++)
		if (take[i] && b->slots[i].pid == copy[i].pid && b->slots[i].work_set == copy[i].work_set &&
			b->slots[i].call_set == copy[i].call_set && b->slots[i].call_lxid == copy[i].call_lxid)
		{
			memset(&b->slots[i], 0, sizeof(ProgressSlot));
			b->slots[i].pid = MyProcPid;
			b->slots[i].dboid = MyDatabaseId;
			b->slots[i].call.kind = -1;
			my_slot = i;
		}
	SpinLockRelease(&b->mutex);
	pfree(copy);
	if (my_slot < 0)
		return NULL;
	if (!callbacks_registered)
	{
		before_shmem_exit(progress_exit, (Datum) 0);
		RegisterXactCallback(progress_xact_callback, NULL);
		RegisterSubXactCallback(progress_subxact_callback, NULL);
		callbacks_registered = true;
	}
	return &b->slots[my_slot];
}

/*
 * This backend begins a work: a batch it leads (claim), a setup (claim 0)
 * or a verify (its claim); nothing done yet, remaining seconds to go (< 0
 * not known)
 */
void
progress_work_begin(const char *kind, int64 id, const char *target, int64 batch,
					uint64 claim, const char *phase, int processes, double remaining)
{
	ProgressSlot *s = progress_slot();
	ProgressWork w;

	if (s == NULL || MyProc == NULL)
		return;
	memset(&w, 0, sizeof(w));
	strlcpy(w.kind, kind, sizeof(w.kind));
	w.id = id;
	strlcpy(w.target, target, sizeof(w.target));
	w.batch = batch;
	w.claim = claim;
	strlcpy(w.phase, phase, sizeof(w.phase));
	w.processes = processes;
	w.iops = -1;
	w.p99_ms = -1;
	w.remaining = remaining;
	SpinLockAcquire(&block->mutex);
	s->dboid = MyDatabaseId;
	s->role = GetUserId();
	s->work = w;
	s->work_lxid = MyProc->lxid;
	s->work_started = s->work_updated = GetCurrentTimestamp();
	s->work_set = true;
	SpinLockRelease(&block->mutex);
	work_subid = GetCurrentSubTransactionId();
}

/* Where this backend's work is now (the owner's copy, all of it) */
void
progress_work_update(const ProgressWork *w)
{
	ProgressSlot *s;

	if (my_slot < 0 || block == NULL)
		return;
	s = &block->slots[my_slot];
	SpinLockAcquire(&block->mutex);
	if (s->pid == MyProcPid && s->work_set)
	{
		s->work = *w;
		s->work_updated = GetCurrentTimestamp();
	}
	SpinLockRelease(&block->mutex);
}

/*
 * A setup or a verify: done of total bytes after seconds (the time left at
 * the same rate)
 */
void
progress_bytes(const char *phase, uint64 done, uint64 total, double seconds)
{
	ProgressSlot *s;

	if (my_slot < 0 || block == NULL)
		return;
	s = &block->slots[my_slot];
	SpinLockAcquire(&block->mutex);
	if (s->pid == MyProcPid && s->work_set)
	{
		strlcpy(s->work.phase, phase, sizeof(s->work.phase));
		s->work.bytes_done = Min(done, total);	/* the view's percent stays within 100 */
		s->work.bytes_total = total;
		s->work.seconds = seconds;
		s->work.remaining = done > 0 && seconds > 0.5 ?
			seconds * (double) (total > done ? total - done : 0) / done : -1;
		s->work_updated = GetCurrentTimestamp();
	}
	SpinLockRelease(&block->mutex);
}

/* This backend's work is over (safe on every way out, more than once) */
void
progress_work_end(void)
{
	if (my_slot < 0 || block == NULL)
		return;
	SpinLockAcquire(&block->mutex);
	if (block->slots[my_slot].pid == MyProcPid)
		block->slots[my_slot].work_set = false;
	SpinLockRelease(&block->mutex);
}

/*
 * The step of the call this backend runs now, as the call said it last
 * (ranread_progress_call); false when it said none or has returned
 */
bool
progress_call_of_mine(ProgressCall *out)
{
	bool		set;

	if (my_slot < 0 || block == NULL || MyProc == NULL)
		return false;
	SpinLockAcquire(&block->mutex);
	set = block->slots[my_slot].pid == MyProcPid && block->slots[my_slot].call_set &&
		block->slots[my_slot].call_lxid == MyProc->lxid;
	if (set)
		*out = block->slots[my_slot].call;
	SpinLockRelease(&block->mutex);
	return set && out->kind >= 0 && ranread_call_mine((RanreadCallKind) out->kind, out->id);
}

/*
 * ranread_internal.ranread_progress_call(kind, id, phase, step, steps,
 * after, until): the sweep (study, latency_target, fleet) of this id, which
 * this session runs now, is at this phase, step of steps (NULL: none), and
 * needs about after seconds once this step is over; until: when this phase
 * ends, where no batch of this session says it (a fleet's nodes run).
 */
Datum
ranread_progress_call(PG_FUNCTION_ARGS)
{
	RanreadCallKind kind;
	int64		id;
	ProgressCall c;
	ProgressSlot *s;
	char	   *phase;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("kind, id and phase of ranread_progress_call must not be null")));
	kind = ranread_call_kind_of(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	id = PG_GETARG_INT64(1);
	if (!ranread_call_mine(kind, id))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s " INT64_FORMAT " of ranread_progress_call is not a call this session runs",
						ranread_call_kind_name(kind), id),
				 errhint("A call says its progress after it registered its id with ranread_call_register, in the same transaction.")));
	memset(&c, 0, sizeof(c));
	c.kind = (int) kind;
	c.id = id;
	phase = text_to_cstring(PG_GETARG_TEXT_PP(2));
	(void) ranread_strlcpy(c.phase, phase, sizeof(c.phase));
	c.step = PG_ARGISNULL(3) ? 0 : Max(PG_GETARG_INT32(3), 0);
	c.steps = PG_ARGISNULL(4) ? 0 : Max(PG_GETARG_INT32(4), 0);
	c.after = PG_ARGISNULL(5) || !isfinite(PG_GETARG_FLOAT8(5)) ? -1 : Max(PG_GETARG_FLOAT8(5), 0);
	c.until = PG_ARGISNULL(6) || TIMESTAMP_NOT_FINITE(PG_GETARG_TIMESTAMPTZ(6)) ? 0 : PG_GETARG_TIMESTAMPTZ(6);

	s = progress_slot();
	if (s == NULL)
		PG_RETURN_VOID();
	SpinLockAcquire(&block->mutex);
	s->dboid = MyDatabaseId;
	s->call = c;
	s->call_lxid = MyProc->lxid;
	s->call_set = true;
	SpinLockRelease(&block->mutex);
	PG_RETURN_VOID();
}

/* Is the backend of this slot still in the transaction that published it? */
static bool
slot_in_xact(const ProgressSlot *s, LocalTransactionId lxid)
{
	PGPROC	   *proc;

	if (s->pid == MyProcPid)
		return MyProc != NULL && MyProc->lxid == lxid;
	proc = BackendPidGetProc(s->pid);
	return proc != NULL && proc->lxid == lxid;
}

/* Does the batch of this claim still run? */
static bool
claim_holds(uint64 claim)
{
	RanreadControl *ctl = ranread_control();
	bool		holds;

	SpinLockAcquire(&ctl->mutex);
	holds = ctl->running && ctl->claim == claim;
	SpinLockRelease(&ctl->mutex);
	return holds;
}

/* Is the work of this slot (copied) still going on? */
static bool
work_valid(const ProgressSlot *s)
{
	if (!s->work_set || s->dboid != MyDatabaseId || !slot_in_xact(s, s->work_lxid))
		return false;
	return s->work.claim == 0 || claim_holds(s->work.claim);
}

/* Seconds of a work left now: what it said, less the time since */
static double
work_left(const ProgressSlot *s, TimestampTz now)
{
	if (s->work.remaining < 0)
		return -1;
	return Max(s->work.remaining - (now - s->work_updated) / 1e6, 0.0);
}

#define NCOLS 18

/* A column of the row, not null */
#define SET(i, d)	(v[i] = (d), n[i] = false)

/* One row of ranread_progress_rows: a call (ci, may be NULL) and its work (s, may be NULL) */
static void
put_row(ReturnSetInfo *rsinfo, const RanreadCallInfo *ci, const ProgressSlot *s,
		bool with_work, bool with_call, TimestampTz now)
{
	Datum		v[NCOLS];
	bool		n[NCOLS];
	const ProgressWork *w = with_work ? &s->work : NULL;
	const ProgressCall *c = with_call ? &s->call : NULL;
	char	   *role = GetUserNameFromId(ci ? ci->role : s->role, true);
	int64		id = ci ? ci->id : w->id;
	double		left = -1;

	memset(n, true, sizeof(n));
	SET(0, Int32GetDatum(ci ? ci->pid : s->pid));
	if (role)
	{
		NameData   *rn = palloc0(sizeof(NameData));

		namestrcpy(rn, role);
		SET(1, NameGetDatum(rn));
	}
	SET(2, CStringGetTextDatum(ci ? ranread_call_kind_name(ci->kind) : w->kind));
	if (id != 0)
		SET(3, Int64GetDatum(id));
	if (w && w->target[0])
		SET(4, CStringGetTextDatum(w->target));
	if (w && w->batch != 0)
		SET(5, Int64GetDatum(w->batch));
	if (w || (c && c->phase[0]))
		SET(6, CStringGetTextDatum(w ? w->phase : c->phase));
	if (c && c->step > 0)
		SET(7, Int32GetDatum(c->step));
	if (c && c->step > 0 && c->steps > 0)
		SET(8, Int32GetDatum(c->steps));
	if (w && w->batch != 0)
	{
		SET(9, Int32GetDatum(w->processes));
		SET(10, Int64GetDatum((int64) w->ios));
	}
	if (w)
		SET(11, Float8GetDatum(w->seconds));
	if (w && w->iops >= 0)
		SET(12, Float8GetDatum(w->iops));
	if (w && w->p99_ms >= 0)
		SET(13, Float8GetDatum(w->p99_ms));
	if (w && w->bytes_total > 0)
	{
		SET(14, Int64GetDatum((int64) w->bytes_done));
		SET(15, Int64GetDatum((int64) w->bytes_total));
	}
	SET(16, TimestampTzGetDatum(ci ? ci->started_at : s->work_started));

	/* the time left: this work's, then what the call needs after it */
	if (w)
		left = work_left(s, now);
	else if (c && c->until != 0)
		left = Max((c->until - now) / 1e6, 0.0);
	else if (c)
		left = 0;
	if (c && left >= 0)
		left = c->after >= 0 ? left + c->after : -1;
	if (left >= 0 && left <= RANREAD_PROGRESS_MAX_LEFT)
		SET(17, Float8GetDatum(left));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

/*
 * ranread_internal.ranread_progress_rows(): what runs now in this database,
 * a row per call (with the work of its backend) and per work no call is
 * around; the view ranread_progress reads it
 */
Datum
ranread_progress_rows(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ProgressBlock *b;
	ProgressSlot *copy = palloc(sizeof(ProgressSlot) * RANREAD_PROGRESS_SLOTS);
	bool	   *used = palloc0(sizeof(bool) * RANREAD_PROGRESS_SLOTS);
	bool	   *valid = palloc0(sizeof(bool) * RANREAD_PROGRESS_SLOTS);
	RanreadCallInfo *info = palloc(sizeof(RanreadCallInfo) * RANREAD_MAX_CALLS);
	TimestampTz now = GetCurrentTimestamp();
	int			ncalls;

	InitMaterializedSRF(fcinfo, 0);
	if (RecoveryInProgress())
		return (Datum) 0;
	b = progress_block();
	SpinLockAcquire(&b->mutex);
	memcpy(copy, b->slots, sizeof(ProgressSlot) * RANREAD_PROGRESS_SLOTS);
	SpinLockRelease(&b->mutex);
	for (int i = 0; i < RANREAD_PROGRESS_SLOTS; i++)
		valid[i] = copy[i].pid != 0 && work_valid(&copy[i]);

	ncalls = ranread_calls_running(info, RANREAD_MAX_CALLS, true);
	for (int k = 0; k < ncalls; k++)
	{
		int			slot = -1;
		bool		with_call = false;

		if (info[k].ended)
			continue;
		for (int i = 0; i < RANREAD_PROGRESS_SLOTS && slot < 0; i++)
			if (copy[i].pid == info[k].pid)
				slot = i;
		if (slot >= 0)
		{
			const ProgressSlot *s = &copy[slot];

			with_call = s->call_set && s->call.kind == (int) info[k].kind &&
				s->call.id == info[k].id && slot_in_xact(s, s->call_lxid);
			/* a fleet sweep's fleets are calls of one backend: the work goes to one row */
			put_row(rsinfo, &info[k], s, valid[slot] && !used[slot], with_call, now);
			used[slot] = used[slot] || valid[slot];
		}
		else
			put_row(rsinfo, &info[k], NULL, false, false, now);
	}
	for (int i = 0; i < RANREAD_PROGRESS_SLOTS; i++)
		if (valid[i] && !used[i])
			put_row(rsinfo, NULL, &copy[i], true, false, now);
	return (Datum) 0;
}
