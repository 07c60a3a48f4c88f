/*
 * compare.h
 *		Two latency histograms compared (compare.c says how).
 */
#ifndef RANREAD_COMPARE_H
#define RANREAD_COMPARE_H

#include "histogram.h"

typedef struct RanreadComparison
{
	const char *verdict;		/* "same", "slower" or "faster" */
	const char *decided_by;		/* "p50", "p99"; NULL when same */
	double		factor;			/* b's percentile over a's */
	double		factor_low;		/* its interval, at 1 - alpha at least */
	double		factor_high;
	double		confidence;		/* 1 - p_value, to 0.0001 */
	double		p_value;		/* of the test that decided; the smaller when same */
	uint64		n_a;
	uint64		n_b;
	double		p50_a_ms;
	double		p50_b_ms;
	double		p50_ratio;
	double		p99_a_ms;
	double		p99_b_ms;
	double		p99_ratio;
	double		shift;			/* U / (n_a n_b): P(an I/O of b is slower) */
	double		u_z;
	double		u_p;			/* Mann-Whitney, Bonferroni-doubled */
	double		tail_a;			/* shares above the pooled p99's bucket */
	double		tail_b;
	double		tail_z;
	double		tail_p;			/* two-proportion test, doubled */
} RanreadComparison;

/* A percentile judged against a bound (compare_threshold) */
typedef struct RanreadThreshold
{
	uint64		n;				/* I/Os */
	uint64		above;			/* slower than the bound */
	double		share;			/* above / n */
	double		allowed;		/* the share above the bound the percentile allows */
	double		share_low;		/* Wilson interval of share, at 1 - alpha */
	double		share_high;
	double		p_value;		/* P(so many above | share = allowed) */
	uint64		min_ios;		/* the fewest I/Os that can judge the percentile */
	const char *verdict;		/* "above", "within" or "too few" */
} RanreadThreshold;

extern void compare_hists(const RanreadHist *a, const RanreadHist *b,
						  double min_factor, double alpha, RanreadComparison *r);
extern void compare_check_settings(double min_factor, double alpha);
extern void compare_threshold(const RanreadHist *h, double bound_ms, double pct,
							  double alpha, RanreadThreshold *t);
extern double compare_binom_sf(uint64 n, uint64 k, double p);
extern void compare_percentile_interval(const RanreadHist *h, double pct, double conf,
										double *low, double *high);

#endif							/* RANREAD_COMPARE_H */
