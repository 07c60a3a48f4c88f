/*
 * run.c
 *		The SQL functions that run one batch and return its rows:
 *		ranread_run (the 1.0 and 1.1 signatures), ranread_mix,
 *		ranread_run_step (C: ranread_run_spec), and ranread_blocks (where a
 *		batch's I/Os would go, without running it).  Each reads its arguments
 *		into BatchParams (params.c, spec.c check them), hands the batch to
 *		the leader (leader.c), and builds its result rows from the figures
 *		the recorder computed.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "leader.h"
#include "params.h"
#include "worker.h"

PG_FUNCTION_INFO_V1(ranread_run);
PG_FUNCTION_INFO_V1(ranread_run_1_1);
PG_FUNCTION_INFO_V1(ranread_mix);
PG_FUNCTION_INFO_V1(ranread_run_spec);
PG_FUNCTION_INFO_V1(ranread_blocks);

/*
 * Read ranread_run's arguments into a one-group batch.  The 1.0 signature
 * has 14 arguments, and 1.0's ranread_run_step (its sweep's) adds the sweep
 * id; the 1.1 signature adds distribution, steady_state, sync and start_at.
 */
static void
run_args(FunctionCallInfo fcinfo, BatchParams *p, RunContext *rc, bool v11)
{
	GroupParams *g = &p->groups[0];

	rc->fn = !v11 && PG_NARGS() > 14 ? "ranread_sweep" : "ranread_run";
	params_owner(rc->fn, NULL);
	p->ngroups = 1;
	strlcpy(g->label, "main", NAMEDATALEN);

	params_require(PG_ARGISNULL(0), "processes");
	g->processes = PG_GETARG_INT32(0);
	params_range("processes", g->processes, 1, RANREAD_MAX_PROCESSES,
				 "processes is how many independent I/O streams run at once.");
	if (!PG_ARGISNULL(1))
	{
		g->iterations = PG_GETARG_INT64(1);
		params_range("iterations", g->iterations, 1, PG_INT64_MAX / 2,
					 "iterations is how many I/Os each process does.");
	}
	g->target = params_target(p, target_arg(fcinfo, 2, rc->fn));
	if (!PG_ARGISNULL(3))
	{
		p->duration = *PG_GETARG_INTERVAL_P(3);
		p->duration_ns = params_interval(&p->duration, "duration", false);
	}
	if (g->iterations == 0 && p->duration_ns == 0)
		g->iterations = RANREAD_DEFAULT_ITERATIONS;
	params_require(PG_ARGISNULL(4), "block_size");
	g->block_size = PG_GETARG_INT32(4);
	params_require(PG_ARGISNULL(5), "write_pct");
	g->write_pct = PG_GETARG_INT32(5);
	params_require(PG_ARGISNULL(6), "queue_depth");
	g->queue_depth = PG_GETARG_INT32(6);
	params_require(PG_ARGISNULL(7), "pattern");
	g->pattern = params_pattern(text_to_cstring(PG_GETARG_TEXT_PP(7)));
	params_require(PG_ARGISNULL(8), "region_start");
	params_require(PG_ARGISNULL(9), "region_end");
	params_region(g, PG_GETARG_FLOAT8(8), PG_GETARG_FLOAT8(9));
	if (!PG_ARGISNULL(10))
	{
		p->warmup = *PG_GETARG_INTERVAL_P(10);
		p->warmup_ns = params_interval(&p->warmup, "warmup", true);
	}
	params_check_group(g);
	params_rate(g, PG_ARGISNULL(11), PG_ARGISNULL(11) ? 0 : PG_GETARG_INT32(11), false);
	p->seed = params_seed(PG_ARGISNULL(12), PG_ARGISNULL(12) ? 0 : PG_GETARG_INT64(12));
	if (!PG_ARGISNULL(13))
	{
		rc->workers = PG_GETARG_INT32(13);
		params_range("workers", rc->workers, 1, g->processes,
					 "workers is how many background workers share the processes; NULL chooses.");
	}
	if (!v11 && PG_NARGS() > 14 && !PG_ARGISNULL(14))
		p->sweep = PG_GETARG_INT64(14);
	if (v11)
	{
		params_require(PG_ARGISNULL(14), "distribution");
		params_distribution(g, text_to_cstring(PG_GETARG_TEXT_PP(14)));
		if (!PG_ARGISNULL(15))
			params_steady(p, text_to_cstring(PG_GETARG_TEXT_PP(15)));
		if (!PG_ARGISNULL(16))
			g->sync = params_sync(text_to_cstring(PG_GETARG_TEXT_PP(16)));
		if (!PG_ARGISNULL(17))
			params_start_at(p, PG_GETARG_TIMESTAMPTZ(17));
	}
	else
		(void) blocks_parse("uniform", &g->blocks, NULL, 0);
	params_check_totals(p, rc->fn);
	params_check_batch(p, rc->fn);
}

/* Which engine runs, honouring ranread.engine */

/*
 * The eleven figure columns of ranread_run's and ranread_mix's rows, from
 * values[0] on: reads, writes, seconds, iops, mbps, avg_ms, p50_ms, p95_ms,
 * p99_ms, p999_ms, max_ms; the latencies NULL when the batch was not timed
 */
static void
figures_datums(const RanreadFigures *f, Datum *values, bool *nulls)
{
	values[0] = Int64GetDatum((int64) f->reads);
	values[1] = Int64GetDatum((int64) f->writes);
	values[2] = Float8GetDatum(f->seconds);
	values[3] = Float8GetDatum(f->iops);
	values[4] = Float8GetDatum(f->mbps);
	values[5] = Float8GetDatum(f->avg_ms);
	values[6] = Float8GetDatum(f->p50_ms);
	values[7] = Float8GetDatum(f->p95_ms);
	values[8] = Float8GetDatum(f->p99_ms);
	values[9] = Float8GetDatum(f->p999_ms);
	values[10] = Float8GetDatum(f->max_ms);
	for (int i = 5; i <= 10; i++)
		nulls[i] = !f->latency;
}

/* Build the result row from the batch's figures */
static Datum
result_row(FunctionCallInfo fcinfo, BatchShared *bs)
{
	const RanreadFigures *f = &bs->total;
	TupleDesc	tupdesc;
	Datum		values[15];
	bool		nulls[15];
	NameData   *tn = palloc(sizeof(NameData));

	memset(nulls, 0, sizeof(nulls));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	namestrcpy(tn, bs->p.targets[0].name);
	values[0] = Int64GetDatum(bs->p.batch);
	values[1] = NameGetDatum(tn);
	values[2] = Int32GetDatum(bs->p.processes);
	figures_datums(f, values + 3, nulls + 3);
	values[14] = CStringGetTextDatum(ranread_status_name(bs->status));
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
}

/*
 * ranread_run(processes, iterations, target, duration, block_size, write_pct,
 *			   queue_depth, pattern, region_start, region_end, warmup,
 *			   rate_iops, seed, workers [, sweep])
 */
Datum
ranread_run(PG_FUNCTION_ARGS)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	RunContext	rc;
	Datum		result;

	memset(&rc, 0, sizeof(rc));
	ranread_refuse_on_standby(PG_NARGS() > 14 ? "ranread_sweep" : "ranread_run");
	run_args(fcinfo, p, &rc, false);
	run_batch(p, &rc);
	result = result_row(fcinfo, rc.bs);
	dsm_detach(rc.seg);
	PG_RETURN_DATUM(result);
}

/*
 * ranread_run as of 1.1: the 1.0 arguments, then distribution,
 * steady_state, sync and start_at
 */
Datum
ranread_run_1_1(PG_FUNCTION_ARGS)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	RunContext	rc;
	Datum		result;

	memset(&rc, 0, sizeof(rc));
	ranread_refuse_on_standby("ranread_run");
	run_args(fcinfo, p, &rc, true);
	run_batch(p, &rc);
	result = result_row(fcinfo, rc.bs);
	dsm_detach(rc.seg);
	PG_RETURN_DATUM(result);
}

/* One row per group, then the batch's (grp 0), into a materialized set */
static void
group_rows(FunctionCallInfo fcinfo, BatchShared *bs)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *status = ranread_status_name(bs->status);

	InitMaterializedSRF(fcinfo, 0);
	for (int g = 0; g <= bs->p.ngroups; g++)
	{
		const RanreadFigures *f = g < bs->p.ngroups ? &bs->group_fig[g] : &bs->total;
		Datum		values[16];
		bool		nulls[16];

		memset(nulls, 0, sizeof(nulls));
		values[0] = Int64GetDatum(bs->p.batch);
		values[1] = Int32GetDatum(g < bs->p.ngroups ? g + 1 : 0);
		values[2] = CStringGetTextDatum(g < bs->p.ngroups ? bs->p.groups[g].label : "total");
		values[3] = Int32GetDatum(g < bs->p.ngroups ? bs->p.groups[g].processes : bs->p.processes);
		figures_datums(f, values + 4, nulls + 4);
		values[15] = CStringGetTextDatum(status);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * ranread_mix(groups, duration, warmup, seed, workers, steady_state, target,
 *			   iterations, start_at): several groups of processes in one batch
 */
Datum
ranread_mix(PG_FUNCTION_ARGS)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	RunContext	rc;

	memset(&rc, 0, sizeof(rc));
	rc.fn = "ranread_mix";
	ranread_refuse_on_standby(rc.fn);
	params_owner(rc.fn, NULL);
	if (!PG_ARGISNULL(1))
	{
		p->duration = *PG_GETARG_INTERVAL_P(1);
		p->duration_ns = params_interval(&p->duration, "duration", false);
	}
	if (!PG_ARGISNULL(2))
	{
		p->warmup = *PG_GETARG_INTERVAL_P(2);
		p->warmup_ns = params_interval(&p->warmup, "warmup", true);
	}
	p->seed = params_seed(PG_ARGISNULL(3), PG_ARGISNULL(3) ? 0 : PG_GETARG_INT64(3));
	if (!PG_ARGISNULL(4))
	{
		rc.workers = PG_GETARG_INT32(4);
		params_range("workers", rc.workers, 1, RANREAD_MAX_PROCESSES,
					 "workers is how many background workers share the processes; NULL chooses.");
	}
	if (!PG_ARGISNULL(5))
		params_steady(p, text_to_cstring(PG_GETARG_TEXT_PP(5)));
	if (!PG_ARGISNULL(7))
		params_range("iterations", PG_GETARG_INT64(7), 1, PG_INT64_MAX / 2,
					 "iterations is how many I/Os each process does.");
	if (PG_ARGISNULL(1) && PG_ARGISNULL(7))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ranread_mix needs a duration or iterations"),
				 errhint("The groups of a mix share the batch's duration, such as '30s'.")));
	if (!PG_ARGISNULL(8))
	{
		params_owner(rc.fn, NULL);
		params_start_at(p, PG_GETARG_TIMESTAMPTZ(8));
	}
	p->mix = true;
	spec_groups(p, PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), rc.fn,
				target_arg(fcinfo, 6, rc.fn), PG_ARGISNULL(7) ? 0 : PG_GETARG_INT64(7), true);
	params_check_batch(p, rc.fn);
	if (rc.workers != 0)
		params_range("workers", rc.workers, 1, p->processes,
					 "workers is how many background workers share the processes (of all groups); NULL chooses.");
	run_batch(p, &rc);
	group_rows(fcinfo, rc.bs);
	dsm_detach(rc.seg);
	return (Datum) 0;
}

/* ranread_run_step(spec): a batch described as JSON, for sweeps and studies */
Datum
ranread_run_spec(PG_FUNCTION_ARGS)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	RunContext	rc;

	memset(&rc, 0, sizeof(rc));
	rc.fn = spec_batch(p, PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), &rc.workers);
	ranread_refuse_on_standby(rc.fn);
	params_check_batch(p, rc.fn);
	if (rc.workers != 0)
		params_range("workers", rc.workers, 1, p->processes,
					 "workers is how many background workers share the processes; NULL chooses.");
	run_batch(p, &rc);
	group_rows(fcinfo, rc.bs);
	dsm_detach(rc.seg);
	return (Datum) 0;
}

/*
 * ranread_blocks(processes, n, target, block_size, pattern, region_start,
 *				  region_end, seed [, distribution]): where each process's
 * first n I/Os go, as byte offsets in the target.  No I/O is done; the
 * offsets come from the engines' own block choice, so users and tests can
 * see the region, the seed and the distribution's hot blocks at work.
 */
Datum
ranread_blocks(PG_FUNCTION_ARGS)
{
	static const char *const names[] = {"processes", "n", "target", "block_size", "pattern",
	"region_start", "region_end", "seed"};
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchParams *p = palloc0(sizeof(BatchParams));
	GroupParams *g = &p->groups[0];
	int			n;
	int64	   *offsets;

	params_owner("ranread_blocks", NULL);
	for (int i = 0; i < lengthof(names); i++)
		if (i != 2)
			params_require(PG_ARGISNULL(i), names[i]);
	p->ngroups = 1;
	g->processes = PG_GETARG_INT32(0);
	params_range("processes", g->processes, 1, RANREAD_MAX_PROCESSES, NULL);
	n = PG_GETARG_INT32(1);
	params_range("n", n, 1, 1000000, NULL);
	g->target = params_target(p, target_arg(fcinfo, 2, "ranread_blocks"));
	g->block_size = PG_GETARG_INT32(3);
	params_range("block_size", g->block_size, 512, RANREAD_MAX_BLOCK_SIZE, NULL);
	g->pattern = params_pattern(text_to_cstring(PG_GETARG_TEXT_PP(4)));
	params_region(g, PG_GETARG_FLOAT8(5), PG_GETARG_FLOAT8(6));
	p->seed = PG_GETARG_INT64(7);
	g->queue_depth = 1;
	if (PG_NARGS() > 8)
	{
		params_require(PG_ARGISNULL(8), "distribution");
		params_distribution(g, text_to_cstring(PG_GETARG_TEXT_PP(8)));
	}
	else
		(void) blocks_parse("uniform", &g->blocks, NULL, 0);
	params_check_totals(p, "ranread_blocks");
	params_resolve(p, "ranread_blocks");

	InitMaterializedSRF(fcinfo, 0);
	offsets = palloc(sizeof(int64) * n);
	for (int s = 0; s < g->processes; s++)
	{
		worker_plan(p, s, n, offsets);
		for (int i = 0; i < n; i++)
		{
			Datum		values[3];
			bool		nulls[3] = {false, false, false};

			values[0] = Int32GetDatum(s + 1);
			values[1] = Int32GetDatum(i + 1);
			values[2] = Int64GetDatum(offsets[i]);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	}
	return (Datum) 0;
}
