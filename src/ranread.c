/*
 * ranread.c
 *		Module init, the settings (ranread.*), the cluster-wide control
 *		block, ranread_stop() and ranread_batch_live().
 *
 * One batch runs at a time in the whole cluster.  The control block in the
 * main shared memory segment records which (batch id, leader PID, role,
 * database) and holds the stop flag that every worker of the batch polls in
 * its I/O loop.  It is created on first use with ShmemInitStruct under
 * AddinShmemInitLock, which works without shared_preload_libraries because the
 * main segment keeps some slack for exactly this; after a crash restart the
 * segment is new, so no batch can be left "running" here.
 *
 * The leader claims the block before launching workers.  The claim is held by
 * a reference count (leader plus every attached worker) and released by the
 * last process to detach from the batch's DSM segment, whatever the reason it
 * detaches: success, error, cancel or exit.  The block keeps the last
 * batch's identity, and whether its history was committed, after the claim
 * is gone: ranread_batch_live() tells the views which 'running' rows are
 * true.
 */
#include "postgres.h"

#include <sys/resource.h>
#include <time.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/pmsignal.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/timestamp.h"

#include "errcontext.h"
#include "ranread.h"
#include "batch.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(ranread_stop);
PG_FUNCTION_INFO_V1(ranread_batch_live);

int			ranread_engine_guc = ENGINE_AUTO;
bool		ranread_timing_guc = true;
bool		ranread_huge_pages_guc = true;
int			ranread_reserve_guc = -1;
int			ranread_probe_max_iops_guc = 1000;
int			ranread_probe_max_seconds_guc = 60;
int			ranread_probe_max_share_guc = 10;	/* % */
int			ranread_probe_share_window_guc = 600;	/* s */
int			ranread_verify_max_memory_guc = 256 * 1024;	/* kB */

static const struct config_enum_entry engine_options[] = {
	{"auto", ENGINE_AUTO, false},
	{"io_uring", ENGINE_URING, false},
	{"sync", ENGINE_SYNC, false},
	{NULL, 0, false}
};

static RanreadControl *control = NULL;
static RanreadCheck *check = NULL;
static RanreadPending *pending = NULL;

extern PGDLLEXPORT void _PG_init(void);

/* Define the settings */
void
_PG_init(void)
{
	/* CONTEXT without the frames of ranread_internal (errcontext.c) */
	errcontext_install_hook();
	DefineCustomEnumVariable("ranread.engine",
							 "I/O engine of ranread_run: auto, io_uring or sync.",
							 "auto uses io_uring where the kernel allows it and the "
							 "synchronous engine (one process per worker) elsewhere.",
							 &ranread_engine_guc,
							 ENGINE_AUTO,
							 engine_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("ranread.timing",
							 "Time every I/O of ranread_run into latency histograms.",
							 "Off keeps only counts: it exists to measure what per-I/O "
							 "timing costs, and leaves every latency column empty.",
							 &ranread_timing_guc,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomBoolVariable("ranread.huge_pages",
							 "Put ranread's I/O buffers in 2 MB huge pages.",
							 "A direct I/O from a physically contiguous buffer reaches "
							 "the device as one segment; off uses 4 kB pages, as fio "
							 "does by default.  Each batch records what it got.",
							 &ranread_huge_pages_guc,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("ranread.reserve",
							"Free space ranread_setup leaves on a target's filesystem.",
							"-1 (the default) computes it: 5% of the filesystem (at most "
							"10 GB), plus twice max_wal_size and wal_keep_size when pg_wal "
							"is there; 0 keeps no reserve.",
							&ranread_reserve_guc,
							-1, -1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_MB,
							NULL, NULL, NULL);
	/* superuser-only, so that a monitoring role cannot raise its own cap */
	DefineCustomIntVariable("ranread.probe_max_iops",
							"The most I/Os per second ranread_probe may ask for.",
							"A probe above it is refused; only a superuser sets it.",
							&ranread_probe_max_iops_guc,
							1000, 1, 100000000,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("ranread.probe_max_seconds",
							"The longest duration ranread_probe may ask for.",
							"A probe above it is refused; only a superuser sets it.",
							&ranread_probe_max_seconds_guc,
							60, 1, 86400,
							PGC_SUSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("ranread.probe_max_share",
							"The most of ranread.probe_share_window that probes may take, in percent.",
							"The batches on the probe targets (ranread_probe_setup) of a "
							"database count; a probe that would take them past it is refused, "
							"so that probes leave the cluster's one batch to other work.  Only "
							"a superuser sets it.",
							&ranread_probe_max_share_guc,
							10, 1, 100,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("ranread.probe_share_window",
							"The time over which ranread.probe_max_share counts the probes' batches.",
							"The last this long before a probe, such as 10 min: with the "
							"defaults, probes take at most 60 s of any 10 minutes.  Only a "
							"superuser sets it.",
							&ranread_probe_share_window_guc,
							600, 60, 86400,
							PGC_SUSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("ranread.verify_max_memory",
							"The most shared memory a verifying batch may take for its per-block words.",
							"verify keeps 12 bytes per block of the region it verifies, in the "
							"batch's dynamic shared memory; a batch that needs more is "
							"refused.  Only a superuser sets it.",
							&ranread_verify_max_memory_guc,
							256 * 1024, 1, INT_MAX,
							PGC_SUSET,
							GUC_UNIT_KB,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("ranread");
}

/*
 * Attach to (creating on first use) a struct of the main shared memory
 * segment: zeroed, with its spinlock (at mutex_offset) initialized, by the
 * first backend that asks for it
 */
void *
ranread_shmem_struct(const char *name, Size size, Size mutex_offset)
{
	bool		found;
	void	   *p;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	p = ShmemInitStruct(name, size, &found);
	if (!found)
	{
		memset(p, 0, size);
		SpinLockInit((slock_t *) ((char *) p + mutex_offset));
	}
	LWLockRelease(AddinShmemInitLock);
	return p;
}

/* Attach to (creating on first use) the control block */
RanreadControl *
ranread_control(void)
{
	if (control == NULL)
		control = ranread_shmem_struct("ranread control", sizeof(RanreadControl),
									   offsetof(RanreadControl, mutex));
	return control;
}

/* Attach to (creating on first use) the check's half of the claim */
RanreadCheck *
ranread_check(void)
{
	if (check == NULL)
		check = ranread_shmem_struct("ranread check", sizeof(RanreadCheck),
									 offsetof(RanreadCheck, unused));
	return check;
}

/* Attach to (creating on first use) the stop that waits for a next batch */
RanreadPending *
ranread_pending(void)
{
	if (pending == NULL)
		pending = ranread_shmem_struct("ranread pending stop", sizeof(RanreadPending),
									   offsetof(RanreadPending, unused));
	return pending;
}

/*
 * A new claim's stop, under the control block's mutex: STOP_STOPPED when
 * ranread_stop stopped this statement before (one of its batches, or the
 * gap after one), STOP_NONE otherwise: a stop ends the statement's batches,
 * whether or not its call looks at the status of each.  The claim's
 * statement becomes the last.
 */
RanreadStop
ranread_claim_pending(RanreadPending *pend, TimestampTz statement)
{
	pend->leader_pid = MyProcPid;
	pend->statement = statement;
	return pend->stopped_pid == MyProcPid && pend->stopped_statement == statement ?
		STOP_STOPPED : STOP_NONE;
}

/*
 * Is the session with this PID still running the statement that started at
 * statement?  From the activity it reports (pg_stat_activity's state and
 * query_start), read afresh: this drops the caller's transaction-stable
 * snapshot of pg_stat_activity, as pg_stat_clear_snapshot() does.  A session
 * with track_activities off reports no statement: it is not running one.
 */
static bool
statement_runs(int pid, TimestampTz statement)
{
	int			n;

	pgstat_clear_backend_activity_snapshot();
	n = pgstat_fetch_stat_numbackends();
	for (int i = 1; i <= n; i++)
	{
		LocalPgBackendStatus *l = pgstat_fetch_stat_local_beentry(i);

		if (l != NULL && l->backendStatus.st_procpid == pid)
			return l->backendStatus.st_state == STATE_RUNNING &&
				l->backendStatus.st_activity_start_timestamp == statement;
	}
	return false;
}

/*
 * Claim the cluster for ranread_verify (fn) of target, as a batch's leader
 * does (leader.c, claim), or say which batch has it: a batch that wrote
 * while the target is read could make a page look torn.  The control block
 * keeps the last batch's identity (ranread_batch_live); the check says who
 * holds the claim.  Released with ranread_release.
 */
uint64
ranread_claim_check(const char *target, const char *fn)
{
	RanreadControl *ctl = ranread_control();
	RanreadCheck *chk = ranread_check();
	RanreadPending *pend = ranread_pending();
	TimestampTz statement = GetCurrentStatementStartTimestamp();
	bool		super = superuser();
	int64		batch;
	bool		checking;
	char		other[NAMEDATALEN];
	Oid			dboid;
	int			pid;
	TimestampTz since;

	SpinLockAcquire(&ctl->mutex);
	if (!ctl->running)
	{
		uint64		id = ++ctl->last_claim;

		ctl->running = true;
		ctl->claim = id;
		ctl->leader_pid = MyProcPid;
		ctl->leader_user = GetUserId();
		ctl->leader_super = super;
		ctl->processes = 1;
		ctl->started_at = GetCurrentTimestamp();
		ctl->refcount = 1;
		ctl->stop = ranread_claim_pending(pend, statement);
		ctl->stop_requests = ctl->stop != STOP_NONE ? 1 : 0;
		chk->active = true;
		chk->claim = id;
		chk->dboid = MyDatabaseId;
		strlcpy(chk->target, target, NAMEDATALEN);
		SpinLockRelease(&ctl->mutex);
		return id;
	}
	batch = ctl->batch;
	checking = chk->active && chk->claim == ctl->claim;
	strlcpy(other, chk->target, NAMEDATALEN);
	dboid = checking ? chk->dboid : ctl->dboid;
	pid = ctl->leader_pid;
	since = ctl->started_at;
	SpinLockRelease(&ctl->mutex);

	if (checking)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_IN_USE),
				 errmsg("%s cannot check target \"%s\" while ranread_verify checks target \"%s\" of database \"%s\"",
						fn, target, other, get_database_name(dboid) ? get_database_name(dboid) : "?"),
				 errdetail("It was started at %s by the session with PID %d; one batch or check runs at a time in the cluster.",
						   timestamptz_to_str(since), pid),
				 errhint("Wait for it to finish, or stop it with SELECT ranread_stop();")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_IN_USE),
			 errmsg("%s cannot check target \"%s\" while batch " INT64_FORMAT " runs", fn, target, batch),
			 errdetail("A write of a batch could be read half done and look torn."),
			 errhint("Wait for the batch to end, or stop it with SELECT ranread_stop();")));
	return 0;					/* keep compiler quiet */
}

/* Has ranread_stop asked the check holding this claim to stop? */
bool
ranread_check_stopped(uint64 claim)
{
	RanreadControl *ctl = ranread_control();
	bool		stopped;

	SpinLockAcquire(&ctl->mutex);
	stopped = ctl->claim == claim && ctl->stop != STOP_NONE;
	SpinLockRelease(&ctl->mutex);
	return stopped;
}

/* The status a stop reason records */
const char *
ranread_status_name(RanreadStop s)
{
	switch (s)
	{
		case STOP_NONE:
		case STOP_STEADY:
			return "completed";
		case STOP_STOPPED:
			return "stopped";
		case STOP_CANCELLED:
			return "cancelled";
		case STOP_FAILED:
			return "failed";
	}
	return "failed";
}

/* CLOCK_MONOTONIC in nanoseconds: the clock of every latency */
uint64
ranread_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * ranread_stop(): stop the running batch, from any session.
 *
 * Allowed as pg_cancel_backend is: a superuser's batch only to superusers;
 * any other batch to superusers, to roles with the privileges of the role
 * that started it, and to members of pg_signal_backend.  Returns how many
 * processes were stopped and waits (up to a few seconds) until the batch
 * has recorded its history, so that the next ranread_run does not find it
 * still running.  A batch whose I/O is over but whose recording waits for a
 * lock gives up the recording when stopped (the leader reports the
 * figures).
 *
 * A stop ends the statement that runs the batch: a call that runs batch
 * after batch (a sweep, a study, a commit test, ranread_paths) finds every
 * later batch it claims stopped as it starts (RanreadPending).  Between two
 * of its batches, when no batch runs but the statement that claimed the last
 * one still does, the stop waits for that statement's next claim and
 * returns its processes, or 0 when the statement ended without another.
 */
Datum
ranread_stop(PG_FUNCTION_ARGS)
{
	RanreadControl *ctl = ranread_control();
	RanreadCheck *chk = ranread_check();
	RanreadPending *pend = ranread_pending();
	int64		batch;
	uint64		claim;
	int			processes;
	Oid			owner;
	bool		owner_super;
	int			leader_pid;
	TimestampTz statement;
	bool		known;			/* the last claim's statement is known */
	bool		running;
	bool		between = false;
	char		checking[NAMEDATALEN] = "";
	char	   *what;

	SpinLockAcquire(&ctl->mutex);
	batch = ctl->batch;
	if (chk->active && chk->claim == ctl->claim)
		strlcpy(checking, chk->target, NAMEDATALEN);
	claim = ctl->claim;
	processes = ctl->processes;
	owner = ctl->leader_user;
	owner_super = ctl->leader_super;
	leader_pid = ctl->leader_pid;
	running = ctl->running;
	known = pend->leader_pid == leader_pid && leader_pid != 0;
	statement = pend->statement;
	SpinLockRelease(&ctl->mutex);
	/*
	 * No batch runs: is the statement that ran the last one still running
	 * (and not this one's own)?
	 */
	if (!running && (!known || leader_pid == MyProcPid || !statement_runs(leader_pid, statement)))
		PG_RETURN_INT32(0);
	what = checking[0] ? psprintf("ranread_verify of target \"%s\"", checking) :
		!running ? psprintf("the ranread call of the session with PID %d", leader_pid) : NULL;

	if (!superuser() &&
		(owner_super ||
		 (!has_privs_of_role(GetUserId(), owner) &&
		  !has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_BACKEND))))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to stop %s",
						what ? what : psprintf("ranread batch " INT64_FORMAT, batch)),
				 errdetail("%s was started by %srole \"%s\" in the session with PID %d.",
						   what ? "It" : "The batch", owner_super ? "the superuser " : "",
						   GetUserNameFromId(owner, true) ? GetUserNameFromId(owner, true) : "?",
						   leader_pid),
				 errhint(owner_super ?
						 "Only superusers may stop a superuser's batch, as only they may cancel a superuser's query." :
						 "Only superusers, the role that started the batch and members of pg_signal_backend may stop it.")));

	SpinLockAcquire(&ctl->mutex);
	/* the statement is stopped: each batch it claims from now on starts stopped */
	if (known)
	{
		pend->stopped_pid = leader_pid;
		pend->stopped_statement = statement;
	}
	if (ctl->running && (ctl->claim == claim ||
						 (known && ctl->leader_pid == leader_pid &&
						  pend->leader_pid == leader_pid && pend->statement == statement)))
	{
		/* its batch runs (the one seen, or the statement's next one): stop it */
		claim = ctl->claim;
		processes = ctl->processes;
		if (ctl->stop == STOP_NONE)
			ctl->stop = STOP_STOPPED;
		ctl->stop_requests++;
	}
	else if (known)
		between = true;			/* between two of its batches */
	else
	{
		SpinLockRelease(&ctl->mutex);
		PG_RETURN_INT32(0);
	}
	SpinLockRelease(&ctl->mutex);

	/*
	 * Between two batches: wait for the statement's next claim (which starts
	 * stopped), or for the statement to end without one.  Another session's
	 * claim meanwhile leaves the statement stopped; its next claim then fails
	 * as one batch runs, and the statement ends.
	 */
	for (int i = 0; between && i < 1000; i++)
	{
		SpinLockAcquire(&ctl->mutex);
		if (ctl->claim != claim && ctl->leader_pid == leader_pid &&
			pend->leader_pid == leader_pid && pend->statement == statement)
		{
			/* claimed (running, or already over) */
			claim = ctl->claim;
			processes = ctl->processes;
			if (ctl->running && ctl->stop == STOP_NONE)
				ctl->stop = STOP_STOPPED;
			between = false;
		}
		SpinLockRelease(&ctl->mutex);
		if (!between)
			break;
		if (i % 10 == 9 && !statement_runs(leader_pid, statement))
			PG_RETURN_INT32(0); /* it ended without another batch */
		if (!PostmasterIsAlive())
			PG_RETURN_INT32(0);
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000L);
	}
	if (between)
	{
		ereport(NOTICE,
				(errmsg("no ranread batch runs now: the call of the session with PID %d will stop when it starts its next batch",
						leader_pid)));
		PG_RETURN_INT32(0);
	}

	/* Wait for the batch to wind down and record itself */
	for (int i = 0; i < 1000; i++)
	{
		bool		still;

		SpinLockAcquire(&ctl->mutex);
		still = ctl->running && ctl->claim == claim;
		SpinLockRelease(&ctl->mutex);
		if (!still || !PostmasterIsAlive())
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000L);
	}

	PG_RETURN_INT32(processes);
}

/*
 * The batch of this database that runs now, or -1.  A batch counts as
 * running until every process of it has left.
 */
int64
ranread_live_batch(void)
{
	RanreadControl *ctl = ranread_control();
	int64		batch = -1;

	RanreadCheck *chk = ranread_check();

	SpinLockAcquire(&ctl->mutex);
	/* a check holds the claim with no batch: the last one's identity is kept */
	if (ctl->running && ctl->dboid == MyDatabaseId && !(chk->active && chk->claim == ctl->claim))
		batch = ctl->batch;
	SpinLockRelease(&ctl->mutex);
	return batch;
}

/*
 * ranread_batch_live(batch): may a 'running' row of this batch be true?
 * Yes while the batch runs, and for the last batch once its history is
 * committed (a reader's older snapshot may still see its 'running' row);
 * no for every other batch, whatever the table says: a crash, a killed
 * recorder or a recording that gave up left it behind.  NULL on a standby,
 * which cannot know what runs on its primary.
 */
Datum
ranread_batch_live(PG_FUNCTION_ARGS)
{
	RanreadControl *ctl;
	RanreadCheck *chk;
	int64		batch = PG_GETARG_INT64(0);
	bool		live;

	if (RecoveryInProgress())
		PG_RETURN_NULL();
	ctl = ranread_control();
	chk = ranread_check();
	SpinLockAcquire(&ctl->mutex);
	live = ctl->dboid == MyDatabaseId && ctl->batch == batch &&
		((ctl->running && !(chk->active && chk->claim == ctl->claim)) || ctl->recorded);
	SpinLockRelease(&ctl->mutex);
	PG_RETURN_BOOL(live);
}

/*
 * Ask the running batch to stop, if it is still this batch and nothing has
 * asked before.  Safe in any process and in error paths.
 */
void
ranread_request_stop(uint64 claim, RanreadStop why)
{
	RanreadControl *ctl = ranread_control();

	SpinLockAcquire(&ctl->mutex);
	if (ctl->running && ctl->claim == claim && ctl->stop == STOP_NONE)
		ctl->stop = why;
	SpinLockRelease(&ctl->mutex);
}

/* A worker joins the claim of its batch; false if the batch is over */
bool
ranread_join(uint64 claim)
{
	RanreadControl *ctl = ranread_control();
	bool		ok;

	SpinLockAcquire(&ctl->mutex);
	ok = ctl->running && ctl->claim == claim;
	if (ok)
		ctl->refcount++;
	SpinLockRelease(&ctl->mutex);
	return ok;
}

/* The batch's history is committed: say so to the views */
void
ranread_mark_recorded(uint64 claim)
{
	RanreadControl *ctl = ranread_control();

	SpinLockAcquire(&ctl->mutex);
	if (ctl->claim == claim)
		ctl->recorded = true;
	SpinLockRelease(&ctl->mutex);
}

/* Leave the claim; the last one out frees the cluster for the next batch */
void
ranread_release(uint64 claim)
{
	RanreadControl *ctl = ranread_control();
	RanreadCheck *chk = ranread_check();

	SpinLockAcquire(&ctl->mutex);
	if (ctl->running && ctl->claim == claim && --ctl->refcount <= 0)
	{
		ctl->running = false;
		ctl->refcount = 0;
	}
	if (chk->active && chk->claim == claim && !ctl->running)
		chk->active = false;
	SpinLockRelease(&ctl->mutex);
}

/*
 * Targets keep one descriptor per 1 GB segment open while they are written
 * or read; allow this process as many descriptors as the hard limit does.
 */
void
ranread_raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max)
	{
		rl.rlim_cur = rl.rlim_max;
		(void) setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Fill in a dynamic background worker of this library: connects to a
 * database, never restarted, and reports its start and stop to us.
 */
void
ranread_worker_template(BackgroundWorker *bgw, const char *function, const char *type)
{
	memset(bgw, 0, sizeof(BackgroundWorker));
	bgw->bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	bgw->bgw_start_time = BgWorkerStart_ConsistentState;
	bgw->bgw_restart_time = BGW_NEVER_RESTART;
	strlcpy(bgw->bgw_library_name, "ranread", BGW_MAXLEN);
	strlcpy(bgw->bgw_function_name, function, BGW_MAXLEN);
	strlcpy(bgw->bgw_type, type, BGW_MAXLEN);
	strlcpy(bgw->bgw_name, type, BGW_MAXLEN);
	bgw->bgw_notify_pid = MyProcPid;
}

/*
 * Copy src into dst, a buffer of size bytes, cut (if it must be) on a
 * character boundary of the database's encoding, never inside a character:
 * whatever lands in a fixed buffer of a batch (labels, target names,
 * messages) is stored in the history, and a string cut mid-character would
 * be text that pg_dump writes and COPY then refuses to restore.  Returns
 * true when src was cut.
 */
bool
ranread_strlcpy(char *dst, const char *src, size_t size)
{
	size_t		len = strlen(src);

	if (size == 0)
		return len > 0;
	if (len < size)
	{
		memcpy(dst, src, len + 1);
		return false;
	}
	len = pg_mbcliplen(src, (int) Min(len, (size_t) PG_INT32_MAX), (int) size - 1);
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}
