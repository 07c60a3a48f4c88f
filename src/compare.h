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
	double		confidence;		/* 1 - p_value */
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

extern void compare_hists(const RanreadHist *a, const RanreadHist *b,
						  double min_factor, double alpha, RanreadComparison *r);
extern void compare_check_settings(double min_factor, double alpha);

#endif							/* RANREAD_COMPARE_H */
