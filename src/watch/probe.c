/*
 * probe.c
 *		The cap on what a probe may cost (docs/keeping-watch.md, "Keeping
 *		watch").
 *
 * A probe (ranread_probe, sql/code/61_probe.sql) is a small paced
 * read-only batch that a monitoring role runs on a production server, by
 * hand or from pg_cron.  What it may cost is capped by two settings that
 * only a superuser sets (PGC_SUSET, ranread.c): ranread.probe_max_iops and
 * ranread.probe_max_seconds.  A role granted the probe but not ranread_run
 * therefore cannot make it heavier than the DBA allows.  The check is C,
 * so that calling it loads the library and with it the settings: a
 * PL/pgSQL current_setting() would find no setting before that.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_probe_check);

/*
 * ranread_internal.ranread_probe_check(fn text, rate_iops integer,
 * duration interval): refuse a probe above the cap, naming the argument,
 * the value and the cap; NULLs are refused too (a probe is paced and ends)
 */
Datum
ranread_probe_check(PG_FUNCTION_ARGS)
{
	const char *fn = PG_ARGISNULL(0) ? "ranread_probe" : text_to_cstring(PG_GETARG_TEXT_PP(0));
	Interval   *d;
	double		seconds;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("rate_iops of %s must not be null", fn),
				 errhint("A probe is paced: rate_iops is its I/Os per second, 1 to ranread.probe_max_iops (%d), such as 200.",
						 ranread_probe_max_iops_guc)));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("duration of %s must not be null", fn),
				 errhint("A probe runs for a duration of at most ranread.probe_max_seconds (%d s), such as '10s'.",
						 ranread_probe_max_seconds_guc)));
	if (PG_GETARG_INT32(1) < 1 || PG_GETARG_INT32(1) > ranread_probe_max_iops_guc)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("rate_iops of %s must be between 1 and %d (ranread.probe_max_iops), not %d",
						fn, ranread_probe_max_iops_guc, PG_GETARG_INT32(1)),
				 errhint("The cap keeps a probe light on a production server; a superuser may raise ranread.probe_max_iops.")));
	d = PG_GETARG_INTERVAL_P(2);
	seconds = ((double) d->month * 30 + d->day) * SECS_PER_DAY + (double) d->time / USECS_PER_SEC;
	if (seconds > ranread_probe_max_seconds_guc)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration of %s must be at most %d seconds (ranread.probe_max_seconds), not %s",
						fn, ranread_probe_max_seconds_guc,
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(d)))),
				 errhint("The cap keeps a probe light on a production server; a superuser may raise ranread.probe_max_seconds.")));
	PG_RETURN_VOID();
}
