/*
 * calls.c
 *		The calls that run many batches (a sweep, a study, a latency-target
 *		search, a fleet) while they run: a small registry in shared memory,
 *		so that ranread_reset keeps what such a call is still writing, the
 *		views can tell a call that runs from one that was cancelled, and
 *		ranread_run_step takes a sweep, study, search or fleet id only from
 *		the call that owns it.
 *
 * Such a call is PL/pgSQL: it takes its id from its sequence (nextval) and
 * registers it at once with ranread_call_register(kind, id), which checks
 * that the id is the one this session just took (currval), so that no role
 * can claim another's sweep or study.  An entry holds the kind and id, the
 * database, the backend's PID and its top-level transaction (local id): it
 * is cleared when that transaction ends, however it ends, and an entry whose
 * backend is gone or has moved on to another transaction is ignored (and
 * reused), so a crash or a FATAL leaves nothing that counts.  Like the
 * control block (ranread.c) the registry is made on first use in the slack
 * of the main shared memory segment: no shared_preload_libraries.
 *
 * A call that returns has ended: the forwarder of sweeps, searches,
 * studies and fleets (forward.c) ends the calls registered while it ran,
 * whether it returned or failed; a fleet ends each of its own, a study its
 * own once recorded (a profile's, which no forwarder runs), with
 * ranread_call_end(kind, id); and one whose subtransaction aborts (an error
 * caught by a savepoint) has ended too.
 * Its entry stays until the transaction ends (what it wrote is not
 * committed yet: ranread_reset keeps it, the views show it running), but
 * no batch joins it any more (ranread_call_mine), and it does not count
 * towards the calls one session may run at once: a session that holds
 * RANREAD_MAX_CALLS_PER_SESSION entries and registers another takes over
 * the oldest of its ended ones.  So one transaction runs any number of
 * calls one after another, and one session never holds more than its share
 * of the registry.  (1.2 added the ended flag: the registry is "ranread
 * calls 2", apart from 1.1's, whose layout a 1.1 library still running in
 * another backend keeps.)
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/resowner.h"
#include "utils/timestamp.h"

#include "calls.h"
#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_call_register);
PG_FUNCTION_INFO_V1(ranread_call_end);
PG_FUNCTION_INFO_V1(ranread_call_running);
PG_FUNCTION_INFO_V1(ranread_running_calls);

typedef struct RanreadCallSlot
{
	int			pid;			/* 0: free */
	LocalTransactionId lxid;	/* its top-level transaction */
	Oid			dboid;
	Oid			role;
	RanreadCallKind kind;
	int64		id;
	TimestampTz started_at;
	SubTransactionId subid;		/* the subtransaction that registered it */
	uint64		seq;			/* this backend's count of registrations */
	bool		ended;			/* the call returned, or its subtransaction aborted */
} RanreadCallSlot;

typedef struct RanreadCalls
{
	slock_t		mutex;
	RanreadCallSlot slots[RANREAD_MAX_CALLS];
} RanreadCalls;

static RanreadCalls *calls = NULL;
static bool callback_registered = false;
static uint64 registrations = 0;	/* this backend's, for RanreadCallSlot.seq */

/* the id of each kind this backend registered last, and in which transaction */
static int64 last_id[RANREAD_NCALL_KINDS];
static LocalTransactionId last_lxid[RANREAD_NCALL_KINDS];

/* The kinds' names, as ranread_call_register takes them, and sequences */
static const char *const kind_names[] = {"sweep", "study", "latency_target", "fleet"};
static const char *const kind_seqs[] = {"ranread_sweep_seq", "ranread_study_seq",
"ranread_latency_target_seq", "ranread_fleet_seq"};

const char *
ranread_call_kind_name(RanreadCallKind kind)
{
	return kind_names[kind];
}

/* Attach to (creating on first use) the registry */
static RanreadCalls *
registry(void)
{
	if (calls == NULL)
		calls = ranread_shmem_struct("ranread calls 2", sizeof(RanreadCalls),
									 offsetof(RanreadCalls, mutex));
	return calls;
}

/* A kind by name, or an error naming what there is */
RanreadCallKind
ranread_call_kind_of(const char *name)
{
	for (int k = 0; k < lengthof(kind_names); k++)
		if (strcmp(name, kind_names[k]) == 0)
			return (RanreadCallKind) k;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown kind \"%s\" of call", name),
			 errhint("The kinds are sweep, study, latency_target and fleet.")));
	return CALL_SWEEP;			/* keep compiler quiet */
}

/* Does this slot's call still run: its backend alive, in the same transaction? */
static bool
slot_live(const RanreadCallSlot *s)
{
	PGPROC	   *proc;

	if (s->pid == 0)
		return false;
	if (s->pid == MyProcPid)
		return MyProc != NULL && s->lxid == MyProc->lxid;
	proc = BackendPidGetProc(s->pid);
	return proc != NULL && proc->lxid == s->lxid;
}

/* A copy of every slot in use, taken under the lock; returns how many */
static int
snapshot(RanreadCallSlot *out)
{
	RanreadCalls *r = registry();
	int			n = 0;

	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
		if (r->slots[i].pid != 0)
			out[n++] = r->slots[i];
	SpinLockRelease(&r->mutex);
	return n;
}

/* Free the slots of calls that no longer run (their backends checked unlocked) */
static void
sweep_stale(void)
{
	RanreadCalls *r = registry();
	RanreadCallSlot copy[RANREAD_MAX_CALLS];
	int			n = snapshot(copy);

	for (int i = 0; i < n; i++)
	{
		if (slot_live(&copy[i]))
			continue;
		SpinLockAcquire(&r->mutex);
		for (int j = 0; j < RANREAD_MAX_CALLS; j++)
			if (r->slots[j].pid == copy[i].pid && r->slots[j].lxid == copy[i].lxid &&
				r->slots[j].kind == copy[i].kind && r->slots[j].id == copy[i].id)
				r->slots[j].pid = 0;
		SpinLockRelease(&r->mutex);
	}
}

/* End of this backend's top-level transaction: its calls are over */
static void
calls_xact_callback(XactEvent event, void *arg)
{
	RanreadCalls *r;

	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			break;
		default:
			return;
	}
	if (calls == NULL)
		return;
	r = calls;
	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
		if (r->slots[i].pid == MyProcPid)
			r->slots[i].pid = 0;
	SpinLockRelease(&r->mutex);
}

/*
 * A subtransaction of this backend aborts: the calls it registered (or its
 * subtransactions did: their ids are larger, and they have ended before
 * it) have ended
 */
static void
calls_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					   SubTransactionId parentSubid, void *arg)
{
	RanreadCalls *r;

	if (event != SUBXACT_EVENT_ABORT_SUB || calls == NULL)
		return;
	r = calls;
	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
		if (r->slots[i].pid == MyProcPid && r->slots[i].lxid == MyProc->lxid &&
			r->slots[i].subid >= mySubid)
			r->slots[i].ended = true;
	SpinLockRelease(&r->mutex);
}

/*
 * The value of the kind's sequence that this session took last (currval),
 * or -1 when it took none; read in a subtransaction, so that "not yet
 * defined in this session" is an answer, not an error.
 */
static int64
session_currval(RanreadCallKind kind)
{
	Oid			nsp = get_namespace_oid(ranread_schema_name_raw(), false);
	Oid			seq = get_relname_relid(kind_seqs[kind], nsp);
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	int64		val = -1;

	if (!OidIsValid(seq))
		return -1;
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		val = DatumGetInt64(DirectFunctionCall1(currval_oid, ObjectIdGetDatum(seq)));
		ReleaseCurrentSubTransaction();
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		val = -1;
	}
	PG_END_TRY();
	MemoryContextSwitchTo(cxt);
	CurrentResourceOwner = owner;
	return val;
}

/*
 * ranread_call_register(kind, id): the call running in this transaction is
 * the sweep (study, latency_target, fleet) of this id, which it has just
 * taken from its sequence.
 */
Datum
ranread_call_register(PG_FUNCTION_ARGS)
{
	RanreadCallKind kind;
	int64		id;
	RanreadCalls *r;
	int			free_slot = -1;
	int			oldest_ended = -1;
	int			held = 0;			/* this session's entries */
	int			mine = 0;			/* of them, calls that have not ended */

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("kind and id of ranread_call_register must not be null")));
	kind = ranread_call_kind_of(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	id = PG_GETARG_INT64(1);
	if (session_currval(kind) != id)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s " INT64_FORMAT " is not the one this session took last from %s",
						kind_names[kind], id, kind_seqs[kind]),
				 errhint("A call registers the id it has just taken with nextval, before its first batch.")));

	/* an id is one call's: not again in a later transaction (its row is kept) */
	if (last_lxid[kind] != InvalidLocalTransactionId && last_id[kind] == id &&
		last_lxid[kind] != MyProc->lxid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s " INT64_FORMAT " was registered by an earlier transaction of this session",
						kind_names[kind], id),
				 errhint("A call registers a new id of its own, taken with nextval.")));

	sweep_stale();
	r = registry();
	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
	{
		RanreadCallSlot *s = &r->slots[i];

		if (s->pid == MyProcPid && s->kind == kind && s->id == id && s->lxid == MyProc->lxid)
		{
			bool		ended = s->ended;

			SpinLockRelease(&r->mutex);
			if (ended)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("%s " INT64_FORMAT " of this session has ended", kind_names[kind], id),
						 errhint("A call registers a new id of its own, taken with nextval.")));
			PG_RETURN_VOID();	/* registered already */
		}
		if (s->pid == MyProcPid)
		{
			held++;
			if (!s->ended)
				mine++;
			else if (oldest_ended < 0 || s->seq < r->slots[oldest_ended].seq)
				oldest_ended = i;
		}
		if (s->pid == 0 && free_slot < 0)
			free_slot = i;
	}
	/* this session's room: the oldest of its ended calls, once it holds its share */
	if (oldest_ended >= 0 && (held >= RANREAD_MAX_CALLS_PER_SESSION || free_slot < 0))
		free_slot = oldest_ended;
	/* one session cannot take the room every other session needs */
	if (mine >= RANREAD_MAX_CALLS_PER_SESSION)
	{
		SpinLockRelease(&r->mutex);
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("this session runs %d sweeps, studies, searches and fleets already",
						RANREAD_MAX_CALLS_PER_SESSION),
				 errdetail("A call counts as running until the transaction that called it ends."),
				 errhint("Commit the transaction that ran the others first.")));
	}
	if (free_slot >= 0)
	{
		RanreadCallSlot *s = &r->slots[free_slot];

		s->pid = MyProcPid;
		s->lxid = MyProc->lxid;
		s->dboid = MyDatabaseId;
		s->role = GetUserId();
		s->kind = kind;
		s->id = id;
		s->started_at = GetCurrentTimestamp();
		s->subid = GetCurrentSubTransactionId();
		s->seq = ++registrations;
		s->ended = false;
		last_id[kind] = id;
		last_lxid[kind] = MyProc->lxid;
	}
	SpinLockRelease(&r->mutex);
	if (free_slot < 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("%d sweeps, studies, searches and fleets are running already", RANREAD_MAX_CALLS),
				 errdetail("A call counts as running until the transaction that called it ends."),
				 errhint("Wait for one to end, or run fewer of them in one transaction.")));
	if (!callback_registered)
	{
		RegisterXactCallback(calls_xact_callback, NULL);
		RegisterSubXactCallback(calls_subxact_callback, NULL);
		callback_registered = true;
	}
	PG_RETURN_VOID();
}

/*
 * Where this backend's registrations stand: the calls it registers from
 * now on are those after this mark
 */
uint64
ranread_calls_mark(void)
{
	return registrations;
}

/*
 * The calls this backend registered since mark, in this transaction, have
 * ended (the forwarded call that registered them returned or failed)
 */
void
ranread_calls_end_since(uint64 mark)
{
	RanreadCalls *r = calls;

	if (r == NULL || registrations == mark || MyProc == NULL)
		return;
	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
		if (r->slots[i].pid == MyProcPid && r->slots[i].lxid == MyProc->lxid && r->slots[i].seq > mark)
			r->slots[i].ended = true;
	SpinLockRelease(&r->mutex);
}

/*
 * ranread_call_end(kind, id): the call of this session that registered
 * that id has returned; no batch joins it any more, and it no longer counts
 * towards the calls this session runs at once
 */
Datum
ranread_call_end(PG_FUNCTION_ARGS)
{
	RanreadCallKind kind;
	int64		id;
	RanreadCalls *r;
	bool		found = false;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("kind and id of ranread_call_end must not be null")));
	kind = ranread_call_kind_of(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	id = PG_GETARG_INT64(1);
	r = registry();
	SpinLockAcquire(&r->mutex);
	for (int i = 0; i < RANREAD_MAX_CALLS; i++)
		if (r->slots[i].pid == MyProcPid && r->slots[i].lxid == MyProc->lxid &&
			r->slots[i].kind == kind && r->slots[i].id == id)
		{
			r->slots[i].ended = true;
			found = true;
		}
	SpinLockRelease(&r->mutex);
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s " INT64_FORMAT " of ranread_call_end is not a call this session runs",
						kind_names[kind], id),
				 errhint("A call ends the id it registered with ranread_call_register, in the same transaction.")));
	PG_RETURN_VOID();
}

/* Is the call of this kind and id registered by this backend, now? */
bool
ranread_call_mine(RanreadCallKind kind, int64 id)
{
	RanreadCallSlot copy[RANREAD_MAX_CALLS];
	int			n = snapshot(copy);

	for (int i = 0; i < n; i++)
		if (copy[i].pid == MyProcPid && copy[i].kind == kind && copy[i].id == id &&
			copy[i].dboid == MyDatabaseId && !copy[i].ended && slot_live(&copy[i]))
			return true;
	return false;
}

/*
 * Does this backend run a sweep, study, latency-target search or fleet
 * now?  Its batches are steps, whose NOTICEs are the call's (leader.c).
 */
bool
ranread_call_in_progress(void)
{
	RanreadCallSlot copy[RANREAD_MAX_CALLS];
	int			n = snapshot(copy);

	for (int i = 0; i < n; i++)
		if (copy[i].pid == MyProcPid && copy[i].dboid == MyDatabaseId && !copy[i].ended &&
			slot_live(&copy[i]))
			return true;
	return false;
}

/*
 * The calls of this database that run now; returns how many (at most max).
 * Without mine, not those of this backend: a reset in the transaction that
 * ran a call sees all the call wrote (it ran before, in this transaction),
 * so it may take it whole.
 */
int
ranread_calls_running(RanreadCallInfo *out, int max, bool mine)
{
	RanreadCallSlot copy[RANREAD_MAX_CALLS];
	int			n = snapshot(copy);
	int			k = 0;

	for (int i = 0; i < n && k < max; i++)
		if (copy[i].dboid == MyDatabaseId && (mine || copy[i].pid != MyProcPid) && slot_live(&copy[i]))
		{
			out[k].kind = copy[i].kind;
			out[k].id = copy[i].id;
			out[k].pid = copy[i].pid;
			out[k].role = copy[i].role;
			out[k].started_at = copy[i].started_at;
			out[k].ended = copy[i].ended;
			k++;
		}
	return k;
}

/*
 * ranread_call_running(kind, id): does that sweep (study, latency_target,
 * fleet) of this database run now?  NULL on a standby, which cannot know
 * what its primary runs.
 */
Datum
ranread_call_running(PG_FUNCTION_ARGS)
{
	RanreadCallInfo *info = palloc(sizeof(RanreadCallInfo) * RANREAD_MAX_CALLS);
	RanreadCallKind kind;
	int64		id;
	int			n;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	if (RecoveryInProgress())
		PG_RETURN_NULL();
	kind = ranread_call_kind_of(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	id = PG_GETARG_INT64(1);
	n = ranread_calls_running(info, RANREAD_MAX_CALLS, true);
	for (int i = 0; i < n; i++)
		if (info[i].kind == kind && info[i].id == id)
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/*
 * ranread_running_calls(): the sweeps, studies, latency-target searches
 * and fleets of this database that run now: kind, id, pid, started_by,
 * started_at
 */
Datum
ranread_running_calls(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	RanreadCallInfo *info = palloc(sizeof(RanreadCallInfo) * RANREAD_MAX_CALLS);
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	if (RecoveryInProgress())
		return (Datum) 0;
	n = ranread_calls_running(info, RANREAD_MAX_CALLS, true);
	for (int i = 0; i < n; i++)
	{
		Datum		values[5];
		bool		nulls[5] = {false, false, false, false, false};
		char	   *role = GetUserNameFromId(info[i].role, true);
		NameData   *rn = palloc0(sizeof(NameData));

		values[0] = CStringGetTextDatum(kind_names[info[i].kind]);
		values[1] = Int64GetDatum(info[i].id);
		values[2] = Int32GetDatum(info[i].pid);
		if (role)
			namestrcpy(rn, role);
		values[3] = NameGetDatum(rn);
		nulls[3] = role == NULL;
		values[4] = TimestampTzGetDatum(info[i].started_at);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
