/*
 * progress.h
 *		What runs now, for ranread_progress (progress.c): each backend's
 *		work (a batch it leads, a setup, a verify) and the call around it
 *		(a sweep's step, a study's point, a fleet's phase), published in a
 *		small block of shared memory for any session to read.
 */
#ifndef RANREAD_PROGRESS_H
#define RANREAD_PROGRESS_H

#include "postgres.h"

#include "utils/timestamp.h"

#include "histogram.h"

/* slots in the cluster: a backend without one reports nothing */
#define RANREAD_PROGRESS_SLOTS	32
#define RANREAD_PROGRESS_NAME	24

/*
 * The longest time left said (seconds, 100 years): past it, a time left is
 * not known (NULL in ranread_progress, not in the NOTICE).  A batch by
 * iterations at a low rate (or a caller of ranread_progress_call) may
 * count farther than an interval or a timestamp holds; no reader of the
 * view may get an error for it (docs/design.md, "Progress").
 */
#define RANREAD_PROGRESS_MAX_LEFT	(100 * 365.25 * 86400.0)

/* A backend's work as its owner publishes it (all times in seconds) */
typedef struct ProgressWork
{
	char		kind[RANREAD_PROGRESS_NAME];	/* run, probe, commit_test, sweep,
												 * study, fleet, setup, verify */
	int64		id;				/* the call's id (the batch's for a run); 0 none */
	char		target[NAMEDATALEN];	/* the (first) target */
	int64		batch;			/* 0: none */
	uint64		claim;			/* the control block's claim of the batch */
	char		phase[RANREAD_PROGRESS_NAME];
	int			processes;
	uint64		ios;			/* measured I/Os so far */
	double		seconds;		/* measured seconds so far */
	double		iops;			/* over the last seconds; < 0 not known yet */
	double		p99_ms;			/* the last seconds' p99; < 0 not known */
	uint64		bytes_done;		/* setup and verify */
	uint64		bytes_total;
	double		remaining;		/* seconds left of this work; < 0 not known */
} ProgressWork;

/* The call's part, as its PL/pgSQL says it (ranread_progress_call) */
typedef struct ProgressCall
{
	int			kind;			/* RanreadCallKind; -1 none */
	int64		id;
	char		phase[RANREAD_PROGRESS_NAME];
	int			step;			/* 0: none */
	int			steps;
	double		after;			/* seconds the call needs after this step; < 0 not known */
	TimestampTz until;			/* this phase ends about then (no batch here); 0 not known */
} ProgressCall;

/* The leader's watch of its batch (progress_batch.c) */
#define PROGRESS_SAMPLES	6	/* one a second: the last 5 s */
#define PROGRESS_NOTICE_NS	((uint64) 5 * 1000000000)

typedef struct ProgressWatch
{
	char		kind[RANREAD_PROGRESS_NAME];
	int64		id;
	uint64		next_notice;
	int			nsamples;
	uint64		sample_ns[PROGRESS_SAMPLES];
	uint64		sample_ios[PROGRESS_SAMPLES];
	int			p99_done;		/* hsec_done when p99_ms was taken */
	double		p99_ms;
	RanreadHist *hist;			/* scratch for the recent seconds */
} ProgressWatch;

struct BatchShared;
struct BatchParams;
extern void batch_progress_begin(const struct BatchParams *p, ProgressWatch *pw);
extern void batch_progress_watch(struct BatchShared *bs, ProgressWatch *pw, uint64 now, int level);

extern void progress_work_begin(const char *kind, int64 id, const char *target, int64 batch,
								uint64 claim, const char *phase, int processes, double remaining);
extern void progress_bytes(const char *phase, uint64 done, uint64 total, double seconds);
extern void progress_work_update(const ProgressWork *w);
extern void progress_work_end(void);
extern bool progress_call_of_mine(ProgressCall *out);

#endif							/* RANREAD_PROGRESS_H */
