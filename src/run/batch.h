/*
 * batch.h
 *		A batch as it lives in its dynamic shared memory segment: what it
 *		does (BatchParams: targets, groups, timing), the state the leader and
 *		its workers share (BatchShared), and every process's counts and
 *		histograms (StreamStats), per-second slots (IntervalSlot) and the
 *		figures computed from them once the I/O is over.
 *
 * A batch runs one or more groups of processes at once (a plain
 * ranread_run is one group).  Processes (streams) are numbered across the
 * whole batch, group after group; each group has its own block size,
 * pattern, region, rate, distribution and target.  Who writes what:
 *	 BatchParams		the leader, before it lets the workers go (nworkers
 *						and engine once the streams are divided, before
 *						"assigned"); read-only after
 *	 WorkerSlot[i]		worker i (the leader reads progress and flags; the
 *						recorder its measured window's CPU and device use)
 *	 device[]			worker 0, before it is ready; read by the recorder
 *	 StreamStats[s]		the worker driving stream s, until it is done
 *	 IntervalSlot		the worker, for its own streams, per group and second
 *	 figures, record_*	the recorder (worker 0), once every worker has stopped
 *						counting; the leader only when no recorder is left
 */
#ifndef RANREAD_BATCH_H
#define RANREAD_BATCH_H

#include "postgres.h"

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "blocks.h"
#include "histogram.h"
#include "verify.h"

#define RANREAD_MAX_GROUPS		16
#define RANREAD_MAX_TARGETS		8
#define RANREAD_MSG_LEN			256
#define RANREAD_FS_LEN			32
#define RANREAD_POINT_LEN		1024

/* The I/O engines (engine.h); AUTO only as ranread.engine, never a batch's */
typedef enum RanreadEngine
{
	ENGINE_AUTO = 0,
	ENGINE_URING,
	ENGINE_SYNC,
	ENGINE_BUFMGR				/* every stream reads through shared buffers */
} RanreadEngine;

/* What an I/O buffer is made of (iobuf.c); recorded as batches.buffer_pages */
typedef enum RanreadPages
{
	PAGES_UNKNOWN = 0,			/* not allocated (yet) */
	PAGES_HUGE,					/* all in 2 MB pages */
	PAGES_SMALL,				/* in base (4 kB) pages */
	PAGES_MIXED					/* some workers got each */
} RanreadPages;

/*
 * Which way a group's reads go (docs/design.md, "The server path"): the
 * device path reads the target's files with O_DIRECT (what the storage
 * gives); the server path reads its blocks through PostgreSQL's buffer
 * manager, shared buffers and the page cache (what PostgreSQL gets).
 */
typedef enum RanreadPath
{
	PATH_DEVICE = 0,
	PATH_SERVER
} RanreadPath;

typedef enum RanreadPattern
{
	PATTERN_RANDOM = 0,
	PATTERN_SEQUENTIAL
} RanreadPattern;

/*
 * How a group's writes reach stable storage (the sync option, and the
 * commit test's wal_sync_method imitations).  The open_* ones are
 * per-write flags (RWF_DSYNC, RWF_SYNC: what O_DSYNC and O_SYNC do to every
 * write), the others a call after each write (or each op of several).
 */
typedef enum RanreadSync
{
	SYNC_NONE = 0,				/* the write completes when the device has it */
	SYNC_FDATASYNC,
	SYNC_FSYNC,
	SYNC_OPEN_DATASYNC,
	SYNC_OPEN_SYNC
} RanreadSync;

#define RANREAD_NSYNC	(SYNC_OPEN_SYNC + 1)

/* How the recording of a batch ended (BatchShared.record_state) */
typedef enum RecordState
{
	RECORD_PENDING = 0,
	RECORD_DONE,				/* history written */
	RECORD_GAVE_UP				/* could not be written; record_message says why */
} RecordState;

/* A target a batch reads: where its files are, checked when the batch starts */
typedef struct BatchTarget
{
	char		name[NAMEDATALEN];
	char		tablespace[NAMEDATALEN];	/* where its files are now */
	char		filesystem[RANREAD_FS_LEN]; /* their filesystem's type */
	char		relpath[MAXPGPATH]; /* segment 0; others add ".N" */
	uint64		size_bytes;
	int			nsegs;
	int			dio_align;
	bool		written;		/* some group writes it: opened read-write */
	bool		scratch;		/* the commit test's file, not a relation */
	bool		buffered;		/* opened without O_DIRECT (commit test only) */
	Oid			relid;			/* its relation: the identity its pages' stamps carry */
	bool		verified;		/* some group verifies it (verify.h) */
	uint64		words_first;	/* verified: the first block with a word */
	uint64		words_blocks;	/* verified: how many blocks have one (the
								 * verifying groups' regions, first to last) */
	/* the server path (serverpath.c) */
	Oid			spcoid;			/* its tablespace now */
	bool		server;			/* some group reads it through shared buffers */
	int64		cache_left;		/* server: its blocks the page cache still held
								 * after the eviction before the batch; -1 not known */
} BatchTarget;

/* One group of processes: what each of them does */
typedef struct GroupParams
{
	char		label[NAMEDATALEN];
	int			target;			/* index into BatchParams.targets */
	int			first_stream;
	int			processes;
	int64		iterations;		/* per process; 0 = until the duration ends */
	int			block_size;
	int			write_pct;
	int			queue_depth;
	RanreadPattern pattern;
	double		region_start;
	double		region_end;
	uint64		units_per_seg;	/* block_size units in a full segment */
	uint64		unit_lo;		/* region, in units, [lo, hi) */
	uint64		unit_hi;
	int			rate_iops;		/* for the whole group; 0 = unlimited */
	BlockChoice blocks;			/* the distribution and its constants */
	RanreadSync sync;			/* how writes are made durable */
	int			writes_per_op;	/* an I/O of block_size is this many writes
								 * (commit test: 2 x 8 kB, 16 x 1 kB); 1 */
	bool		verify;			/* the verify option: stamp writes, check reads */
	RanreadPath path;			/* the path option: device or server */
	int			prefetch;		/* server path: blocks prefetched ahead
								 * (effective_io_concurrency); -1 until the
								 * target's tablespace gives the default */
} GroupParams;

/* What a batch does: filled by the leader, read-only once assigned */
typedef struct BatchParams
{
	int64		batch;
	uint64		claim;			/* the control block's claim of this batch */
	int64		sweep;			/* 0 when not part of a sweep */
	Oid			dboid;
	Oid			ext_owner;		/* history is written as this role */
	int			sql_version;	/* the installed SQL: 10 = 1.0, 11 = 1.1 */
	char		schema[NAMEDATALEN];	/* the extension's schema, unquoted */
	char		started_by[NAMEDATALEN];
	char		caller[NAMEDATALEN];	/* the SQL function that started it */

	int			ntargets;
	BatchTarget targets[RANREAD_MAX_TARGETS];
	int			ngroups;
	bool		mix;			/* defined as a mix of groups */
	GroupParams groups[RANREAD_MAX_GROUPS];

	int			processes;		/* of all groups */
	int64		duration_ns;	/* 0 = until the iterations are done */
	Interval	duration;
	int64		warmup_ns;
	Interval	warmup;
	int64		seed;
	int			nworkers;
	RanreadEngine engine;		/* what every worker runs: settled by the
								 * leader once the streams are divided */
	bool		timing;			/* ranread.timing: per-I/O latency */
	bool		huge_pages;		/* ranread.huge_pages: buffers in huge pages */
	bool		register_buffers;	/* io_uring registers them (iobuf.c,
									 * ranread_iobuf_may_register) */
	int			nintervals;		/* per-second slots per worker and group */
	TimestampTz start_at;		/* start the I/O at this instant; 0 = when ready */
	int			ioprio;			/* io_priority for ioprio_set(2); 0 = not set */
	char		ioprio_text[32];	/* as given, for messages */
	int64		study;			/* ids of what the batch is part of; 0 = none */
	int64		fleet;
	int64		commit_test;
	char		point[RANREAD_POINT_LEN];	/* a study point's coordinates (JSON) */
	double		steady_pct;		/* steady_state: 0 = none */
	int			steady_window;	/* seconds */
	char		steady_text[32];
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
	bool		registered;		/* ... registered with its engine (io_uring) */
	uint64		late_ns;		/* its I/O started this long after the go */
	volatile uint64 ios;		/* progress: completed measured I/Os */
	char		message[RANREAD_MSG_LEN];
	/*
	 * Its measured window as it saw it (worker.c, worker_window): from the
	 * end of the warm-up to the end of its engine's run, on the monotonic
	 * clock; the CPU it used then (getrusage), and each target's device
	 * busy time (ms, io_ticks) and bytes read at either end (UINT64_MAX
	 * where not read)
	 */
	bool		window_done;	/* both ends were read */
	uint64		window_start_ns;
	uint64		window_end_ns;
	uint64		cpu_user_ns;
	uint64		cpu_sys_ns;
	uint64		dev_ticks_start[RANREAD_MAX_TARGETS];
	uint64		dev_ticks_end[RANREAD_MAX_TARGETS];
	uint64		dev_read_start[RANREAD_MAX_TARGETS];
	uint64		dev_read_end[RANREAD_MAX_TARGETS];
} WorkerSlot;

/* One second of one group's streams in one worker */
typedef struct IntervalSlot
{
	uint64		reads;
	uint64		writes;
	uint64		sum_ns;
	uint64		max_ns;
} IntervalSlot;

/*
 * Per-second latency histograms (docs/charts-and-reports.md, "Percentiles over
 * time"): the leader takes them, the recorder stores them
 * (ranread_intervals.histogram). The workers' hot loop is untouched: each
 * stream's histograms in StreamStats only grow, so once a second of the
 * measured part is over the leader merges every stream of a group (reads and
 * writes) and keeps the difference from its previous snapshot, sparse, in a
 * pool of this segment: second s's entries are HistSecondIndex [s][group] into
 * the pool.
 *
 * The race rule.  The leader reads each bucket with a single aligned load
 * while the workers may be adding to it: an I/O recorded while the leader
 * reads lands in this second or the next, never in both, never lost; the
 * leader wakes every 100 ms, so a second's histogram holds the I/Os
 * recorded between two snapshots about a second apart (their count may
 * differ from the interval's reads + writes, counted by completion time, by
 * the I/Os of that jitter).  The last second is the rest: the group's whole
 * histogram less the seconds before it, so that the seconds of a group sum
 * to its histogram's count exactly.  A leader that wakes more than a second
 * after a second ended (a stalled or starved backend) cannot tell which of
 * the seconds since its last snapshot an I/O belongs to: those seconds, and
 * the one in progress, are unknown (index first HSEC_UNKNOWN, histogram
 * NULL); at the next second's end it takes a fresh snapshot as the base and
 * goes on, so that one stall costs the seconds around it, not the rest of
 * the batch.  After an unknown second the last has no histogram either (the
 * rest would hold the unknown seconds' I/Os).  When the pool is full, that
 * second and every one after it have none.
 *
 * Publication: the leader writes a second's entries and index, then (after
 * a write barrier) raises hsec_done; the recorder reads hsec_done once and
 * reads only the seconds below it.
 */
typedef struct HistSecondEntry
{
	uint16		bucket;
	uint16		pad;
	uint32		count;
} HistSecondEntry;

typedef struct HistSecondIndex
{
	uint32		first;			/* into the pool; HSEC_UNKNOWN: not taken */
	uint32		n;
} HistSecondIndex;

#define HSEC_UNKNOWN	PG_UINT32_MAX

#define HIST_SECOND_AVG_ENTRIES	256 /* the pool's room per group and second */
#define HIST_SECOND_POOL_MAX	(2 * 1024 * 1024)	/* entries: 16 MB at most */

/*
 * One process (I/O stream): written only by the worker driving it.  Its
 * latency histograms: reads, then writes only in a batch where some group
 * writes (a read-only batch needs half the memory), so StreamStats lie
 * bs->stream_size apart.
 */
typedef struct StreamStats
{
	uint64		reads;
	uint64		writes;
	uint64		measure_ns;		/* its measured part starts (worker.c,
								 * worker_start_clock); 0: never started */
	uint64		first_ns;		/* start of its first measured I/O */
	uint64		last_ns;		/* completion of its last measured I/O */
	/* verify (verify.h): every I/O, warm-up included */
	uint64		verify_checked; /* pages read and checked */
	uint64		verify_skipped; /* pages read while a write of theirs was in flight */
	uint64		verify_bad[VERIFY_NKINDS];	/* bad blocks, each once, per VerifyKind
											 * (VERIFY_OK unused) */
	/* the server path: measured reads the caches answered (serverpath.h) */
	uint64		shared_hits;	/* found in shared buffers */
	uint64		cache_hits;		/* else in the page cache before it was asked for */
	RanreadHist hist[FLEXIBLE_ARRAY_MEMBER];	/* HIST_READS, HIST_WRITES */
} StreamStats;

#define HIST_READS	0
#define HIST_WRITES 1

static inline Size
stream_stats_size(bool writes)
{
	return MAXALIGN(offsetof(StreamStats, hist) + (writes ? 2 : 1) * sizeof(RanreadHist));
}

/* Figures of one process, one group or a whole batch */
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
	double		busy;			/* Little's law check; NaN where it does not apply */
	uint64		first_ns;		/* start of the first measured I/O; 0 none */
	bool		latency;		/* latency figures exist (some I/O was timed) */
	bool		read_latency;
	bool		write_latency;
	/* verify: pages read and checked or skipped; bad blocks, per VerifyKind */
	uint64		verify_checked;
	uint64		verify_skipped;
	uint64		verify_bad[VERIFY_NKINDS];
} RanreadFigures;

/*
 * The batch's dynamic shared memory: BatchShared, then the worker slots,
 * then StreamStats per process, then IntervalSlots per worker and group.
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
	TimestampTz go_at;			/* the same instant on the wall clock */
	uint64		measure_ns;		/* go_ns + warm-up */
	TimestampTz run_at;
	bool		running_row;	/* the recorder inserted the 'running' row */
	/* the block device under each target, "" if none (worker 0, at prepare) */
	char		device[RANREAD_MAX_TARGETS][32];
	/* the recorder's state, for the leader */
	RanreadStop status;			/* final status, set with the figures */
	char		message[RANREAD_MSG_LEN];
	bool		figures_ready;	/* total and group figures are final */
	RanreadFigures total;
	RanreadFigures group_fig[RANREAD_MAX_GROUPS];
	int			steady;			/* SNIA's verdict: 1 steady, 0 not, -1 too short */
	double		steady_excursion;	/* (max - min) / mean of the rounds' IOPS */
	double		steady_slope;	/* least-squares slope x 4 / mean */
	bool		ended_steady;	/* steady_state ended the run early */
	volatile bool record_blocked;	/* the recorder waits for a lock */
	char		blocked_by[RANREAD_MSG_LEN];
	volatile bool give_up_record;	/* leader or ranread_stop: stop trying */
	RecordState record_state;
	char		record_message[RANREAD_MSG_LEN];
	int			record_sqlstate;	/* the error that ended the recording, 0 if none */
	bool		record_marked;	/* the row was marked failed with record_message */

	VerifyShared verify;		/* verify.h: sequence, first bad blocks */
	Size		verify_off[RANREAD_MAX_TARGETS];	/* each verified target's
													 * per-block words; 0: none */
	Size		stream_off;
	Size		stream_size;	/* stream_stats_size(any group writes) */
	Size		interval_off;
	Size		hsec_index_off; /* per-second histograms: [nintervals][ngroups] */
	Size		hsec_pool_off;	/* and their entries */
	uint32		hsec_pool_size; /* entries the pool holds */
	uint32		hsec_used;		/* the leader's: entries used */
	volatile int hsec_done;		/* seconds published (see above) */
	bool		hsec_gaps;		/* one of them is unknown (see above) */
	WorkerSlot	workers[FLEXIBLE_ARRAY_MEMBER];
} BatchShared;

static inline StreamStats *
batch_stream(BatchShared *bs, int i)
{
	return (StreamStats *) ((char *) bs + bs->stream_off + (Size) i * bs->stream_size);
}

/* Does any group of the batch write? */
static inline bool
batch_writes(const BatchParams *p)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].write_pct > 0)
			return true;
	return false;
}

/* Does any group of the batch read through shared buffers (the server path)? */
static inline bool
batch_server_path(const BatchParams *p)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].path == PATH_SERVER)
			return true;
	return false;
}

/* Does any group of the batch read on the device path? */
static inline bool
batch_device_path(const BatchParams *p)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].path == PATH_DEVICE)
			return true;
	return false;
}

/* Does any group of the batch verify? */
static inline bool
batch_verifies(const BatchParams *p)
{
	for (int g = 0; g < p->ngroups; g++)
		if (p->groups[g].verify)
			return true;
	return false;
}

/* A process's write histogram: an empty one in a read-only batch */
static inline const RanreadHist *
stream_write_hist(BatchShared *bs, StreamStats *st)
{
	return bs->stream_size > stream_stats_size(false) ? &st->hist[HIST_WRITES] : &hist_empty;
}

/* The group a stream belongs to */
static inline int
batch_group_of(const BatchParams *p, int stream)
{
	int			g = 0;

	while (g + 1 < p->ngroups && stream >= p->groups[g + 1].first_stream)
		g++;
	return g;
}

/* The per-second slots of one worker and group */
static inline IntervalSlot *
batch_intervals(BatchShared *bs, int worker, int group)
{
	return (IntervalSlot *) ((char *) bs + bs->interval_off) +
		((Size) worker * bs->p.ngroups + group) * bs->p.nintervals;
}

/* The index entry of second s, group g's histogram */
static inline HistSecondIndex *
batch_hsec_index(BatchShared *bs, int s, int g)
{
	return (HistSecondIndex *) ((char *) bs + bs->hsec_index_off) + (Size) s * bs->p.ngroups + g;
}

static inline HistSecondEntry *
batch_hsec_pool(BatchShared *bs)
{
	return (HistSecondEntry *) ((char *) bs + bs->hsec_pool_off);
}

#endif							/* RANREAD_BATCH_H */
