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
#include "funcapi.h"
#include "utils/tuplestore.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_probe_check);
PG_FUNCTION_INFO_V1(ranread_probe_caps);

/*
 * The caps, once: what the checks below refuse and what ranread_help
 * ('ranread_probe') says is allowed (ranread_probe_caps), so that the help
 * cannot name a range the probe refuses.  The lowest duration is every
 * batch's (src/options.tsv).
 */
typedef struct ProbeCap
{
	const char *argument;		/* ranread_probe's argument */
	const char *setting;		/* the GUC that caps it */
	const int  *cap;			/* its variable (ranread.c) */
	const char *low;			/* the lowest value allowed, in words */
	const char *unit;			/* the cap's unit, in words */
} ProbeCap;

static const ProbeCap probe_caps[] = {
	{"rate_iops", "ranread.probe_max_iops", &ranread_probe_max_iops_guc, "1", ""},
	{"duration", "ranread.probe_max_seconds", &ranread_probe_max_seconds_guc, "10 ms", " s"},
};

#define CAP_IOPS (&probe_caps[0])
#define CAP_SECONDS (&probe_caps[1])

/*
 * ranread_internal.ranread_probe_caps(): one row per capped argument of
 * ranread_probe: argument, allowed ("1 to 1000 (ranread.probe_max_iops)"),
 * the setting and its value now
 */
Datum
ranread_probe_caps(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < (int) lengthof(probe_caps); i++)
	{
		const ProbeCap *c = &probe_caps[i];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		values[0] = CStringGetTextDatum(c->argument);
		values[1] = CStringGetTextDatum(psprintf("%s to %d%s (%s)", c->low, *c->cap, c->unit, c->setting));
		values[2] = CStringGetTextDatum(c->setting);
		values[3] = Int32GetDatum(*c->cap);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

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
				 errhint("A probe is paced: rate_iops is its I/Os per second, 1 to %s (%d), such as 200.",
						 CAP_IOPS->setting, *CAP_IOPS->cap)));
	if (PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("duration of %s must not be null", fn),
				 errhint("A probe runs for a duration of at most %s (%d s), such as '10s'.",
						 CAP_SECONDS->setting, *CAP_SECONDS->cap)));
	if (PG_GETARG_INT32(1) < 1 || PG_GETARG_INT32(1) > *CAP_IOPS->cap)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be between 1 and %d (%s), not %d",
						CAP_IOPS->argument, fn, *CAP_IOPS->cap, CAP_IOPS->setting, PG_GETARG_INT32(1)),
				 errhint("The cap keeps a probe light on a production server; a superuser may raise %s.",
						 CAP_IOPS->setting)));
	d = PG_GETARG_INTERVAL_P(2);
	seconds = ((double) d->month * 30 + d->day) * SECS_PER_DAY + (double) d->time / USECS_PER_SEC;
	if (seconds > *CAP_SECONDS->cap)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be at most %d seconds (%s), not %s",
						CAP_SECONDS->argument, fn, *CAP_SECONDS->cap, CAP_SECONDS->setting,
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(d)))),
				 errhint("The cap keeps a probe light on a production server; a superuser may raise %s.",
						 CAP_SECONDS->setting)));
	PG_RETURN_VOID();
}
