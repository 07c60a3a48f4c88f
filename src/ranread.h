/*
 * ranread.h
 *		Shared declarations of the ranread extension.
 *
 * Which file holds what:
 *	 ranread.c		 module init, GUCs, the cluster-wide control block, ranread_stop
 *	 target.c		 targets: setup (fill), purge, state, files and alignment
 *	 run.c			 ranread_run: argument checks, launch, wait, the result row
 *	 worker.c		 the background worker: streams, block choice, the recorder
 *	 engine_uring.c	 the io_uring hot loop
 *	 engine_sync.c	 the synchronous (pread/pwrite) hot loop
 *	 iobuf.c		 memory for O_DIRECT buffers (huge pages, ranread.huge_pages)
 *	 history.c		 figures from histograms, history rows (SPI), ranread_reset
 *	 hist.c			 the latency histogram and its SQL functions
 *	 export.c		 ranread_export, ranread_limits; report.h: what it shares with chart.c
 *	 chart.c		 ranread_chart, ranread_timeline (SVG)
 *	 (SQL)			 sql/install/20_report.sql: ranread_sweep and its rules
 */
#ifndef RANREAD_H
#define RANREAD_H

#include "postgres.h"

#include "fmgr.h"
#include "port/atomics.h"
#include "storage/block.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "hist.h"

/* Limits checked before any worker starts */
#define RANREAD_MAX_PROCESSES	2048
#define RANREAD_MAX_QUEUE_DEPTH 1024
#define RANREAD_MAX_INFLIGHT	65536	/* processes x queue_depth */
#define RANREAD_MAX_INFLIGHT_BYTES ((int64) 1024 * 1024 * 1024)	/* x block_size */
#define RANREAD_MAX_BLOCK_SIZE	(1024 * 1024)
#define RANREAD_MAX_INTERVALS	86400	/* per-second rows kept per batch */
#define RANREAD_DEFAULT_ITERATIONS 10000
#define RANREAD_MSG_LEN			256

/* ranread.engine */
typedef enum RanreadEngine
{
	ENGINE_AUTO = 0,
	ENGINE_URING,
	ENGINE_SYNC
} RanreadEngine;

/* What an I/O buffer is made of (iobuf.c); recorded as batches.buffer_pages */
typedef enum RanreadPages
{
	PAGES_UNKNOWN = 0,			/* not allocated (yet) */
	PAGES_HUGE,					/* all in 2 MB pages */
	PAGES_SMALL,				/* in base (4 kB) pages */
	PAGES_MIXED					/* some workers got each */
} RanreadPages;

typedef enum RanreadPattern
{
	PATTERN_RANDOM = 0,
	PATTERN_SEQUENTIAL
} RanreadPattern;

/* Why a batch ended early; also the status it records */
typedef enum RanreadStop
{
	STOP_NONE = 0,
	STOP_STOPPED,				/* ranread_stop() */
	STOP_CANCELLED,				/* caller cancelled, timed out or gone */
	STOP_FAILED					/* an I/O error or a worker failure */
} RanreadStop;

/*
 * The cluster-wide control block, in the main shared memory segment.  It is
 * created lazily by the first backend that needs it (there is slack in the
 * main segment for small structs like this one), so the extension works
 * without shared_preload_libraries.  It says whether a batch runs, whose it
 * is, and carries the stop flag every worker polls.
 */
typedef struct RanreadControl
{
	slock_t		mutex;
	bool		running;
	uint64		claim;			/* unique per claim, cluster-wide */
	uint64		last_claim;
	int64		batch;			/* the batch id (per database) */
	int			leader_pid;
	Oid			leader_user;
	Oid			dboid;
	int			processes;
	TimestampTz started_at;
	int			refcount;		/* leader + attached workers of the batch */
	volatile uint32 stop;		/* RanreadStop; polled in the hot loops */
} RanreadControl;

/* What a batch does: filled by the leader, read-only afterwards */
typedef struct BatchParams
{
	int64		batch;
	uint64		claim;			/* the control block's claim of this batch */
	int64		sweep;			/* 0 when not part of a sweep */
	Oid			dboid;
	Oid			ext_owner;		/* history is written as this role */
	char		schema[NAMEDATALEN];
	char		target[NAMEDATALEN];
	char		tablespace[NAMEDATALEN];
	char		started_by[NAMEDATALEN];
	char		relpath[MAXPGPATH]; /* segment 0; others add ".N" */

	int			nsegs;
	uint64		seg_bytes;
	uint64		units_per_seg;	/* block_size units in a full segment */
	uint64		unit_lo;		/* region, in units, [lo, hi) */
	uint64		unit_hi;

	int			processes;
	int64		iterations;		/* per process; 0 = until duration */
	int64		duration_ns;	/* 0 = until iterations */
	Interval	duration;
	Interval	warmup;
	int			block_size;
	int			write_pct;
	int			queue_depth;
	RanreadPattern pattern;
	double		region_start;
	double		region_end;
	int64		warmup_ns;
	int			rate_iops;		/* 0 = unlimited */
	int64		seed;
	int			nworkers;
	RanreadEngine engine;
	bool		timing;			/* ranread.timing: per-I/O latency */
	bool		huge_pages;		/* ranread.huge_pages: buffers in huge pages */
	int			nintervals;		/* per-second slots per worker */
} BatchParams;

/* One background worker of a batch */
typedef struct WorkerSlot
{
	int			pid;
	int			first_stream;
	int			nstreams;
	bool		done;			/* finished its I/O, stats final */
	bool		exited;			/* detached from the batch */
	bool		failed;
	RanreadPages pages;			/* its I/O buffers */
	volatile uint64 ios;		/* progress: completed measured I/Os */
	char		message[RANREAD_MSG_LEN];
} WorkerSlot;

/* One second of one worker */
typedef struct IntervalSlot
{
	uint64		reads;
	uint64		writes;
	uint64		sum_ns;
	uint64		max_ns;
} IntervalSlot;

/*
 * One process (I/O stream): written only by the worker driving it.  Its
 * latency histograms: reads, then writes only in a batch with write_pct > 0
 * (a read-only batch needs half the memory), so StreamStats lie
 * bs->stream_size apart.
 */
typedef struct StreamStats
{
	uint64		reads;
	uint64		writes;
	uint64		last_ns;		/* completion of its last measured I/O */
	RanreadHist hist[FLEXIBLE_ARRAY_MEMBER];	/* HIST_READS, HIST_WRITES */
} StreamStats;

#define HIST_READS	0
#define HIST_WRITES 1

static inline Size
stream_stats_size(int write_pct)
{
	return MAXALIGN(offsetof(StreamStats, hist) + (write_pct > 0 ? 2 : 1) * sizeof(RanreadHist));
}

/*
 * The batch's dynamic shared memory: BatchShared, then the worker slots,
 * then StreamStats per process, then IntervalSlots per worker.
 */
typedef struct BatchShared
{
	BatchParams p;
	ConditionVariable cv;		/* workers wait here for "go" */
	Latch	   *leader_latch;
	pg_atomic_uint32 ready;
	bool		assigned;		/* streams are divided among workers */
	bool		go;
	bool		abort_start;	/* leader gave up before go */
	uint64		go_ns;			/* CLOCK_MONOTONIC, ns */
	uint64		measure_ns;		/* go_ns + warm-up */
	TimestampTz run_at;
	bool		running_row;	/* the recorder inserted the 'running' row */
	bool		recorded;		/* history written (or given up) */
	RanreadStop status;			/* final status, set by the recorder */
	char		message[RANREAD_MSG_LEN];
	Size		stream_off;
	Size		stream_size;	/* stream_stats_size(p.write_pct) */
	Size		interval_off;
	WorkerSlot	workers[FLEXIBLE_ARRAY_MEMBER];
} BatchShared;

static inline StreamStats *
batch_stream(BatchShared *bs, int i)
{
	return (StreamStats *) ((char *) bs + bs->stream_off + (Size) i * bs->stream_size);
}

/* A process's write histogram: an empty one in a read-only batch */
static inline const RanreadHist *
stream_write_hist(BatchShared *bs, StreamStats *st)
{
	return bs->p.write_pct > 0 ? &st->hist[HIST_WRITES] : &hist_empty;
}

static inline IntervalSlot *
batch_intervals(BatchShared *bs, int worker)
{
	return (IntervalSlot *) ((char *) bs + bs->interval_off) +
		(Size) worker * bs->p.nintervals;
}

/* Figures of one process or of a whole batch */
typedef struct RanreadFigures
{
	uint64		reads;
	uint64		writes;
	double		seconds;
	double		iops;
	double		mbps;
	double		avg_ms;
	double		min_ms;
	double		p50_ms;
	double		p95_ms;
	double		p99_ms;
	double		p999_ms;
	double		max_ms;
	double		read_avg_ms;
	double		read_p99_ms;
	double		read_max_ms;
	double		write_avg_ms;
	double		write_p99_ms;
	double		write_max_ms;
} RanreadFigures;

/* ranread.c */
extern int	ranread_engine_guc;
extern bool ranread_timing_guc;
extern bool ranread_huge_pages_guc;
extern RanreadControl *ranread_control(void);
extern const char *ranread_status_name(RanreadStop s);
extern uint64 ranread_now_ns(void);
extern void ranread_raise_fd_limit(void);

/* iobuf.c */
#define IOBUF_STRIDE(block_size)	TYPEALIGN(4096, (block_size))	/* one slot's buffer */
extern char *ranread_iobuf_alloc(Size size, bool huge, RanreadPages *pages);
extern void ranread_iobuf_free(char *buf, Size size, bool huge);
extern Size ranread_iobuf_length(Size size, bool huge);
extern const char *ranread_pages_name(RanreadPages pages);
struct BackgroundWorker;
extern void ranread_worker_template(struct BackgroundWorker *bgw, const char *function,
									const char *type);
extern bool engine_uring_available(char *why, int whylen);
extern void ranread_request_stop(uint64 claim, RanreadStop why);
extern bool ranread_join(uint64 claim);
extern void ranread_release(uint64 claim);

/* target.c */
typedef struct RanreadTarget
{
	Oid			relid;
	char		tablespace[NAMEDATALEN];
	uint64		size_bytes;
	char		relpath[MAXPGPATH];
	int			dio_align;
} RanreadTarget;

extern const char *target_arg(FunctionCallInfo fcinfo, int argno, const char *fn);
extern bool target_lookup(const char *name, RanreadTarget *t);
extern void target_fill_page(char *page, BlockNumber blkno, uint64 *rng);
extern void rng_seed(uint64 *s, uint64 seed);

/* Random numbers: xoshiro256+ (fast, good enough for block choice and data) */
static inline uint64
rng_rotl(uint64 x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64
rng_next(uint64 *s)
{
	uint64		result = s[0] + s[3];
	uint64		t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rng_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, n) without division (Lemire) */
static inline uint64
rng_below(uint64 *s, uint64 n)
{
	return (uint64) (((unsigned __int128) rng_next(s) * n) >> 64);
}

/* history.c */
extern char *ranread_schema_name(void);
extern char *ranread_schema_name_raw(void);
extern Oid	ranread_ext_owner(void);
typedef struct RanreadOwnerState
{
	Oid			save_user;
	int			save_sec;
	int			guc_level;
} RanreadOwnerState;

extern void ranread_become_owner(RanreadOwnerState *st);
extern void ranread_restore_user(RanreadOwnerState *st);
extern void figures_from_hists(RanreadFigures *f, const RanreadHist *r,
							   const RanreadHist *w, RanreadHist *all,
							   uint64 reads, uint64 writes, double seconds,
							   int block_size);
extern void batch_figures(BatchShared *bs, RanreadFigures *f,
						  RanreadHist *all, RanreadHist *writes);
extern RanreadPages batch_pages(BatchShared *bs);
extern void history_insert_running(BatchShared *bs);
extern void history_finish(BatchShared *bs);
extern void history_fail_orphans(void);
extern PGDLLEXPORT void ranread_repair_main(Datum arg);

/* worker.c */
extern PGDLLEXPORT void ranread_worker_main(Datum arg);

#endif							/* RANREAD_H */
