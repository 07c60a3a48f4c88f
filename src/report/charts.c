/*
 * charts.c
 *		ranread_chart (a sweep: IOPS against processes, average and p99
 *		latency on a second axis, the latency bound, the verdict and a table
 *		of the steps) and ranread_timeline (one batch, second by second).
 *
 * Both are drawn the way every chart of ranread is: a query builds the
 * chart's jsonb spec (chart_sweep.sql, chart_timeline.sql;
 * docs/charts-and-reports.md, "Charts from SQL") and chart_json.c reads it
 * into the renderer (svg.c).  The queries are compiled into the library (the
 * Makefile turns each into a C string, *.sql.h), because a database still at
 * 1.0 binds ranread_chart and ranread_timeline to these very C functions and
 * has none of the SQL functions of 1.1: the queries read only what the 1.0
 * tables hold, so the 1.1 library draws a 1.0 database's charts as it draws
 * its own.  The one query that calls functions of 1.1
 * (chart_timeline_heat.sql, the timeline's heatmap panel) runs only where they
 * exist.  This file only decides what the queries need: which batches, the
 * verdict, the panel.
 *
 * The verdict the sweep chart states is never computed here.  It is the one
 * ranread_sweep stored in ranread_sweeps when the sweep finished, or, for a
 * sweep that recorded none (cancelled) and for a chart of loose batches,
 * what ranread_sweep_judge (20_report.sql) says of the batches.  The judge
 * is called through fmgr rather than through SPI: a reader allowed to draw
 * the chart (pg_monitor) was never granted EXECUTE on the judge in 1.0, and
 * the judge is a pure function of rows the reader may SELECT anyway.
 *
 * Queries name the extension's schema explicitly and run with search_path
 * set to pg_catalog, pg_temp, so a hostile search_path changes nothing.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "chart_json.h"
#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_chart);
PG_FUNCTION_INFO_V1(ranread_chart_no_table);
PG_FUNCTION_INFO_V1(ranread_timeline);

/* The spec queries (chart_sweep.sql, chart_timeline.sql and its heatmap panel) */
static const char chart_sweep_sql[] =
#include "chart_sweep.sql.h"
			;
static const char chart_timeline_sql[] =
#include "chart_timeline.sql.h"
			;
static const char chart_timeline_heat_sql[] =
#include "chart_timeline_heat.sql.h"
			;

/* The latency bound of the methodology, when a sweep did not record one */
#define CHART_DEFAULT_BOUND_MS 10.0

/* The sweep's verdict, as ranread_sweep_judge's row (or ranread_sweeps') */
typedef struct ChartVerdict
{
	double		bound;			/* the latency bound, ms */
	bool		recorded;		/* stored by the sweep */
	char	   *stop_reason;	/* why the sweep stopped, or NULL */
	bool		found;			/* a step within the bound */
	double		iops;
	double		avg_ms;
	int			processes;
	int64		batch;
	bool		flash;			/* meets the all-flash guidance */
} ChartVerdict;


/* ---------------------------------------------------------------------
 * Running the queries
 * ---------------------------------------------------------------------
 */

/* Run a read-only query under SPI, failing on anything but SELECT */
static void
chart_query(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls)
{
	int			rc = SPI_execute_with_args(sql, nargs, types, values, nulls, true, 0);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(rc));
}

/* Column of the first row of the current SPI result as float8, NaN for NULL */
static double
col_float8(int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? get_float8_nan() : DatumGetFloat8(d);
}

/* Column of the first row of the current SPI result as int64, or dflt for NULL */
static int64
col_int8(int col, int64 dflt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);

	return isnull ? dflt : DatumGetInt64(d);
}

/* s with every name replaced by value */
static char *
chart_replace(const char *s, const char *name, const char *value)
{
	StringInfoData out;
	const char *at;

	initStringInfo(&out);
	while ((at = strstr(s, name)) != NULL)
	{
		appendBinaryStringInfo(&out, s, at - s);
		appendStringInfoString(&out, value);
		s = at + strlen(name);
	}
	appendStringInfoString(&out, s);
	return out.data;
}

/* A spec query with @extschema@ and @batches@ (if any) replaced */
static char *
chart_sql(const char *sql, const char *schema, const char *batches)
{
	char	   *s = chart_replace(sql, "@extschema@", schema);

	return batches ? chart_replace(s, "@batches@", batches) : s;
}

/*
 * The spec queries' plans, kept for the session: planning one takes about
 * as long as running it.  Keyed by the query's text, which names the
 * schema and the batches; a plan of a table dropped since is planned again
 * by the plan cache.
 */
#define CHART_PLANS 4

static struct
{
	char	   *sql;
	SPIPlanPtr	plan;
}			chart_plans[CHART_PLANS];
static int	chart_plan_next;

static SPIPlanPtr
chart_plan(const char *sql, int nargs, Oid *types)
{
	SPIPlanPtr	plan;
	int			i;

	for (i = 0; i < CHART_PLANS; i++)
		if (chart_plans[i].sql && strcmp(chart_plans[i].sql, sql) == 0)
			return chart_plans[i].plan;
	plan = SPI_prepare(sql, nargs, types);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	i = chart_plan_next;
	chart_plan_next = (chart_plan_next + 1) % CHART_PLANS;
	if (chart_plans[i].plan)
	{
		SPI_freeplan(chart_plans[i].plan);
		pfree(chart_plans[i].sql);
		chart_plans[i].plan = NULL;
	}
	SPI_keepplan(plan);
	chart_plans[i].sql = MemoryContextStrdup(TopMemoryContext, sql);
	chart_plans[i].plan = plan;
	return plan;
}

/*
 * The SVG of the spec a query returns, without its key "without" when that
 * is not NULL, in the caller's memory (SPI's goes at SPI_finish)
 */
static Datum
chart_draw(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls,
		   const char *without)
{
	bool		isnull;
	Datum		spec;
	int			rc = SPI_execute_plan(chart_plan(sql, nargs, types), values, nulls, true, 0);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(rc));
	spec = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	Assert(!isnull);
	/* a part of the spec the caller draws apart (NULL: none) */
	if (without != NULL)
		spec = DirectFunctionCall2(jsonb_delete, spec, CStringGetTextDatum(without));
	return SPI_datumTransfer(PointerGetDatum(ranread_chart_json_draw(DatumGetJsonbP(spec))),
							 false, -1);
}

/*
 * Connect to SPI with search_path = pg_catalog, pg_temp for the queries,
 * whatever the function's definition sets; returns the GUC nest level for
 * chart_end
 */
static int
chart_begin(void)
{
	int			nestlevel;

	SPI_connect();
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nestlevel;
}

static void
chart_end(int nestlevel)
{
	AtEOXact_GUC(true, nestlevel);
	SPI_finish();
}


/* ---------------------------------------------------------------------
 * ranread_chart
 * ---------------------------------------------------------------------
 */

/*
 * Which batches: the sweep asked for, the latest sweep, or (no sweep) every
 * completed batch but a commit test's.  Sets *sweep, and args/nulls for the
 * condition on b it returns ($1 is the sweep, NULL for loose batches).
 */
static const char *
chart_select(const char *schema, bool *have_sweep, int64 *sweep,
			 Oid *argtypes, Datum *args, char *nulls)
{
	if (*have_sweep)
	{
		args[0] = Int64GetDatum(*sweep);
		chart_query(psprintf("SELECT 1 FROM %s.ranread_batches b WHERE b.sweep = $1 LIMIT 1", schema),
					1, argtypes, args, nulls);
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sweep " INT64_FORMAT " for ranread_chart has no batches", *sweep),
					 errhint("Pass NULL for the latest sweep; the sweep column of ranread_summary_full names the sweeps.")));
	}
	else
	{
		chart_query(psprintf("SELECT max(b.sweep) FROM %s.ranread_batches b", schema),
					0, NULL, NULL, NULL);
		*sweep = col_int8(1, -1);
		*have_sweep = (*sweep >= 0);
	}
	args[0] = Int64GetDatum(*sweep);
	if (*have_sweep)
		return "b.sweep = $1";
	nulls[0] = 'n';
	/* a commit test's batches (1.1) write a scratch file: no point of this chart */
	if (ranread_sql_version() >= 11)
		return "b.status = 'completed' AND $1 IS NULL AND b.commit_test IS NULL";
	return "b.status = 'completed' AND $1 IS NULL";
}

/*
 * The bound, the stop reason and the verdict a finished sweep stored in
 * ranread_sweeps; false when it stored none (it did not finish).
 */
static bool
chart_stored_verdict(const char *schema, Oid *argtypes, Datum *args, const char *nulls,
					 ChartVerdict *v)
{
	chart_query(psprintf("SELECT s.max_avg_ms, s.stop_reason, s.max_iops, s.actual_latency_ms,"
						 " s.max_iops_processes::int8, s.max_iops_batch,"
						 " s.meets_flash_guidance::int4::int8"
						 " FROM %s.ranread_sweeps s WHERE s.sweep = $1", schema),
				1, argtypes, args, nulls);
	/* a bound that is not a finite number above 0 is none (a row no sweep made) */
	if (SPI_processed == 0 || !isfinite(col_float8(1)) || !(col_float8(1) > 0))
		return false;
	v->bound = col_float8(1);
	v->stop_reason = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2);
	v->iops = col_float8(3);
	v->found = !isnan(v->iops);
	v->avg_ms = col_float8(4);
	v->processes = (int) col_int8(5, 0);
	v->batch = col_int8(6, -1);
	v->flash = col_int8(7, 0) != 0;
	return true;
}

/*
 * The verdict over the batches the condition selects, by
 * ranread_sweep_judge: the batches become its steps, numbered in the order
 * of the chart (processes, then batch), which is how it breaks ties.  The
 * judge is looked for in ranread_internal, where internal functions go,
 * then (1.0) in the extension's schema.
 */
static void
chart_judge(const char *schema, const char *batches, Oid *argtypes, Datum *args,
			const char *nulls, ChartVerdict *v)
{
	bool		isnull;
	Datum		steps;
	Oid			judge;
	HeapTupleHeader row;

	chart_query(psprintf("SELECT array_agg(ROW(s.step, s.processes, s.batch, s.iops,"
						 " s.avg_ms, s.p99_ms, s.max_ms, s.status)::%s.ranread_sweep_step ORDER BY s.step),"
						 " coalesce(to_regprocedure(%s), to_regprocedure(%s))::oid"
						 " FROM (SELECT row_number() OVER (ORDER BY b.processes, b.batch)::int4 AS step,"
						 " b.processes, b.batch, b.iops, b.avg_ms, b.p99_ms, b.max_ms, b.status"
						 " FROM %s.ranread_batches b WHERE %s) s",
						 schema,
						 quote_literal_cstr(psprintf("ranread_internal.ranread_sweep_judge(%s.ranread_sweep_step[], float8)",
													 schema)),
						 quote_literal_cstr(psprintf("%s.ranread_sweep_judge(%s.ranread_sweep_step[], float8)",
													 schema, schema)),
						 schema, batches),
				1, argtypes, args, nulls);
	steps = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	v->found = false;
	if (isnull)
		return;
	judge = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));

	row = DatumGetHeapTupleHeader(OidFunctionCall2(judge, steps, Float8GetDatum(v->bound)));
	v->iops = DatumGetFloat8(GetAttributeByNum(row, 1, &isnull));
	v->found = !isnull;
	if (!v->found)
		return;
	v->avg_ms = DatumGetFloat8(GetAttributeByNum(row, 2, &isnull));
	v->processes = DatumGetInt32(GetAttributeByNum(row, 3, &isnull));
	v->batch = DatumGetInt64(GetAttributeByNum(row, 4, &isnull));
	v->flash = DatumGetBool(GetAttributeByNum(row, 5, &isnull)) && !isnull;
}

/*
 * ranread_chart(sweep bigint DEFAULT NULL) RETURNS text
 *
 * An SVG of IOPS and latency against processes for the batches of a sweep:
 * the latest sweep when sweep is NULL, or every completed batch when there
 * has been no sweep.  Batches of the sweep that did not complete are listed
 * in the table but not plotted.
 */
static Datum
chart_sweep(FunctionCallInfo fcinfo, bool with_table)
{
	bool		have_sweep = !PG_ARGISNULL(0);
	int64		sweep = have_sweep ? PG_GETARG_INT64(0) : 0;
	char	   *schema = ranread_schema_name();
	Oid			argtypes[10] = {INT8OID, FLOAT8OID, BOOLOID, TEXTOID, BOOLOID,
	FLOAT8OID, FLOAT8OID, INT4OID, INT8OID, BOOLOID};
	Datum		args[10];
	char		nulls[10];
	ChartVerdict v = {CHART_DEFAULT_BOUND_MS, false, NULL, false, 0.0, 0.0, 0, 0, false};
	const char *batches;
	int			nestlevel = chart_begin();
	Datum		result;

	memset(nulls, ' ', sizeof(nulls));
	batches = chart_select(schema, &have_sweep, &sweep, argtypes, args, nulls);

	/* The verdict: stored by the sweep, or else the judge's over the batches */
	if (have_sweep)
		v.recorded = chart_stored_verdict(schema, argtypes, args, nulls, &v);
	if (!v.recorded)
		chart_judge(schema, batches, argtypes, args, nulls, &v);

	args[1] = Float8GetDatum(v.bound);
	args[2] = BoolGetDatum(v.recorded);
	args[3] = v.stop_reason ? CStringGetTextDatum(v.stop_reason) : (Datum) 0;
	nulls[3] = v.stop_reason ? ' ' : 'n';
	args[4] = BoolGetDatum(v.found);
	args[5] = Float8GetDatum(v.iops);
	args[6] = Float8GetDatum(v.avg_ms);
	args[7] = Int32GetDatum(v.processes);
	args[8] = Int64GetDatum(v.batch);
	args[9] = BoolGetDatum(v.flash);
	result = chart_draw(chart_sql(chart_sweep_sql, schema, batches), 10, argtypes, args, nulls,
						with_table ? NULL : "table");
	chart_end(nestlevel);
	PG_RETURN_DATUM(result);
}

Datum
ranread_chart(PG_FUNCTION_ARGS)
{
	return chart_sweep(fcinfo, true);
}

/*
 * ranread_internal.ranread_chart_no_table(sweep bigint) RETURNS text
 *
 * The same chart without its table of the steps: for the HTML report,
 * which lists the steps in a table of its own (searchable, copyable).
 */
Datum
ranread_chart_no_table(PG_FUNCTION_ARGS)
{
	return chart_sweep(fcinfo, false);
}


/* ---------------------------------------------------------------------
 * ranread_timeline
 * ---------------------------------------------------------------------
 */

/*
 * The latency heatmap of the batch args[0] as a panel, into args[1] (left
 * NULL when there is none): from chart_timeline_heat.sql, which calls the
 * heatmap's functions of 1.1 (31_heatmap.sql), so only when the database
 * has them and the caller may run them.  A database at 1.0 has neither
 * them nor histograms, and a caller granted ranread_timeline alone gets the
 * timeline without the panel rather than an error.
 */
static void
chart_timeline_heat(const char *schema, Oid *argtypes, Datum *args, char *nulls)
{
	bool		isnull;
	Datum		panel;

	if (nulls[0] == 'n')
		return;
	/*
	 * In this order (CASE): has_schema_privilege fails on a schema that
	 * does not exist, and to_regprocedure on one the caller may not use
	 */
	chart_query(psprintf("SELECT CASE WHEN to_regnamespace('ranread_internal') IS NULL THEN false"
				" WHEN NOT has_schema_privilege('ranread_internal', 'USAGE') THEN false"
				" ELSE coalesce(has_function_privilege(to_regprocedure('ranread_internal.ranread_latency_heat_spec(bigint)'), 'EXECUTE')"
				" AND has_function_privilege(to_regprocedure('ranread_internal.ranread_latency_heat_cells(bigint)'), 'EXECUTE')"
				" AND has_function_privilege(to_regprocedure(%s), 'EXECUTE'),"
				" false) END",
				quote_literal_cstr(psprintf("%s.ranread_hist_count(bytea)", schema))),
				0, NULL, NULL, NULL);
	if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)) || isnull)
		return;
	if (SPI_execute_plan(chart_plan(chart_sql(chart_timeline_heat_sql, schema, NULL), 1, argtypes),
						 args, nulls, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed for the heatmap panel");
	panel = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		return;
	/* a copy: the next query's result may take the place of this one's */
	args[1] = PointerGetDatum(PG_DETOAST_DATUM_COPY(panel));
	nulls[1] = ' ';
}

/*
 * ranread_timeline(batch bigint DEFAULT NULL) RETURNS text
 *
 * An SVG of IOPS, average and maximum latency per second of one batch, from
 * ranread_intervals: the latest batch that has intervals when batch is NULL.
 * Throttling and exhausted burst credits show as steps in the IOPS line.  A
 * batch run with ranread.timing = off has no latency: the timeline says so
 * and draws IOPS alone.  When the batch's seconds have latency histograms,
 * the latency heatmap of the batch is a panel under the plot, on its x axis
 * (chart_timeline_heat).
 */
Datum
ranread_timeline(PG_FUNCTION_ARGS)
{
	bool		have_batch = !PG_ARGISNULL(0);
	int64		batch = have_batch ? PG_GETARG_INT64(0) : 0;
	char	   *schema = ranread_schema_name();
	Oid			argtypes[2] = {INT8OID, JSONBOID};
	Datum		args[2] = {0, 0};
	char		nulls[2] = {' ', 'n'};
	int			nestlevel = chart_begin();
	Datum		result;

	if (!have_batch)
	{
		chart_query(psprintf("SELECT max(i.batch) FROM %s.ranread_intervals i", schema),
					0, NULL, NULL, NULL);
		batch = col_int8(1, -1);
	}
	args[0] = Int64GetDatum(batch);
	if (batch < 0 && !have_batch)
		nulls[0] = 'n';			/* no batch has intervals yet */
	else
	{
		chart_query(psprintf("SELECT 1 FROM %s.ranread_batches b WHERE b.batch = $1", schema),
					1, argtypes, args, nulls);
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("batch " INT64_FORMAT " for ranread_timeline does not exist", batch),
					 errhint("Pass NULL for the latest batch; ranread_summary lists the batches.")));
	}
	chart_timeline_heat(schema, argtypes, args, nulls);
	result = chart_draw(chart_sql(chart_timeline_sql, schema, NULL), 2, argtypes, args, nulls, NULL);
	chart_end(nestlevel);
	PG_RETURN_DATUM(result);
}
