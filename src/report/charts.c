/*
 * chart.c
 *		ranread_chart (a sweep: IOPS against processes, average and p99
 *		latency on a second axis, the latency bound, the verdict and a table
 *		of the steps) and ranread_timeline (one batch, second by second).
 *
 * Each function reads its rows from the history through SPI, fills a chart
 * spec (svg.h) and has the renderer (svg.c) draw it; neither lays out SVG.
 * The sweep chart puts IOPS on the left axis and latency on the right, each
 * scaled to its own data, and processes on a log2 x axis with a tick at
 * each step, because a sweep doubles them.
 *
 * The verdict the sweep chart states is never computed here.  It is the one
 * ranread_sweep stored in ranread_sweeps when the sweep finished, or, for a
 * sweep that recorded none (cancelled) and for a chart of loose batches,
 * what ranread_sweep_judge (20_report.sql) says of the batches.  The judge
 * is called through fmgr rather than through SPI: a reader allowed to draw
 * the chart (pg_monitor) was never granted EXECUTE on the judge in 1.0, and
 * the judge is a pure function of rows the reader may SELECT anyway.
 *
 * Queries name the extension's schema explicitly and every operator and
 * function by its pg_catalog name, so a hostile search_path changes nothing.
 * Text from the database is converted to UTF-8 for the renderer.  Only
 * columns of the 1.0 tables are read, so a 1.1 library draws the charts of
 * a database still at 1.0 as 1.0 did.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "ranread.h"
#include "svg.h"

PG_FUNCTION_INFO_V1(ranread_chart);
PG_FUNCTION_INFO_V1(ranread_timeline);

/* The latency bound of the methodology, when a sweep did not record one */
#define CHART_DEFAULT_BOUND_MS 10.0

/* Rows of the chart's table before it says "... and N more" */
#define CHART_MAX_TABLE_ROWS 24

/* The colours of the figures, the same in both charts */
#define COLOR_IOPS "#1c5fa8"
#define COLOR_AVG "#d9480f"
#define COLOR_P99 "#f59f00"


/* ---------------------------------------------------------------------
 * Reading rows through SPI
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

/* Column of the current SPI result as float8, NaN for NULL */
static double
col_float8(int row, int col)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc,
								  col, &isnull);

	return isnull ? get_float8_nan() : DatumGetFloat8(d);
}

/* Column of the current SPI result as int64, or dflt for NULL */
static int64
col_int8(int row, int col, int64 dflt)
{
	bool		isnull;
	Datum		d = SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc,
								  col, &isnull);

	return isnull ? dflt : DatumGetInt64(d);
}

/* Column of the current SPI result as UTF-8 text, or NULL */
static char *
col_text_or_null(int row, int col)
{
	char	   *s = SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col);

	return s ? pg_server_to_any(s, strlen(s), PG_UTF8) : NULL;
}

/* Column of the current SPI result as UTF-8 text, "" for NULL */
static char *
col_text(int row, int col)
{
	char	   *s = col_text_or_null(row, col);

	return s ? s : "";
}

/* "reads", "writes" or "I/O with 30% writes" */
static char *
chart_op(int write_pct)
{
	if (write_pct == 0)
		return "reads";
	if (write_pct == 100)
		return "writes";
	if (write_pct > 0)
		return psprintf("I/O with %d%% writes", write_pct);
	return "I/O";
}

/* The document of a chart, in the caller's memory (SPI's goes at SPI_finish) */
static Datum
chart_datum(const RanreadSvgChart *chart)
{
	StringInfoData buf;

	initStringInfo(&buf);
	ranread_svg_render(&buf, chart);
	return SPI_datumTransfer(PointerGetDatum(cstring_to_text_with_len(buf.data, buf.len)),
							 false, -1);
}

/* Append a note to a chart's notes */
static void
chart_note(RanreadSvgNote *notes, int *n, char *text, bool headline, RanreadSvgTone tone)
{
	notes[*n].text = text;
	notes[*n].headline = headline;
	notes[*n].tone = tone;
	(*n)++;
}


/* ---------------------------------------------------------------------
 * ranread_chart
 * ---------------------------------------------------------------------
 */

/* The columns of a batch row of the sweep chart's query */
enum
{
	B_BATCH = 1, B_PROCESSES, B_IOPS, B_MBPS, B_AVG, B_P99, B_MAX, B_STATUS,
	B_TARGET, B_BLOCK_SIZE, B_QUEUE_DEPTH, B_WRITE_PCT, B_PATTERN, B_ENGINE,
	B_DURATION, B_ITERATIONS, B_FIRST_RUN, B_LAST_RUN
};

/* One batch of the chart */
typedef struct ChartPoint
{
	int64		batch;
	int			processes;
	double		iops;
	double		mbps;
	double		avg_ms;
	double		p99_ms;
	double		max_ms;
	bool		completed;
	char	   *status;
} ChartPoint;

/* What the batches of a chart have in common, for its title */
typedef struct ChartContext
{
	char	   *target;			/* NULL when they differ */
	int64		block_size;		/* -1 when they differ */
	int			write_pct;		/* -1 when they differ */
	int			queue_depth;	/* -1 when they differ */
	char	   *pattern;		/* NULL when they differ */
	char	   *engine;			/* NULL when they differ */
	char	   *duration;		/* NULL when they differ or none */
	int64		iterations;		/* -1 when they differ or none */
	char	   *first_run;
	char	   *last_run;
} ChartContext;

/* The sweep's verdict, as ranread_sweep_judge's row */
typedef struct ChartVerdict
{
	bool		found;			/* a step within the bound */
	double		iops;
	double		avg_ms;
	int			processes;
	int64		batch;
	bool		flash;			/* meets the all-flash guidance */
} ChartVerdict;

/* "random 8 KiB reads" and the like */
static char *
chart_workload(const ChartContext *cx)
{
	return psprintf("%s%s%s %s",
					cx->pattern ? cx->pattern : "mixed",
					cx->block_size > 0 ? " " : ", mixed block sizes,",
					cx->block_size > 0 ? ranread_fmt_block(cx->block_size) : "",
					chart_op(cx->write_pct));
}

/* When the batches ran: "2024-05-02 14:00-14:03 UTC" or a range of days */
static char *
chart_when(const ChartContext *cx)
{
	/* first_run and last_run are "YYYY-MM-DD HH24:MI TZ" */
	if (strcmp(cx->first_run, cx->last_run) == 0)
		return cx->first_run;
	if (strlen(cx->first_run) > 16 && strlen(cx->last_run) > 16 &&
		strncmp(cx->first_run, cx->last_run, 11) == 0 &&
		strcmp(cx->first_run + 16, cx->last_run + 16) == 0)
		return psprintf("%.16s\xe2\x80\x93%s", cx->first_run, cx->last_run + 11);
	return psprintf("%s \xe2\x80\x93 %s", cx->first_run, cx->last_run);
}

/* Merge one batch's settings into what all batches have in common */
static void
chart_context_add(ChartContext *cx, int row, bool first)
{
	char	   *target = col_text(row, B_TARGET);
	int64		block_size = col_int8(row, B_BLOCK_SIZE, -1);
	int			queue_depth = (int) col_int8(row, B_QUEUE_DEPTH, -1);
	int			write_pct = (int) col_int8(row, B_WRITE_PCT, -1);
	char	   *pattern = col_text(row, B_PATTERN);
	char	   *engine = col_text(row, B_ENGINE);
	char	   *duration = col_text_or_null(row, B_DURATION);
	int64		iterations = col_int8(row, B_ITERATIONS, -1);

	if (first)
	{
		cx->target = target;
		cx->block_size = block_size;
		cx->queue_depth = queue_depth;
		cx->write_pct = write_pct;
		cx->pattern = pattern;
		cx->engine = engine;
		cx->duration = duration;
		cx->iterations = iterations;
		cx->first_run = col_text(row, B_FIRST_RUN);
		cx->last_run = col_text(row, B_LAST_RUN);
		return;
	}
	if (cx->target && strcmp(cx->target, target) != 0)
		cx->target = NULL;
	if (cx->block_size != block_size)
		cx->block_size = -1;
	if (cx->queue_depth != queue_depth)
		cx->queue_depth = -1;
	if (cx->write_pct != write_pct)
		cx->write_pct = -1;
	if (cx->pattern && strcmp(cx->pattern, pattern) != 0)
		cx->pattern = NULL;
	if (cx->engine && strcmp(cx->engine, engine) != 0)
		cx->engine = NULL;
	if (cx->duration && (duration == NULL || strcmp(cx->duration, duration) != 0))
		cx->duration = NULL;
	if (cx->iterations != iterations)
		cx->iterations = -1;
}

/* The title and subtitle: what was measured, where and when */
static void
chart_titles(RanreadSvgChart *chart, const ChartContext *cx, bool have_sweep,
			 int64 sweep, int n)
{
	char	   *subtitle;

	chart->title = psprintf("IOPS and latency vs processes: %s%s%s%s",
							chart_workload(cx),
							cx->target ? " on target \xe2\x80\x9c" : ", several targets",
							cx->target ? cx->target : "",
							cx->target ? "\xe2\x80\x9d" : "");
	subtitle = psprintf("%s \xc2\xb7 %s \xc2\xb7 %d batch%s",
						have_sweep ? psprintf("Sweep " INT64_FORMAT, sweep)
						: "All completed batches",
						chart_when(cx), n, n == 1 ? "" : "es");
	if (cx->queue_depth > 0)
		subtitle = psprintf("%s \xc2\xb7 queue depth %d", subtitle, cx->queue_depth);
	if (cx->duration && cx->duration[0])
		subtitle = psprintf("%s \xc2\xb7 %s s per step", subtitle, cx->duration);
	else if (cx->iterations > 0)
		subtitle = psprintf("%s \xc2\xb7 %s I/Os per process", subtitle,
							ranread_fmt_count((double) cx->iterations));
	if (cx->engine && cx->engine[0])
		subtitle = psprintf("%s \xc2\xb7 engine %s", subtitle, cx->engine);
	chart->subtitle = subtitle;
}

/*
 * The verdict over the batches the WHERE clause selects, by
 * ranread_sweep_judge: the batches become its steps, numbered in the order
 * of the chart (processes, then batch), which is how it breaks ties.
 */
static void
chart_judge(const char *schema, const char *where, Oid *argtypes, Datum *args,
			const char *nulls, double bound, ChartVerdict *v)
{
	bool		isnull;
	Datum		steps;
	Oid			judge;
	HeapTupleHeader row;

	chart_query(psprintf("SELECT pg_catalog.array_agg(ROW(s.step, s.processes, s.batch, s.iops,"
						 " s.avg_ms, s.p99_ms, s.max_ms, s.status)::%s.ranread_sweep_step ORDER BY s.step),"
						 " %s::pg_catalog.regprocedure::pg_catalog.oid"
						 " FROM (SELECT pg_catalog.row_number() OVER (ORDER BY b.processes, b.batch)::pg_catalog.int4 AS step,"
						 " b.processes, b.batch, b.iops, b.avg_ms, b.p99_ms, b.max_ms, b.status"
						 " FROM %s.ranread_batches b WHERE %s) s",
						 schema,
						 quote_literal_cstr(psprintf("%s.ranread_sweep_judge(%s.ranread_sweep_step[], pg_catalog.float8)",
													 schema, schema)),
						 schema, where),
				1, argtypes, args, nulls);
	steps = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	memset(v, 0, sizeof(*v));
	if (isnull)
		return;
	judge = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));

	row = DatumGetHeapTupleHeader(OidFunctionCall2(judge, steps, Float8GetDatum(bound)));
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
 * Which batches: the sweep asked for, the latest sweep, or (no sweep) every
 * completed batch but a commit test's.  Sets *sweep, and args/nulls for the WHERE clause.
 */
static const char *
chart_select(const char *schema, bool *have_sweep, int64 *sweep,
			 Oid *argtypes, Datum *args, char *nulls)
{
	if (*have_sweep)
	{
		args[0] = Int64GetDatum(*sweep);
		chart_query(psprintf("SELECT 1 FROM %s.ranread_batches b"
							 " WHERE b.sweep OPERATOR(pg_catalog.=) $1 LIMIT 1", schema),
					1, argtypes, args, nulls);
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sweep " INT64_FORMAT " for ranread_chart has no batches", *sweep),
					 errhint("Pass NULL for the latest sweep; the sweep column of ranread_summary names the sweeps.")));
	}
	else
	{
		chart_query(psprintf("SELECT pg_catalog.max(b.sweep) FROM %s.ranread_batches b", schema),
					0, NULL, NULL, NULL);
		*sweep = col_int8(0, 1, -1);
		*have_sweep = (*sweep >= 0);
	}
	args[0] = Int64GetDatum(*sweep);
	if (*have_sweep)
		return "b.sweep OPERATOR(pg_catalog.=) $1";
	nulls[0] = 'n';
	/* a commit test's batches write a scratch file: no point of this chart */
	if (ranread_sql_version() >= 11)
		return "b.status OPERATOR(pg_catalog.=) 'completed' AND $1 IS NULL AND b.commit_test IS NULL";
	return "b.status OPERATOR(pg_catalog.=) 'completed' AND $1 IS NULL";
}

/* The table of the chart: one row per batch, the verdict's highlighted */
static void
chart_table(RanreadSvgChart *chart, const ChartPoint *pts, int n,
			const ChartVerdict *v, double bound, bool have_sweep)
{
	static const char *const header[] = {
		NULL, "Processes", "Batch", "IOPS", "MB/s", "Avg ms", "p99 ms", "Max ms", NULL
	};
	static const bool left[] = {false, false, false, false, false, false, false, false, true};
	int			shown = Min(n, CHART_MAX_TABLE_ROWS);
	const char **hdr = palloc(sizeof(header));
	RanreadSvgCell *cells = palloc0(sizeof(RanreadSvgCell) * shown * lengthof(header));
	bool	   *highlight = palloc0(sizeof(bool) * Max(shown, 1));
	int			i;

	memcpy(hdr, header, sizeof(header));
	hdr[0] = have_sweep ? "Step" : "#";
	hdr[8] = psprintf("Avg within %s ms?", ranread_fmt_setting(bound));
	for (i = 0; i < shown; i++)
	{
		const ChartPoint *pt = &pts[i];
		RanreadSvgCell *row = &cells[i * lengthof(header)];
		bool		best = v->found && pt->batch == v->batch;

		highlight[i] = best;
		row[0].text = psprintf("%d", i + 1);
		row[1].text = ranread_fmt_count(pt->processes);
		row[2].text = psprintf(INT64_FORMAT, pt->batch);
		row[3].text = ranread_fmt_count(pt->iops);
		row[4].text = ranread_fmt_fixed(pt->mbps, 1);
		row[5].text = ranread_fmt_ms(pt->avg_ms);
		row[6].text = ranread_fmt_ms(pt->p99_ms);
		row[7].text = ranread_fmt_ms(pt->max_ms);
		if (!pt->completed)
			row[8].text = psprintf("%s: not plotted", pt->status);
		else if (isnan(pt->avg_ms))
			row[8].text = "n/a";
		else if (pt->avg_ms <= bound)
			row[8].text = best ? "yes: highest IOPS" : "yes";
		else
			row[8].text = "no";
		row[8].tone = best ? RANREAD_SVG_GOOD
			: (pt->avg_ms > bound || !pt->completed) ? RANREAD_SVG_BAD : RANREAD_SVG_PLAIN;
	}
	chart->table.ncols = lengthof(header);
	chart->table.nrows = shown;
	chart->table.header = hdr;
	chart->table.left = left;
	chart->table.cells = cells;
	chart->table.highlight = highlight;
	if (shown < n)
		chart->table.more = psprintf("... and %d more batches: see ranread_summary", n - shown);
}

/* The verdict in words, and why the sweep stopped */
static void
chart_notes(RanreadSvgChart *chart, const ChartPoint *pts, int n, const ChartVerdict *v,
			double bound, bool have_sweep, bool bound_recorded, const char *stop_reason)
{
	RanreadSvgNote *notes = palloc0(sizeof(RanreadSvgNote) * 4);
	int			nn = 0;
	int			i;

	if (v->found)
	{
		double		p99 = get_float8_nan();
		double		max = get_float8_nan();

		/* p99 and maximum at the verdict's step, if it is still in history */
		for (i = 0; i < n; i++)
			if (pts[i].batch == v->batch)
			{
				p99 = pts[i].p99_ms;
				max = pts[i].max_ms;
			}
		chart_note(notes, &nn,
				   psprintf("%s%s IOPS at %s processes: the most within the %s ms average latency bound",
							have_sweep ? "Verdict: " : "", ranread_fmt_count(v->iops),
							ranread_fmt_count(v->processes), ranread_fmt_setting(bound)),
				   true, RANREAD_SVG_PLAIN);
		chart_note(notes, &nn,
				   psprintf("Latency at that step (batch " INT64_FORMAT "): average %s ms, p99 %s ms, maximum %s ms",
							v->batch, ranread_fmt_ms(v->avg_ms), ranread_fmt_ms(p99),
							ranread_fmt_ms(max)),
				   false, RANREAD_SVG_PLAIN);
		chart_note(notes, &nn,
				   v->flash ?
				   "Meets the all-flash guidance (average \xe2\x89\xa4 2 ms, never above 5 ms)" :
				   "Does not meet the all-flash guidance (average \xe2\x89\xa4 2 ms, never above 5 ms)",
				   false, v->flash ? RANREAD_SVG_GOOD : RANREAD_SVG_BAD);
	}
	else
		chart_note(notes, &nn,
				   psprintf("No completed batch stayed within the %s ms average latency bound.",
							ranread_fmt_setting(bound)),
				   true, RANREAD_SVG_BAD);
	if (stop_reason)
		chart_note(notes, &nn, psprintf("Sweep stopped on %s", stop_reason),
				   false, RANREAD_SVG_MUTED);
	else if (have_sweep && !bound_recorded)
		chart_note(notes, &nn,
				   "This sweep recorded no verdict (it did not finish): the figures come from its batches, judged against the default bound.",
				   false, RANREAD_SVG_MUTED);
	chart->notes = notes;
	chart->nnotes = nn;
}


/* The y axes of both charts: IOPS on the left, latency on the right */
static void
iops_latency_axes(RanreadSvgChart *chart)
{
	chart->y.label = "IOPS (I/O operations per second)";
	chart->y.format = RANREAD_SVG_COUNT;
	chart->y.color = COLOR_IOPS;
	chart->y2.label = "Latency (ms)";
	chart->y2.color = COLOR_AVG;
}
/*
 * The three series (IOPS, average and p99 latency against processes) and
 * the axes.  Batches that did not complete have no point.  Several batches
 * at the same processes (no sweep, repeated runs) would make a line zigzag,
 * so they are drawn as points only.
 */
static void
chart_series(RanreadSvgChart *chart, const ChartPoint *pts, int n, const ChartContext *cx,
			 const ChartVerdict *v)
{
	RanreadSvgSeries *s = palloc0(sizeof(RanreadSvgSeries) * 3);
	RanreadSvgHighlight *hl = palloc0(sizeof(RanreadSvgHighlight));
	double	   *xs = palloc(sizeof(double) * n);
	double	   *iops = palloc(sizeof(double) * n);
	double	   *avg = palloc(sizeof(double) * n);
	double	   *p99 = palloc(sizeof(double) * n);
	bool		scatter = false;
	int			i;

	for (i = 0; i < n; i++)
	{
		bool		plot = pts[i].completed && pts[i].processes > 0;

		CHECK_FOR_INTERRUPTS();
		xs[i] = plot ? pts[i].processes : get_float8_nan();
		iops[i] = plot ? pts[i].iops : get_float8_nan();
		avg[i] = plot ? pts[i].avg_ms : get_float8_nan();
		p99[i] = plot ? pts[i].p99_ms : get_float8_nan();
		if (i > 0 && !isnan(xs[i]) && xs[i] == xs[i - 1])
			scatter = true;
		if (plot && v->found && pts[i].batch == v->batch)
		{
			hl->point = i;
			chart->highlights = hl;
			chart->nhighlights = 1;
		}
	}
	for (i = 0; i < 3; i++)
	{
		s[i].n = n;
		s[i].x = xs;
		s[i].dash = "";
		s[i].no_line = scatter;
		s[i].width = 2.0;
		s[i].right = (i > 0);
	}
	s[0].label = "IOPS (left axis)";
	s[0].y = iops;
	s[0].color = COLOR_IOPS;
	s[0].marker = 'o';
	s[0].width = 2.5;
	s[0].labels = true;
	s[0].format = RANREAD_SVG_COUNT;
	s[1].label = "Average latency (right)";
	s[1].y = avg;
	s[1].color = COLOR_AVG;
	s[1].marker = 's';
	s[2].label = "p99 latency (right)";
	s[2].y = p99;
	s[2].color = COLOR_P99;
	s[2].marker = '^';
	chart->series = s;
	chart->nseries = 3;

	chart->x.label = cx->queue_depth > 1 ?
		psprintf("Processes (I/O streams of queue depth %d each; log\xe2\x82\x82 scale)",
				 cx->queue_depth) :
		"Processes (concurrent synchronous I/O streams; log\xe2\x82\x82 scale)";
	chart->x.scale = RANREAD_SVG_LOG;
	chart->x.base = 2.0;
	chart->x.data_ticks = true;
	chart->x.format = RANREAD_SVG_COUNT;
	iops_latency_axes(chart);
}

/*
 * The bound, the stop reason and the verdict a finished sweep stored in
 * ranread_sweeps; false when it stored none (it did not finish).
 */
static bool
chart_stored_verdict(const char *schema, Oid *argtypes, Datum *args, const char *nulls,
					 double *bound, char **stop_reason, ChartVerdict *v)
{
	chart_query(psprintf("SELECT s.max_avg_ms, s.stop_reason, s.max_iops, s.actual_latency_ms,"
						 " s.max_iops_processes::pg_catalog.int8, s.max_iops_batch,"
						 " s.meets_flash_guidance::pg_catalog.int4::pg_catalog.int8"
						 " FROM %s.ranread_sweeps s WHERE s.sweep OPERATOR(pg_catalog.=) $1",
						 schema),
				1, argtypes, args, nulls);
	if (SPI_processed == 0 || isnan(col_float8(0, 1)))
		return false;
	*bound = col_float8(0, 1);
	*stop_reason = col_text_or_null(0, 2);
	v->iops = col_float8(0, 3);
	v->found = !isnan(v->iops);
	v->avg_ms = col_float8(0, 4);
	v->processes = (int) col_int8(0, 5, 0);
	v->batch = col_int8(0, 6, -1);
	v->flash = col_int8(0, 7, 0) != 0;
	return true;
}

/* The batches of the current SPI result, and what they have in common */
static ChartPoint *
chart_points(int n, ChartContext *cx)
{
	ChartPoint *pts = palloc0(sizeof(ChartPoint) * n);
	int			i;

	memset(cx, 0, sizeof(*cx));
	for (i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		pts[i].batch = col_int8(i, B_BATCH, -1);
		pts[i].processes = (int) col_int8(i, B_PROCESSES, 0);
		pts[i].iops = col_float8(i, B_IOPS);
		pts[i].mbps = col_float8(i, B_MBPS);
		pts[i].avg_ms = col_float8(i, B_AVG);
		pts[i].p99_ms = col_float8(i, B_P99);
		pts[i].max_ms = col_float8(i, B_MAX);
		pts[i].status = col_text(i, B_STATUS);
		pts[i].completed = (strcmp(pts[i].status, "completed") == 0);
		chart_context_add(cx, i, i == 0);
	}
	return pts;
}

/* The latency bound as a dashed red line on the latency axis */
static void
chart_bound_line(RanreadSvgChart *chart, double bound, bool recorded)
{
	RanreadSvgLine *l = palloc0(sizeof(RanreadSvgLine));

	l->value = bound;
	l->right = true;
	l->label = psprintf("bound %s ms", ranread_fmt_setting(bound));
	l->legend = psprintf("Average latency bound %s ms%s", ranread_fmt_setting(bound),
						 recorded ? "" : " (default)");
	l->color = RANREAD_SVG_COLOR_BAD;
	l->dash = "8 5";
	l->width = 1.5;
	chart->lines = l;
	chart->nlines = 1;
}

/*
 * ranread_chart(sweep bigint DEFAULT NULL) RETURNS text
 *
 * An SVG of IOPS and latency against processes for the batches of a sweep:
 * the latest sweep when sweep is NULL, or every completed batch when there
 * has been no sweep.  Batches of the sweep that did not complete are listed
 * in the table but not plotted.
 */
Datum
ranread_chart(PG_FUNCTION_ARGS)
{
	bool		have_sweep = !PG_ARGISNULL(0);
	int64		sweep = have_sweep ? PG_GETARG_INT64(0) : 0;
	char	   *schema = ranread_schema_name();
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	char		nulls[1] = {' '};
	const char *where;
	RanreadSvgChart chart;
	ChartContext cx;
	ChartVerdict v = {false, 0.0, 0.0, 0, -1, false};
	ChartPoint *pts;
	double		bound = CHART_DEFAULT_BOUND_MS;
	bool		recorded = false;
	char	   *stop_reason = NULL;
	int			n;
	Datum		result;

	ranread_svg_init(&chart, RANREAD_SVG_LINE);
	SPI_connect();
	where = chart_select(schema, &have_sweep, &sweep, argtypes, args, nulls);

	/* The verdict: stored by the sweep, or else the judge's over the batches */
	if (have_sweep)
		recorded = chart_stored_verdict(schema, argtypes, args, nulls, &bound, &stop_reason, &v);
	if (!recorded)
		chart_judge(schema, where, argtypes, args, nulls, bound, &v);

	/* The batches, in the order of the x axis */
	chart_query(psprintf("SELECT b.batch, b.processes::pg_catalog.int8, b.iops, b.mbps, b.avg_ms, b.p99_ms,"
						 " b.max_ms, b.status, b.target::pg_catalog.text,"
						 " b.block_size::pg_catalog.int8, b.queue_depth::pg_catalog.int8,"
						 " b.write_pct::pg_catalog.int8, b.pattern, b.engine,"
						 " pg_catalog.date_part('epoch', b.duration)::pg_catalog.text,"
						 " b.iterations,"
						 " pg_catalog.to_char(pg_catalog.min(b.run_at) OVER (), 'YYYY-MM-DD HH24:MI TZ'),"
						 " pg_catalog.to_char(pg_catalog.max(b.run_at) OVER (), 'YYYY-MM-DD HH24:MI TZ')"
						 " FROM %s.ranread_batches b WHERE %s"
						 " ORDER BY b.processes, b.batch", schema, where),
				1, argtypes, args, nulls);
	n = (int) SPI_processed;
	if (n == 0)
	{
		chart.title = "ranread: IOPS and latency against processes";
		chart.empty = "No completed batches yet: run ranread_sweep() or ranread_run() first.";
	}
	else
	{
		/* The spec: series, bound, verdict in words, table */
		pts = chart_points(n, &cx);
		chart_titles(&chart, &cx, have_sweep, sweep, n);
		chart.empty = "No completed batch to plot: the table lists the batches and how they ended.";
		chart_series(&chart, pts, n, &cx, &v);
		chart_bound_line(&chart, bound, recorded);
		chart_notes(&chart, pts, n, &v, bound, have_sweep, recorded, stop_reason);
		chart_table(&chart, pts, n, &v, bound, have_sweep);
	}

	result = chart_datum(&chart);
	SPI_finish();
	PG_RETURN_DATUM(result);
}


/* ---------------------------------------------------------------------
 * ranread_timeline
 * ---------------------------------------------------------------------
 */

/* The columns of the batch row of the timeline's query */
enum
{
	T_TARGET = 1, T_PROCESSES, T_BLOCK_SIZE, T_QUEUE_DEPTH, T_WRITE_PCT, T_PATTERN,
	T_ENGINE, T_STATUS, T_RUN_AT, T_IOPS, T_AVG, T_P99, T_MAX
};

/* The seconds of a batch: the middle of each, and its figures */
typedef struct TimelineRows
{
	int			n;
	double	   *xs;
	double	   *iops;
	double	   *avg;
	double	   *max;
} TimelineRows;

/* IOPS statistics over the seconds of a batch */
typedef struct TimelineStats
{
	int			seconds;		/* with a value */
	double		mean;
	double		lo;
	double		hi;
	double		cv;				/* coefficient of variation, % */
	double		worst_ms;		/* NaN when no second has a latency */
} TimelineStats;

/* The title and subtitle from the batch row (the current SPI result) */
static void
timeline_titles(RanreadSvgChart *chart, int64 batch)
{
	chart->title = psprintf("IOPS and latency per second: batch " INT64_FORMAT ", %s %s %s",
							batch, col_text(0, T_PATTERN),
							ranread_fmt_block(col_int8(0, T_BLOCK_SIZE, 0)),
							chart_op((int) col_int8(0, T_WRITE_PCT, 0)));
	chart->subtitle = psprintf("Target \xe2\x80\x9c%s\xe2\x80\x9d \xc2\xb7 %s \xc2\xb7 %s processes \xc2\xb7 queue depth %s \xc2\xb7 engine %s \xc2\xb7 status %s",
							   col_text(0, T_TARGET), col_text(0, T_RUN_AT),
							   ranread_fmt_count((double) col_int8(0, T_PROCESSES, 0)),
							   col_text(0, T_QUEUE_DEPTH), col_text(0, T_ENGINE),
							   col_text(0, T_STATUS));
	chart->empty = psprintf("Batch " INT64_FORMAT " has no per-second intervals (it measured for less than a second, or is still running).",
							batch);
}

/* The seconds of the current SPI result */
static TimelineRows
timeline_rows(void)
{
	TimelineRows r;
	int			i;

	r.n = (int) SPI_processed;
	r.xs = palloc(sizeof(double) * Max(r.n, 1));
	r.iops = palloc(sizeof(double) * Max(r.n, 1));
	r.avg = palloc(sizeof(double) * Max(r.n, 1));
	r.max = palloc(sizeof(double) * Max(r.n, 1));
	for (i = 0; i < r.n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		/* second s covers [s, s + 1) of the measured run: plot its middle */
		r.xs[i] = col_float8(i, 1) + 0.5;
		r.iops[i] = col_float8(i, 2);
		r.avg[i] = col_float8(i, 3);
		r.max[i] = col_float8(i, 4);
	}
	return r;
}

/* Sum up the per-second IOPS and the latencies */
static TimelineStats
timeline_stats(const TimelineRows *r)
{
	TimelineStats st = {0, 0.0, 0.0, 0.0, 0.0, get_float8_nan()};
	double		sum = 0.0;
	double		sumsq = 0.0;
	int			i;

	for (i = 0; i < r->n; i++)
	{
		double		v = r->iops[i];

		CHECK_FOR_INTERRUPTS();
		/* a value the chart cannot place (Infinity, 1e308) is none here too */
		if (fabs(v) <= RANREAD_SVG_MAX_VALUE)
		{
			if (st.seconds == 0 || v < st.lo)
				st.lo = v;
			if (st.seconds == 0 || v > st.hi)
				st.hi = v;
			sum += v;
			sumsq += v * v;
			st.seconds++;
		}
		if (fabs(r->avg[i]) <= RANREAD_SVG_MAX_VALUE && !(st.worst_ms >= r->avg[i]))
			st.worst_ms = r->avg[i];
		if (fabs(r->max[i]) <= RANREAD_SVG_MAX_VALUE && !(st.worst_ms >= r->max[i]))
			st.worst_ms = r->max[i];
	}
	st.mean = st.seconds > 0 ? sum / st.seconds : 0.0;
	st.cv = (st.seconds > 1 && st.mean > 0.0) ?
		sqrt(Max(0.0, sumsq / st.seconds - st.mean * st.mean)) / st.mean * 100.0 : 0.0;
	return st;
}

/*
 * The spec of a timeline: IOPS on the left axis with their mean as a dashed
 * line, average and maximum latency on the right (only when the batch was
 * timed), and the figures in words.
 */
/*
 * The steady-state note of a batch from its row (steady, excursion, slope,
 * ended_steady, steady_state), or NULL when there is none to make.
 */
static char *
timeline_steady(bool *good)
{
	bool		isnull;
	bool		steady;
	bool		ended;
	char	   *option = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 5);

	if (SPI_processed == 0)
		return NULL;
	ended = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull)) && !isnull;
	steady = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	*good = ended || (!isnull && steady);
	if (ended)
		return psprintf("Steady: the run ended early when the IOPS of every second of a window stayed within steady_state %s",
						option ? option : "");
	if (isnull)
		return NULL;
	return psprintf("%s by SNIA's rule over five rounds: max - min %s%% of the mean (at most 20%%), slope x 4 %s%% (at most 10%%)",
					steady ? "Steady" : "Not steady", ranread_fmt_fixed(100 * col_float8(0, 2), 1),
					ranread_fmt_fixed(100 * col_float8(0, 3), 1));
}

static void
timeline_spec(RanreadSvgChart *chart, const TimelineRows *r, const TimelineStats *st,
			  bool timed, double batch_avg, const char *steady, bool steady_good)
{
	RanreadSvgSeries *s = palloc0(sizeof(RanreadSvgSeries) * 3);
	RanreadSvgLine *mean = palloc0(sizeof(RanreadSvgLine));
	RanreadSvgNote *notes = palloc0(sizeof(RanreadSvgNote) * 4);
	int			nn = 0;
	int			i;

	chart->x.label = "Seconds into the measured run (warm-up excluded)";
	chart->x.min = r->n > 0 ? Min(r->xs[0] - 0.5, 0.0) : 0.0;
	chart->x.max = r->n > 0 ? r->xs[r->n - 1] + 0.5 : 1.0;
	chart->x.integer = true;
	chart->x.format = RANREAD_SVG_COUNT;
	iops_latency_axes(chart);

	for (i = 0; i < 3; i++)
	{
		s[i].n = r->n;
		s[i].x = r->xs;
		s[i].dash = "";
		s[i].right = (i > 0);
	}
	s[0].label = timed ? "IOPS (left axis)" : "IOPS";
	s[0].y = r->iops;
	s[0].color = COLOR_IOPS;
	s[0].marker = 'o';
	s[0].width = 2.2;
	s[1].label = "Average latency (right)";
	s[1].y = r->avg;
	s[1].color = COLOR_AVG;
	s[1].marker = 's';
	s[1].width = 2.0;
	s[2].label = "Maximum latency (right)";
	s[2].y = r->max;
	s[2].color = COLOR_P99;
	s[2].marker = '-';
	s[2].width = 1.2;
	chart->series = s;
	chart->nseries = timed ? 3 : 1;

	mean->value = st->mean;
	mean->label = psprintf("mean %s", ranread_fmt_count(st->mean));
	mean->legend = "Mean IOPS";
	mean->color = COLOR_IOPS;
	mean->dash = "3 4";
	mean->width = 1.2;
	chart->lines = mean;
	chart->nlines = st->seconds > 0 ? 1 : 0;

	chart_note(notes, &nn,
			   psprintf("IOPS per second over %d s: mean %s, lowest %s, highest %s, coefficient of variation %s%%",
						st->seconds, ranread_fmt_count(st->mean), ranread_fmt_count(st->lo),
						ranread_fmt_count(st->hi), ranread_fmt_fixed(st->cv, 1)),
			   true, RANREAD_SVG_PLAIN);
	if (steady)
		chart_note(notes, &nn, (char *) steady, false, steady_good ? RANREAD_SVG_GOOD : RANREAD_SVG_BAD);
	if (timed)
	{
		chart_note(notes, &nn,
				   psprintf("Latency: average over the batch %s ms; the slowest I/O took %s ms",
							ranread_fmt_ms(batch_avg), ranread_fmt_ms(st->worst_ms)),
				   false, RANREAD_SVG_PLAIN);
		chart_note(notes, &nn,
				   "A step down in IOPS while latency holds steady points to throttling or exhausted burst credits.",
				   false, RANREAD_SVG_MUTED);
	}
	else
	{
		chart_note(notes, &nn,
				   "Latency: not measured (the batch ran with ranread.timing = off), so only IOPS are drawn.",
				   false, RANREAD_SVG_PLAIN);
		chart_note(notes, &nn, "A step down in IOPS points to throttling or exhausted burst credits.",
				   false, RANREAD_SVG_MUTED);
	}
	chart->notes = notes;
	chart->nnotes = r->n > 0 ? nn : 0;
}

/*
 * ranread_timeline(batch bigint DEFAULT NULL) RETURNS text
 *
 * An SVG of IOPS, average and maximum latency per second of one batch, from
 * ranread_intervals: the latest batch that has intervals when batch is NULL.
 * Throttling and exhausted burst credits show as steps in the IOPS line.  A
 * batch run with ranread.timing = off has no latency: the timeline says so
 * and draws IOPS alone.
 */
Datum
ranread_timeline(PG_FUNCTION_ARGS)
{
	bool		have_batch = !PG_ARGISNULL(0);
	int64		batch = have_batch ? PG_GETARG_INT64(0) : 0;
	char	   *schema = ranread_schema_name();
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	RanreadSvgChart chart;
	TimelineRows rows;
	TimelineStats st;
	char	   *steady = NULL;
	bool		steady_good = false;
	double		batch_avg;
	Datum		result;

	ranread_svg_init(&chart, RANREAD_SVG_LINE);
	SPI_connect();

	if (!have_batch)
	{
		chart_query(psprintf("SELECT pg_catalog.max(i.batch) FROM %s.ranread_intervals i", schema),
					0, NULL, NULL, NULL);
		batch = col_int8(0, 1, -1);
	}
	if (batch < 0 && !have_batch)
	{
		chart.title = "ranread: IOPS and latency per second";
		chart.empty = "No batch has per-second intervals yet: run ranread_run() first.";
		result = chart_datum(&chart);
		SPI_finish();
		PG_RETURN_DATUM(result);
	}
	args[0] = Int64GetDatum(batch);

	chart_query(psprintf("SELECT b.target::pg_catalog.text, b.processes::pg_catalog.int8,"
						 " b.block_size::pg_catalog.int8, b.queue_depth::pg_catalog.int8,"
						 " b.write_pct::pg_catalog.int8, b.pattern, b.engine, b.status,"
						 " pg_catalog.to_char(b.run_at, 'YYYY-MM-DD HH24:MI:SS TZ'),"
						 " b.iops, b.avg_ms, b.p99_ms, b.max_ms"
						 " FROM %s.ranread_batches b WHERE b.batch OPERATOR(pg_catalog.=) $1",
						 schema),
				1, argtypes, args, NULL);
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("batch " INT64_FORMAT " for ranread_timeline does not exist", batch),
				 errhint("Pass NULL for the latest batch; ranread_summary lists the batches.")));
	timeline_titles(&chart, batch);
	batch_avg = col_float8(0, T_AVG);

	/* steady state (1.1): SNIA's verdict, and whether steady_state ended it */
	if (ranread_sql_version() >= 11)
	{
		chart_query(psprintf("SELECT b.steady, b.steady_excursion, b.steady_slope, b.ended_steady, b.steady_state"
							 " FROM %s.ranread_batches b WHERE b.batch OPERATOR(pg_catalog.=) $1", schema),
					1, argtypes, args, NULL);
		steady = timeline_steady(&steady_good);
	}

	/*
	 * a batch's seconds: the sums over its groups (a plain batch has one),
	 * the average latency weighted by each group's I/Os.  A figure beyond
	 * what a chart places (1e300, Infinity) is no value here, and each
	 * weight is a fraction of the second's I/Os, so that no sum overflows.
	 */
	chart_query(psprintf("SELECT s.second::pg_catalog.float8, pg_catalog.sum(s.iops),"
						 " pg_catalog.sum(s.avg_ms OPERATOR(pg_catalog.*) (s.ios OPERATOR(pg_catalog./) NULLIF(s.total, 0))),"
						 " pg_catalog.max(s.max_ms)"
						 " FROM (SELECT i.second,"
						 " CASE WHEN pg_catalog.abs(i.iops) OPERATOR(pg_catalog.<=) 1e300::pg_catalog.float8 THEN i.iops END AS iops,"
						 " CASE WHEN pg_catalog.abs(i.avg_ms) OPERATOR(pg_catalog.<=) 1e300::pg_catalog.float8 THEN i.avg_ms END AS avg_ms,"
						 " i.max_ms,"
						 " i.reads::pg_catalog.float8 OPERATOR(pg_catalog.+) i.writes::pg_catalog.float8 AS ios,"
						 " pg_catalog.sum(i.reads::pg_catalog.float8 OPERATOR(pg_catalog.+) i.writes::pg_catalog.float8)"
						 " OVER (PARTITION BY i.second) AS total"
						 " FROM %s.ranread_intervals i WHERE i.batch OPERATOR(pg_catalog.=) $1) s"
						 " GROUP BY s.second ORDER BY s.second", schema),
				1, argtypes, args, NULL);
	rows = timeline_rows();
	st = timeline_stats(&rows);
	/* no second and no batch figure has a latency: the batch was not timed */
	timeline_spec(&chart, &rows, &st, !isnan(st.worst_ms) || !isnan(batch_avg), batch_avg,
				  steady, steady_good);

	result = chart_datum(&chart);
	SPI_finish();
	PG_RETURN_DATUM(result);
}
