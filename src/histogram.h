/*
 * histogram.h
 *		Fixed-size log-linear latency histogram.
 *
 * Values are nanoseconds.  Below 2^HIST_SUB_BITS ns every value has its own
 * bucket; above, each power of two is split into 2^HIST_SUB_BITS equal
 * buckets, so a bucket is at most 1/64 of its lower bound wide and its
 * midpoint is within 0.8% of any value in it.  The top bucket ends at 2^37 ns
 * (137 s); longer latencies are clamped into it (and the exact maximum is
 * kept beside the histogram, so reported maxima are never clamped).
 *
 * Recording is one branch, a count-leading-zeros, an increment and a
 * multiply-add: cheap enough for the hot loop.
 *
 * The sum of squared latencies is exact (128-bit integers), so the standard
 * deviation (hist_stddev_ms) is the exact one of the values recorded, not
 * one estimated from the buckets.  It lives only in memory: the stored form
 * (histogram.c) keeps count, sum, min, max and the buckets, so a histogram
 * read back from the history has no sum of squares (sumsq_known false), and
 * the history keeps the standard deviation in its own column instead.
 */
#ifndef RANREAD_HISTOGRAM_H
#define RANREAD_HISTOGRAM_H

#include "c.h"

#define HIST_SUB_BITS	6
#define HIST_SUB		(1 << HIST_SUB_BITS)
#define HIST_MAX_BIT	37			/* values up to 2^37 ns = 137 s */
#define HIST_BUCKETS	((HIST_MAX_BIT - HIST_SUB_BITS + 1) * HIST_SUB)
/* values a stored histogram may hold (2^48: years of I/O at any rate) */
#define HIST_MAX_COUNT	(UINT64CONST(1) << 48)

/* The sum of squared nanoseconds: exact where the compiler has 128 bits */
#ifdef HAVE_INT128
typedef uint128 hist_sumsq_t;
#else
typedef long double hist_sumsq_t;
#endif

typedef struct RanreadHist
{
	uint64		count;			/* total values recorded */
	uint64		sum_ns;			/* for exact averages */
	uint64		min_ns;
	uint64		max_ns;
	hist_sumsq_t sumsq_ns2;		/* sum of squared values, for the std. dev. */
	bool		sumsq_known;	/* false when read back from the stored form */
	uint64		buckets[HIST_BUCKETS];
} RanreadHist;

/* Bucket index of a value in nanoseconds */
static inline int
hist_index(uint64 ns)
{
	int			msb;

	if (ns < HIST_SUB)
		return (int) ns;
	if (ns >= ((uint64) 1 << HIST_MAX_BIT))
		return HIST_BUCKETS - 1;
	msb = 63 - __builtin_clzll(ns);
	return ((msb - HIST_SUB_BITS) << HIST_SUB_BITS) +
		(int) (ns >> (msb - HIST_SUB_BITS));
}

/* Record one latency */
static inline void
hist_add(RanreadHist *h, uint64 ns)
{
	h->buckets[hist_index(ns)]++;
	h->count++;
	h->sum_ns += ns;
	h->sumsq_ns2 += (hist_sumsq_t) ns * ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

extern void hist_reset(RanreadHist *h);
extern const RanreadHist hist_empty;	/* no values: what hist_reset makes */
extern void hist_merge(RanreadHist *dst, const RanreadHist *src);
extern uint64 hist_bucket_low(int idx);
extern uint64 hist_bucket_high(int idx);
extern double hist_percentile_ms(const RanreadHist *h, double pct);
extern double hist_avg_ms(const RanreadHist *h);
extern double hist_stddev_ms(const RanreadHist *h);
extern bytea *hist_to_bytea(const RanreadHist *h);
extern void hist_from_bytea(RanreadHist *h, const bytea *b, const char *fn);

#endif							/* RANREAD_HISTOGRAM_H */
