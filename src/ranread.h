/*
 * ranread.h
 *		What every file of the extension shares: the limits, the settings,
 *		the cluster-wide control block (ranread.c) and where the extension
 *		lives (extension.c).
 *
 * Where each concern lives (docs/design.md, "The house", has every file):
 *	 src/			 the core every wing shares: module init, settings, the
 *					 control block, ranread_stop, the live-batch functions
 *					 (ranread.c); the extension's schema, owner and version
 *					 (extension.c); the latency histogram (histogram.c);
 *					 the error context (errcontext.c); ranread_limits
 *	 workload/		 the option table, the checks of a batch's arguments,
 *					 the spec a batch runs, the forwarders, a study's point
 *	 run/			 a batch: leader, placement of streams on workers,
 *					 worker and recorder, engines and their steps of one
 *					 I/O, blocks, buffers, figures, verified I/O, the
 *					 server path
 *	 target/		 targets: setup, fill, access method, filesystem facts,
 *					 purge
 *	 history/		 history rows, their repair, the running-calls registry
 *	 advise/		 the commit test and the durability check
 *	 watch/			 histograms compared, the probe's cap
 *	 fleet/			 the fleet's connections to other servers
 *	 report/		 the chart renderer, charts, export, server info
 *	 (SQL)			 sql/state/ (tables, types) and sql/code/ (functions,
 *					 views, the PL/pgSQL of sweeps, searches, studies,
 *					 fleets; internal steps in schema ranread_internal)
 */
#ifndef RANREAD_H
#define RANREAD_H

#include "postgres.h"

#include "fmgr.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "sqlfunc.h"

/* Limits checked before any worker starts */
#define RANREAD_MAX_PROCESSES	2048
#define RANREAD_MAX_QUEUE_DEPTH 1024
#define RANREAD_MAX_INFLIGHT	65536	/* processes x queue_depth */
#define RANREAD_MAX_INFLIGHT_BYTES ((int64) 1024 * 1024 * 1024)	/* x block_size */
#define RANREAD_MAX_BLOCK_SIZE	(1024 * 1024)
#define RANREAD_MAX_PREFETCH	1000	/* effective_io_concurrency: PostgreSQL's MAX_IO_CONCURRENCY */
#define RANREAD_MAX_INTERVALS	86400	/* per-second rows kept per batch */
#define RANREAD_MAX_BLOCK_ROWS	1000000 /* ranread_blocks: processes x n */
#define RANREAD_DEFAULT_ITERATIONS 10000

/*
 * The cluster-wide control block, in the main shared memory segment.  It is
 * created lazily by the first backend that needs it (there is slack in the
 * main segment for small structs like this one), so the extension works
 * without shared_preload_libraries.  It says whether a batch runs, whose it
 * is, and carries the stop flag every worker polls.  The last batch's
 * identity stays after it ends, with whether its history was committed, so
 * the views can tell a batch that is still being recorded from one a crash
 * or a killed recorder left behind.
 */
/* Why a batch ended early; also the status it records */
typedef enum RanreadStop
{
	STOP_NONE = 0,
	STOP_STOPPED,				/* ranread_stop() */
	STOP_CANCELLED,				/* caller cancelled, timed out or gone */
	STOP_FAILED,				/* an I/O error or a worker failure */
	STOP_STEADY					/* steady_state held: completed, early */
} RanreadStop;

typedef struct RanreadControl
{
	slock_t		mutex;
	bool		running;
	uint64		claim;			/* unique per claim, cluster-wide */
	uint64		last_claim;
	int64		batch;			/* the batch id (per database) */
	int			leader_pid;
	Oid			leader_user;
	bool		leader_super;	/* the leader's role is a superuser */
	Oid			dboid;
	int			processes;
	TimestampTz started_at;
	int			refcount;		/* leader + attached workers of the batch */
	volatile uint32 stop;		/* RanreadStop; polled in the hot loops */
	uint32		stop_requests;	/* ranread_stop calls on this claim */
	bool		recorded;		/* the batch's history is committed */
} RanreadControl;

/*
 * What holds the claim when ranread_verify does (it has no batch): a struct
 * of its own beside the control block, so that the block keeps its layout
 * and the last batch's identity; read and written under the control
 * block's mutex.
 */
typedef struct RanreadCheck
{
	slock_t		unused;			/* ranread_shmem_struct's; ctl->mutex guards */
	bool		active;			/* ranread_verify holds the claim */
	uint64		claim;
	Oid			dboid;
	char		target[NAMEDATALEN];
} RanreadCheck;

/*
 * The statement that made the last claim, and whether ranread_stop stopped
 * it.  A stop ends the statement that runs the batch, not only the batch: a
 * call that runs batch after batch (a sweep, a study, a commit test,
 * ranread_paths: one statement of one session) finds each later batch it
 * claims stopped as it starts, whether or not it looks at the status of
 * the stopped one.  Between two of its batches no batch runs: a stop that
 * comes then finds that statement still running, marks it, and waits for
 * its next claim.  Beside the control block, as RanreadCheck is, and read
 * and written under the control block's mutex.
 */
typedef struct RanreadPending
{
	slock_t		unused;			/* ranread_shmem_struct's; ctl->mutex guards */
	int			leader_pid;		/* the last claim's session */
	TimestampTz statement;		/* ... and its statement's start */
	int			stopped_pid;	/* the session whose statement ranread_stop */
	TimestampTz stopped_statement;	/* ... stopped last, and that statement's
									 * start (other claims leave them) */
} RanreadPending;

/* ranread.c */
extern int	ranread_engine_guc;
extern bool ranread_timing_guc;
extern bool ranread_huge_pages_guc;
extern int	ranread_reserve_guc;
extern int	ranread_probe_max_iops_guc;
extern int	ranread_probe_max_seconds_guc;
extern int	ranread_probe_max_share_guc;
extern int	ranread_probe_share_window_guc;
extern int	ranread_verify_max_memory_guc;
extern void *ranread_shmem_struct(const char *name, Size size, Size mutex_offset);
extern RanreadControl *ranread_control(void);
extern RanreadCheck *ranread_check(void);
extern RanreadPending *ranread_pending(void);
extern RanreadStop ranread_claim_pending(RanreadPending *pend, TimestampTz statement);
extern uint64 ranread_claim_check(const char *target, const char *fn);
extern bool ranread_check_stopped(uint64 claim);
extern const char *ranread_status_name(RanreadStop s);
extern uint64 ranread_now_ns(void);
extern void ranread_raise_fd_limit(void);
extern bool ranread_strlcpy(char *dst, const char *src, size_t size);
extern void ranread_request_stop(uint64 claim, RanreadStop why);
extern bool ranread_join(uint64 claim);
extern void ranread_release(uint64 claim);
extern void ranread_mark_recorded(uint64 claim);
extern int64 ranread_live_batch(void);
struct BackgroundWorker;
extern void ranread_worker_template(struct BackgroundWorker *bgw, const char *function,
									const char *type);

/* extension.c */
typedef struct RanreadOwnerState
{
	Oid			save_user;
	int			save_sec;
	int			guc_level;
} RanreadOwnerState;

extern char *ranread_schema_name(void);
extern char *ranread_schema_name_raw(void);
extern Oid	ranread_ext_owner(void);
extern int	ranread_sql_version(void);
extern void ranread_become_owner(RanreadOwnerState *st);
extern void ranread_restore_user(RanreadOwnerState *st);
extern void ranread_refuse_on_standby(const char *fn);
extern void ranread_without_locks(void (*fn) (void *), void *arg);
extern void ranread_spi_select(const char *sql);

#endif							/* RANREAD_H */
