/*
 * ranread.c
 *		Module init, the ranread.engine setting, the cluster-wide control
 *		block and ranread_stop().
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
 * detaches: success, error, cancel or exit.
 */
#include "postgres.h"

#include <sys/resource.h>
#include <time.h>

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/acl.h"
#include "utils/guc.h"

#include "ranread.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(ranread_stop);

int			ranread_engine_guc = ENGINE_AUTO;
bool		ranread_timing_guc = true;
bool		ranread_huge_pages_guc = true;

static const struct config_enum_entry engine_options[] = {
	{"auto", ENGINE_AUTO, false},
	{"io_uring", ENGINE_URING, false},
	{"sync", ENGINE_SYNC, false},
	{NULL, 0, false}
};

static RanreadControl *control = NULL;

void		_PG_init(void);

/* Define the settings */
void
_PG_init(void)
{
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
	MarkGUCPrefixReserved("ranread");
}

/* Attach to (creating on first use) the control block */
RanreadControl *
ranread_control(void)
{
	bool		found;

	if (control)
		return control;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	control = ShmemInitStruct("ranread control", sizeof(RanreadControl), &found);
	if (!found)
	{
		memset(control, 0, sizeof(RanreadControl));
		SpinLockInit(&control->mutex);
	}
	LWLockRelease(AddinShmemInitLock);
	return control;
}

/* The status a stop reason records */
const char *
ranread_status_name(RanreadStop s)
{
	switch (s)
	{
		case STOP_NONE:
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
 * Allowed to superusers, to the role that started the batch and to members
 * of pg_signal_backend.  Returns how many processes were stopped and waits
 * (up to a few seconds) until the batch has recorded its history, so that
 * the next ranread_run does not find it still running.
 */
Datum
ranread_stop(PG_FUNCTION_ARGS)
{
	RanreadControl *ctl = ranread_control();
	int64		batch;
	uint64		claim;
	int			processes;
	Oid			owner;
	int			leader_pid;

	SpinLockAcquire(&ctl->mutex);
	batch = ctl->batch;
	claim = ctl->claim;
	processes = ctl->processes;
	owner = ctl->leader_user;
	leader_pid = ctl->leader_pid;
	if (!ctl->running || ctl->stop != STOP_NONE)
	{
		SpinLockRelease(&ctl->mutex);
		PG_RETURN_INT32(0);
	}
	SpinLockRelease(&ctl->mutex);

	if (!superuser() && !has_privs_of_role(GetUserId(), owner) &&
		!has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_BACKEND))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to stop ranread batch " INT64_FORMAT, batch),
				 errdetail("The batch was started by role \"%s\" in the session with PID %d.",
						   GetUserNameFromId(owner, true) ? GetUserNameFromId(owner, true) : "?",
						   leader_pid),
				 errhint("Only superusers, the role that started the batch and members of pg_signal_backend may stop it.")));

	SpinLockAcquire(&ctl->mutex);
	if (!ctl->running || ctl->claim != claim || ctl->stop != STOP_NONE)
	{
		SpinLockRelease(&ctl->mutex);
		PG_RETURN_INT32(0);
	}
	ctl->stop = STOP_STOPPED;
	SpinLockRelease(&ctl->mutex);

	/* Wait for the batch to wind down and record itself */
	for (int i = 0; i < 1000; i++)
	{
		bool		still;

		SpinLockAcquire(&ctl->mutex);
		still = ctl->running && ctl->claim == claim;
		SpinLockRelease(&ctl->mutex);
		if (!still)
			break;
		CHECK_FOR_INTERRUPTS();
		pg_usleep(10000L);
	}

	PG_RETURN_INT32(processes);
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

/* Leave the claim; the last one out frees the cluster for the next batch */
void
ranread_release(uint64 claim)
{
	RanreadControl *ctl = ranread_control();

	SpinLockAcquire(&ctl->mutex);
	if (ctl->running && ctl->claim == claim && --ctl->refcount <= 0)
	{
		ctl->running = false;
		ctl->refcount = 0;
	}
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
