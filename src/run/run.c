/*
 * run.c
 *		The SQL functions that run one batch and return its rows:
 *		ranread_run (1.0's and 1.1's signatures, and 1.0's sweep step
 *		ranread_run_step), ranread_mix, ranread_run_step (a spec as it is;
 *		ranread_step_as, the probe's, led as the role that called the
 *		probe), and ranread_blocks (where a batch's I/Os would go, without
 *		running it).  Each hands on its workload as one spec: its arguments are
 *		packed by name (forward.c) and the spec read through the option table
 *		(workload.c); the batch goes to the leader (leader.c), and the rows
 *		are built from the figures the recorder computed.
 *
 * Versioned entry points, as pg_stat_statements keeps them: the C symbol
 * ranread_run is 1.0's, for its ranread_run (14 arguments) and for the
 * ranread_run_step its sweep runs (15: the sweep id last, which 1.0's sweep
 * does not register, and errors name ranread_sweep); ranread_run_1_1 is
 * 1.1's ranread_run.  Neither counts arguments: the packing reads their
 * names, and an option a signature lacks takes its default.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "figures.h"
#include "forward.h"
#include "leader.h"
#include "params.h"
#include "worker.h"

PG_FUNCTION_INFO_V1(ranread_run);
PG_FUNCTION_INFO_V1(ranread_run_1_1);
PG_FUNCTION_INFO_V1(ranread_mix);
PG_FUNCTION_INFO_V1(ranread_run_step);
PG_FUNCTION_INFO_V1(ranread_run_step_as);
PG_FUNCTION_INFO_V1(ranread_blocks);

/* Which SQL script's signature called */
typedef enum RanreadApi
{
	RANREAD_API_1_0,
	RANREAD_API_1_1
} RanreadApi;

/*
 * The eleven figure columns of ranread_run's and ranread_mix's rows, from
 * values[first] on: reads, writes, seconds, iops, mbps, avg_ms, p50_ms,
 * p95_ms, p99_ms, p999_ms, max_ms, each as desc declares it (rounded for a
 * person, whole for ranread_run_step: figures_datum); the latencies NULL
 * when the batch was not timed
 */
static void
figures_datums(const RanreadFigures *f, TupleDesc desc, int first, Datum *values, bool *nulls)
{
	const double fig[9] = {f->seconds, f->iops, f->mbps, f->avg_ms, f->p50_ms,
	f->p95_ms, f->p99_ms, f->p999_ms, f->max_ms};

	values[first] = Int64GetDatum((int64) f->reads);
	values[first + 1] = Int64GetDatum((int64) f->writes);
	for (int i = 0; i < 9; i++)
		values[first + 2 + i] = figures_datum(desc, first + 2 + i, fig[i], &nulls[first + 2 + i]);
	for (int i = 5; i <= 10; i++)
		if (!f->latency)
			nulls[first + i] = true;
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
	figures_datums(f, tupdesc, 3, values, nulls);
	values[14] = CStringGetTextDatum(ranread_status_name(bs->status));
	return HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls));
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
		figures_datums(f, rsinfo->setDesc, 4, values, nulls);
		values[15] = CStringGetTextDatum(status);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* The caller a spec names (ranread_run_step's), or NULL */
static const char *
spec_caller(FunctionCallInfo fcinfo, const ForwardInfo *fi)
{
	int			s = forward_arg(fi, "spec");
	Jsonb	   *spec;
	JsonbValue *v;

	if (s < 0 || PG_ARGISNULL(s))
		return NULL;
	spec = PG_GETARG_JSONB_P(s);
	if (!JB_ROOT_IS_OBJECT(spec))
		return NULL;
	v = getKeyJsonValueFromContainer(&spec->root, "caller", 6, NULL);
	return v && v->type == jbvString ? pnstrdup(v->val.string.val, v->val.string.len) : NULL;
}

/*
 * Run one batch from the called function's arguments: a function of one row
 * (ranread_run) gets its one group labelled main and the batch's row; the
 * others (ranread_mix, ranread_run_step) one row per group and the batch's.
 * A function with groups is a mix: its groups are named in errors, and it
 * needs a duration or iterations.
 */
static Datum
run_entry(FunctionCallInfo fcinfo, RanreadApi api)
{
	ForwardInfo *fi = forward_info(fcinfo);
	BatchParams *p = palloc0(sizeof(BatchParams));
	bool		one_row = !fcinfo->flinfo->fn_retset;
	const char *caller = fi->fn;
	int			flags = 0;
	RunContext	rc;
	Datum		result = (Datum) 0;

	memset(&rc, 0, sizeof(rc));
	if (api == RANREAD_API_1_0 && forward_arg(fi, "sweep") >= 0)
	{
		caller = "ranread_sweep";
		flags |= WORKLOAD_TRUST_SWEEP;
	}
	if (spec_caller(fcinfo, fi))
		caller = spec_caller(fcinfo, fi);
	if (forward_arg(fi, "groups") >= 0)
		flags |= WORKLOAD_MIX;
	ranread_refuse_on_standby(caller);
	forward_require_options(fcinfo, fi, caller);
	rc.fn = workload_batch(p, forward_spec(fcinfo, fi, caller, one_row ? "main" : NULL), &rc.workers, flags);
	run_batch(p, &rc);
	if (one_row)
		result = result_row(fcinfo, rc.bs);
	else
		group_rows(fcinfo, rc.bs);
	dsm_detach(rc.seg);
	return result;
}

/* 1.0's ranread_run and ranread_run_step */
Datum
ranread_run(PG_FUNCTION_ARGS)
{
	return run_entry(fcinfo, RANREAD_API_1_0);
}

/* 1.1's ranread_run: 1.0's arguments, then distribution, steady_state, sync, start_at */
Datum
ranread_run_1_1(PG_FUNCTION_ARGS)
{
	return run_entry(fcinfo, RANREAD_API_1_1);
}

/* ranread_mix(groups, duration, warmup, seed, workers, steady_state, target, iterations, start_at) */
Datum
ranread_mix(PG_FUNCTION_ARGS)
{
	return run_entry(fcinfo, RANREAD_API_1_1);
}

/* ranread_run_step(spec): a batch described as JSON, for the functions that run many */
Datum
ranread_run_step(PG_FUNCTION_ARGS)
{
	return run_entry(fcinfo, RANREAD_API_1_1);
}

/* ranread_blocks' state between calls: the stream being drawn and where */
typedef struct BlocksState
{
	BatchParams *p;
	int			n;				/* I/Os per process */
	int			process;		/* 0-based: the stream being drawn */
	int			seq;			/* 0-based: its next I/O */
	WorkerPlan *plan;			/* that stream's block choice */
} BlocksState;

/*
 * Read and check ranread_blocks' arguments into a new BlocksState; the
 * offsets returned are at most RANREAD_MAX_BLOCK_ROWS, processes x n
 */
static BlocksState *
blocks_begin(FunctionCallInfo fcinfo)
{
	ForwardInfo *fi = forward_info(fcinfo);
	BlocksState *bst = palloc0(sizeof(BlocksState));
	int			n_arg = forward_arg(fi, "n");
	int			seed_arg = forward_arg(fi, "seed");
	int			workers;

	forward_require_options(fcinfo, fi, fi->fn);
	workload_require(PG_ARGISNULL(n_arg), "n", fi->fn, "n is how many I/Os of each process to show: 1 to 1000000.");
	bst->n = PG_GETARG_INT32(n_arg);
	params_owner(fi->fn, NULL);
	params_range("n", bst->n, 1, RANREAD_MAX_BLOCK_ROWS, NULL);
	workload_require(PG_ARGISNULL(seed_arg), "seed", fi->fn,
					 "The same seed gives the same offsets: give any bigint, such as 0 (the default).");
	bst->p = palloc0(sizeof(BatchParams));
	(void) workload_batch(bst->p, forward_spec(fcinfo, fi, fi->fn, NULL), &workers, 0);
	if ((int64) bst->p->groups[0].processes * bst->n > RANREAD_MAX_BLOCK_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes %d times n %d of %s is " INT64_FORMAT " offsets, more than %d",
						bst->p->groups[0].processes, bst->n, fi->fn,
						(int64) bst->p->groups[0].processes * bst->n, RANREAD_MAX_BLOCK_ROWS),
				 errhint("Lower processes or n: each process's offsets are drawn apart, "
						 "so a few processes show how the streams differ.")));
	params_resolve(bst->p, fi->fn);
	return bst;
}

/*
 * ranread_internal.ranread_step_as(spec, role): ranread_run_step's batch,
 * led as role.  The probe (sql/code/61_probe.sql) is SECURITY DEFINER, so
 * that a role granted 'probe' needs neither ranread_run_step (no cap) nor
 * INSERT on ranread_probes; its batch is nonetheless the role's that called
 * it, not the extension owner's: started_by, the claim's errors and
 * ranread_stop's rule (ranread.c) name that role.  Only a superuser (the
 * owner, inside the probe) calls it, and it only lowers what the batch runs
 * as; every privilege check of the batch is made as that role.
 */
Datum
ranread_run_step_as(PG_FUNCTION_ARGS)
{
	ForwardInfo *fi = forward_info(fcinfo);
	int			role = forward_arg(fi, "role");
	Oid			saved_user;
	int			saved_sec;
	Datum		result = (Datum) 0;

	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for function ranread_step_as"),
				 errhint("It is the probe's own: ranread_probe runs its batch as the role that called it.")));
	if (role < 0 || PG_ARGISNULL(role))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("role of ranread_step_as must not be null")));
	GetUserIdAndSecContext(&saved_user, &saved_sec);
	SetUserIdAndSecContext(PG_GETARG_OID(role), saved_sec | SECURITY_LOCAL_USERID_CHANGE);
	PG_TRY();
	{
		result = run_entry(fcinfo, RANREAD_API_1_1);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(saved_user, saved_sec);
	}
	PG_END_TRY();
	return result;
}

/*
 * ranread_blocks(processes, n, target, block_size, pattern, region_start,
 *				  region_end, seed [, distribution]): where each process's
 * first n I/Os go, as byte offsets in the target.  No I/O is done; the
 * offsets come from the engines' own block choice, so users and tests can
 * see the region, the seed and the distribution's hot blocks at work.
 * A row per call, drawn when asked for (a caller that stops reading draws
 * no more), at most RANREAD_MAX_BLOCK_ROWS in all (docs/design.md, "What any
 * role may call": no call's work grows past a stated limit).
 */
Datum
ranread_blocks(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;
	BlocksState *bst;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		offset;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext old;

		funcctx = SRF_FIRSTCALL_INIT();
		old = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		/* forward_info keeps its answer in fn_extra, where funcctx is now */
		fcinfo->flinfo->fn_extra = NULL;
		funcctx->user_fctx = blocks_begin(fcinfo);
		fcinfo->flinfo->fn_extra = funcctx;
		MemoryContextSwitchTo(old);
	}
	funcctx = SRF_PERCALL_SETUP();
	bst = funcctx->user_fctx;
	CHECK_FOR_INTERRUPTS();
	if (bst->process >= bst->p->groups[0].processes)
		SRF_RETURN_DONE(funcctx);
	if (bst->plan == NULL)
		bst->plan = worker_plan_begin(funcctx->multi_call_memory_ctx, bst->p, bst->process);
	offset = worker_plan_next(bst->plan);
	values[0] = Int32GetDatum(bst->process + 1);
	values[1] = Int32GetDatum(bst->seq + 1);
	values[2] = Int64GetDatum(offset);
	if (++bst->seq == bst->n)
	{
		pfree(bst->plan);
		bst->plan = NULL;
		bst->process++;
		bst->seq = 0;
	}
	SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc, values, nulls)));
}
