/*
 * params.h
 *		What a batch does, from the SQL arguments, checked (params.c).
 */
#ifndef RANREAD_PARAMS_H
#define RANREAD_PARAMS_H

#include "ranread.h"
#include "batch.h"
#include "target.h"

struct WorkloadOption;

extern void params_owner(const char *fn, const char *group);

/* The most bytes of a value an error prints (params_shown) */
#define PARAMS_SHOWN_MAX 64
extern const char *params_shown(const char *value);
extern void params_require(bool isnull, const char *name);
extern void params_range(const char *name, int64 value, int64 lo, int64 hi, const char *hint);
extern void params_option_range(const struct WorkloadOption *o, int64 value, const char *hint);
extern int64 params_interval(const Interval *iv, const char *name, bool allow_zero);
extern int64 params_interval_hint(const Interval *iv, const char *name, bool allow_zero,
								  const char *hint);
extern RanreadPattern params_pattern(const char *pat);
extern RanreadPath params_path(const char *path);
extern void params_distribution(GroupParams *g, const char *text);
extern const char *const ranread_sync_names[RANREAD_NSYNC];
extern RanreadSync params_sync(const char *text);
extern void params_start_at(BatchParams *p, TimestampTz at);
extern void params_io_priority(BatchParams *p, const char *text);
extern void params_region(GroupParams *g, double start, double end);
extern void params_check_group(GroupParams *g);
extern void params_rate(GroupParams *g, bool isnull, int rate, bool in_mix);
extern void params_check_totals(BatchParams *p, const char *fn);
extern int	params_target(BatchParams *p, const char *name);
extern void params_resolve(BatchParams *p, const char *fn);
extern int64 params_seed(bool isnull, int64 given);
extern void params_steady(BatchParams *p, const char *text);
extern void params_check_batch(BatchParams *p, const char *fn);

#endif							/* RANREAD_PARAMS_H */
