/*
 * figures.h
 *		A batch's figures from its counts and histograms (figures.c).
 */
#ifndef RANREAD_FIGURES_H
#define RANREAD_FIGURES_H

#include "access/tupdesc.h"

#include "batch.h"

/* Below this share of busy streams a batch warns (Little's law) */
#define FIGURES_BUSY_MIN	0.98

extern void figures_from_hists(RanreadFigures *f, const RanreadHist *r,
							   const RanreadHist *w, RanreadHist *all,
							   uint64 reads, uint64 writes, double seconds,
							   int block_size);
extern double figures_stream_seconds(BatchShared *bs, int stream);
extern void figures_stream(BatchShared *bs, int stream, RanreadFigures *f, RanreadHist *all);
extern void figures_conclude(BatchShared *bs, RanreadStop ended, RanreadHist *all,
							 RanreadHist *writes);
extern uint64 figures_verify_errors(const RanreadFigures *f);
extern bool figures_busy_low(const RanreadFigures *f, int slots);
extern uint64 figures_second_ios(BatchShared *bs, int second);
/*
 * SNIA's steady-state rule needs five rounds of at least this many whole
 * seconds and I/Os each, or the run is too short to judge (figures.c)
 */
#define FIGURES_STEADY_ROUND_SECONDS	2
#define FIGURES_STEADY_ROUND_IOS		100

extern bool figures_snia(const double *rounds, double *excursion, double *slope);
extern int	figures_steady_judge(const double *rounds, double round_seconds,
								 double *excursion, double *slope);
extern char *figures_steady_text(int verdict, double excursion, double slope,
								 double round_seconds, double round_ios);
extern char *figures_steady_words(BatchShared *bs);
extern bool figures_steady_now(BatchShared *bs, int complete);
extern Datum figures_datum(TupleDesc desc, int attno, double v, bool *isnull);
extern char *figures_text(double v, int places);

#endif							/* RANREAD_FIGURES_H */
