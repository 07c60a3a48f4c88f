/*-------------------------------------------------------------------------
 *
 * chart.c
 *		ranread_chart (a sweep: IOPS against processes, average and p99
 *		latency on a second axis, the latency bound, the verdict and a table
 *		of the steps) and ranread_timeline (one batch, second by second), as
 *		standalone SVG.
 *
 * The SVG uses presentation attributes only (no CSS, no script), all text
 * escaped and every non-ASCII character written as a character reference,
 * so it is well-formed XML in any server encoding and renders the same in
 * browsers, Inkscape and office suites.  The chart puts IOPS on the left
 * axis (which owns the gridlines) and latency on the right, each scaled to
 * its own data; processes are on a log2 x axis because a sweep doubles
 * them, so its steps are evenly spaced.  The verdict it states is computed
 * by the rule of ranread_sweep_judge (20_report.sql), and the tests check
 * that the two agree.  History is read through SPI with the helpers of
 * export.c (report.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/timestamp.h"

#include "ranread.h"
#include "report.h"

PG_FUNCTION_INFO_V1(ranread_chart);
PG_FUNCTION_INFO_V1(ranread_timeline);

/* ---------------------------------------------------------------------
 * SVG plotting
 * ---------------------------------------------------------------------
 */

/* Smallest 1, 2, 2.5 or 5 x 10^k that is at least v */
static double
nice_ceil(double v)
{
	static const double mantissas[] = {1.0, 2.0, 2.5, 5.0, 10.0};
	double		e;
	int			i;

	if (!(v > 0.0) || !isfinite(v))
		return 1.0;
	e = pow(10.0, floor(log10(v)));
	for (i = 0; i < lengthof(mantissas); i++)
		if (mantissas[i] * e >= v * (1.0 - 1e-9))
			return mantissas[i] * e;
	return 10.0 * e;
}

/* Decimals needed to print multiples of step exactly */
static int
axis_decimals(double step)
{
	int			d;

	for (d = 0; d < 6; d++)
	{
		double		scaled = step * pow(10.0, d);

		if (fabs(scaled - rint(scaled)) < 1e-6 * scaled)
			break;
	}
	return d;
}

/* An axis from 0 with the given number of ticks that covers datamax */
static ReportAxis
axis_make(double datamax, int ticks)
{
	ReportAxis	a;
	double		m = (datamax > 0.0 && isfinite(datamax)) ? datamax * 1.04 : 1.0;

	a.ticks = ticks;
	a.step = nice_ceil(m / ticks);
	a.max = a.step * a.ticks;
	a.decimals = axis_decimals(a.step);
	return a;
}

/*
 * An axis from 0 of 4 to 7 ticks that the data fill as far as they can.
 * Each y axis of a plot has its own; the gridlines follow the left one.
 */
static ReportAxis
axis_auto(double datamax)
{
	ReportAxis	best = axis_make(datamax, 4);
	int			t;

	for (t = 5; t <= 7; t++)
	{
		ReportAxis	a = axis_make(datamax, t);

		/* fewer ticks unless more fit the data clearly better */
		if (a.max < best.max * 0.95)
			best = a;
	}
	return best;
}

/* Pixel x of a data value */
static double
plot_x(const ReportPlot *p, double v)
{
	if (p->xlog)
		v = log2(v);
	return p->left + (v - p->xmin) / (p->xmax - p->xmin) * (p->right - p->left);
}

/* Pixel y of a value on an axis */
static double
plot_y(const ReportPlot *p, const ReportAxis *a, double v)
{
	return p->bottom - v / a->max * (p->bottom - p->top);
}

/* Append an axis tick label */
static void
tick_label(StringInfo out, const ReportAxis *a, double v, bool counts)
{
	if (counts && a->decimals == 0)
		appendStringInfoString(out, fmt_count(v));
	else
		appendStringInfo(out, "%.*f", a->decimals, v);
}

/* The SVG root element, a white background and the title lines */
static void
svg_begin(StringInfo out, int height, const char *title, const char *subtitle)
{
	appendStringInfo(out,
					 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
					 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
					 "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
					 "font-family=\"%s\" font-size=\"12\" fill=\"%s\">\n",
					 SVG_WIDTH, height, SVG_WIDTH, height, SVG_FONT, COLOR_TEXT);
	appendStringInfoString(out, "<title>");
	svg_escape(out, title);
	appendStringInfoString(out, "</title>\n");
	appendStringInfo(out, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
					 SVG_WIDTH, height);
	appendStringInfo(out, "<text x=\"%d\" y=\"34\" font-size=\"19\" font-weight=\"bold\">",
					 40);
	svg_escape(out, title);
	appendStringInfoString(out, "</text>\n");
	if (subtitle)
	{
		appendStringInfo(out, "<text x=\"40\" y=\"57\" font-size=\"13\" fill=\"%s\">",
						 COLOR_MUTED);
		svg_escape(out, subtitle);
		appendStringInfoString(out, "</text>\n");
	}
}

/* A whole SVG that only says there is nothing to draw */
static void
svg_empty(StringInfo out, const char *title, const char *message)
{
	svg_begin(out, 200, title, NULL);
	appendStringInfo(out,
					 "<rect x=\"40\" y=\"60\" width=\"%d\" height=\"100\" fill=\"#f8f9fa\" stroke=\"%s\"/>\n"
					 "<text x=\"%d\" y=\"115\" text-anchor=\"middle\" font-size=\"15\" fill=\"%s\">",
					 SVG_WIDTH - 80, COLOR_GRID, SVG_WIDTH / 2, COLOR_MUTED);
	svg_escape(out, message);
	appendStringInfoString(out, "</text>\n</svg>\n");
}

/* Append a line of text at (x, y) */
static void
svg_text(StringInfo out, double x, double y, const char *anchor,
		 const char *attrs, const char *s)
{
	appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
	if (anchor)
		appendStringInfo(out, " text-anchor=\"%s\"", anchor);
	if (attrs)
		appendStringInfo(out, " %s", attrs);
	appendStringInfoChar(out, '>');
	svg_escape(out, s);
	appendStringInfoString(out, "</text>\n");
}

/* Draw one marker */
static void
svg_marker(StringInfo out, char marker, double x, double y, const char *color)
{
	switch (marker)
	{
		case 'o':
			appendStringInfo(out,
							 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
							 x, y, color);
			break;
		case 's':
			appendStringInfo(out,
							 "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
							 x - 4.0, y - 4.0, color);
			break;
		case '^':
			appendStringInfo(out,
							 "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n",
							 x, y - 5.5, x + 5.0, y + 3.5, x - 5.0, y + 3.5, color);
			break;
		default:
			break;
	}
}

/* Grid, both y axes with their ticks and titles, and the plot frame */
static void
plot_frame(ReportPlot *p, const char *left_title, const char *right_title)
{
	StringInfo	out = p->out;
	int			i;
	double		mid = (p->top + p->bottom) / 2.0;

	for (i = 0; i <= p->yl.ticks; i++)
	{
		double		y = plot_y(p, &p->yl, p->yl.step * i);

		appendStringInfo(out,
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n",
						 p->left, y, p->right, y, i == 0 ? COLOR_AXIS : COLOR_GRID);
		appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">",
						 p->left - 8.0, y + 4.0, COLOR_IOPS);
		tick_label(out, &p->yl, p->yl.step * i, true);
		appendStringInfoString(out, "</text>\n");
	}
	for (i = 0; i <= p->yr.ticks; i++)
	{
		double		y = plot_y(p, &p->yr, p->yr.step * i);

		appendStringInfo(out,
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 p->right, y, p->right + 5.0, y, COLOR_AVG);
		appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">",
						 p->right + 9.0, y + 4.0, COLOR_AVG);
		tick_label(out, &p->yr, p->yr.step * i, false);
		appendStringInfoString(out, "</text>\n");
	}
	appendStringInfo(out,
					 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
					 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
					 p->left, p->top, p->left, p->bottom, COLOR_IOPS,
					 p->right, p->top, p->right, p->bottom, COLOR_AVG);
	appendStringInfo(out,
					 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
					 p->left - 72.0, mid, COLOR_IOPS);
	svg_escape(out, left_title);
	appendStringInfoString(out, "</text>\n");
	appendStringInfo(out,
					 "<text transform=\"translate(%.1f %.1f) rotate(90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
					 p->right + 62.0, mid, COLOR_AVG);
	svg_escape(out, right_title);
	appendStringInfoString(out, "</text>\n");
}

/*
 * Draw a series: a line through its points, broken where a value is NaN,
 * and (with markers) a marker on each point; without lines, a scatter.
 */
static void
plot_series(ReportPlot *p, const ReportSeries *s, bool lines, bool markers)
{
	StringInfo	out = p->out;
	const ReportAxis *a = s->right ? &p->yr : &p->yl;
	bool		pen_down = false;
	bool		open = false;
	int			i;

	for (i = 0; lines && i < p->n; i++)
	{
		if (isnan(s->y[i]) || isnan(p->x[i]))
		{
			pen_down = false;
			continue;
		}
		if (!open)
		{
			appendStringInfoString(out, "<path d=\"");
			open = true;
		}
		appendStringInfo(out, "%s%.1f %.1f", pen_down ? "L" : "M",
						 plot_x(p, p->x[i]), plot_y(p, a, s->y[i]));
		pen_down = true;
	}
	if (open)
	{
		appendStringInfo(out,
						 "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" stroke-linejoin=\"round\" stroke-linecap=\"round\"",
						 s->color, s->width);
		if (s->dash)
			appendStringInfo(out, " stroke-dasharray=\"%s\"", s->dash);
		appendStringInfoString(out, "/>\n");
	}

	if (!markers || s->marker == 0)
		return;
	for (i = 0; i < p->n; i++)
		if (!isnan(s->y[i]) && !isnan(p->x[i]))
			svg_marker(out, s->marker, plot_x(p, p->x[i]), plot_y(p, a, s->y[i]),
					   s->color);
}

/* A legend entry: a short line in the series' style, its marker, its label */
static double
legend_entry(StringInfo out, double x, double y, const char *color,
			 const char *dash, double width, char marker, const char *label)
{
	appendStringInfo(out,
					 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%.1f\"%s%s%s/>\n",
					 x, y, x + 28.0, y, color, width,
					 dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
	svg_marker(out, marker, x + 14.0, y, color);
	svg_text(out, x + 36.0, y + 4.0, NULL, NULL, label);
	/* a rough width of the label: good enough to place the next entry */
	return x + 36.0 + 6.6 * strlen(label) + 26.0;
}

/* The legend of a plot's series, in one row */
static double
plot_legend(StringInfo out, double x, double y, const ReportSeries *series, int n)
{
	int			i;

	for (i = 0; i < n; i++)
		x = legend_entry(out, x, y, series[i].color, series[i].dash,
						 series[i].width, series[i].marker, series[i].label);
	return x;
}

/*
 * A horizontal reference line across the plot at v on axis a, labelled at
 * its right end; when v is above the axis, a note at the top left says so.
 */
static void
plot_reference(ReportPlot *p, const ReportAxis *a, double v, const char *color,
			   const char *label)
{
	StringInfo	out = p->out;
	char	   *attrs = psprintf("font-size=\"11.5\" fill=\"%s\" %s", color, SVG_HALO);

	if (v > a->max)
	{
		/* top left: IOPS, and their labels, usually peak on the right */
		svg_text(out, p->left + 8.0, p->top + 14.0, NULL, attrs,
				 psprintf("%s: above this scale \xe2\x86\x91", label));
		return;
	}
	appendStringInfo(out,
					 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" stroke-dasharray=\"8 5\"/>\n",
					 p->left, plot_y(p, a, v), p->right, plot_y(p, a, v), color);
	svg_text(out, p->right - 6.0, plot_y(p, a, v) - 6.0, "end", attrs, label);
}


/* ---------------------------------------------------------------------
 * ranread_chart
 * ---------------------------------------------------------------------
 */

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

/* "random 8 KiB reads" and the like */
static char *
chart_workload(const ChartContext *cx)
{
	const char *op;

	if (cx->write_pct == 0)
		op = "reads";
	else if (cx->write_pct == 100)
		op = "writes";
	else if (cx->write_pct > 0)
		op = psprintf("I/O with %d%% writes", cx->write_pct);
	else
		op = "I/O";

	return psprintf("%s%s%s %s",
					cx->pattern ? cx->pattern : "mixed",
					cx->block_size > 0 ? " " : ", mixed block sizes,",
					cx->block_size > 0 ? fmt_block(cx->block_size) : "",
					op);
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
	char	   *target = spi_text(row, 9);
	int64		block_size = spi_int8(row, 10, -1);
	int			queue_depth = (int) spi_int8(row, 11, -1);
	int			write_pct = (int) spi_int8(row, 12, -1);
	char	   *pattern = spi_text(row, 13);
	char	   *engine = spi_text(row, 14);
	char	   *duration = spi_text_or_null(row, 15);
	int64		iterations = spi_int8(row, 16, -1);

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
		cx->first_run = spi_text(row, 17);
		cx->last_run = spi_text(row, 18);
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

/* The numbers of the chart, one row per batch, at y */
static double
chart_table(StringInfo out, double y, const ChartPoint *pts, int n,
			int64 best_batch, double bound, bool sweep_mode)
{
	static const struct
	{
		const char *header;
		double		x;
		const char *anchor;
	}			cols[] = {
		{NULL, 92, "end"},		/* "Step", or "#" when not a sweep */
		{"Processes", 182, "end"},
		{"Batch", 250, "end"},
		{"IOPS", 350, "end"},
		{"MB/s", 430, "end"},
		{"Avg ms", 510, "end"},
		{"p99 ms", 590, "end"},
		{"Max ms", 670, "end"},
		{NULL, 700, "start"},
	};
	const double row_h = 19.0;
	double		x0 = 48.0;
	double		x1 = SVG_WIDTH - 48.0;
	int			shown = Min(n, CHART_MAX_TABLE_ROWS);
	int			i;
	int			c;

	appendStringInfo(out,
					 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f1f3f5\"/>\n",
					 x0, y - 14.0, x1 - x0, row_h);
	for (c = 0; c < lengthof(cols); c++)
		svg_text(out, cols[c].x, y, cols[c].anchor, "font-weight=\"bold\"",
				 cols[c].header ? cols[c].header
				 : c == 0 ? (sweep_mode ? "Step" : "#")
				 : psprintf("Avg within %s ms?", fmt_setting(bound)));

	for (i = 0; i < shown; i++)
	{
		const ChartPoint *pt = &pts[i];
		bool		best = (pt->batch == best_batch);
		const char *attrs = best ? "font-weight=\"bold\"" : NULL;
		const char *verdict;
		double		ry = y + row_h * (i + 1);

		if (best)
			appendStringInfo(out,
							 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#ebfbee\"/>\n",
							 x0, ry - 14.0, x1 - x0, row_h);
		else if (i % 2 == 1)
			appendStringInfo(out,
							 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f8f9fa\"/>\n",
							 x0, ry - 14.0, x1 - x0, row_h);

		if (!pt->completed)
			verdict = psprintf("%s: not plotted", pt->status);
		else if (isnan(pt->avg_ms))
			verdict = "n/a";
		else if (pt->avg_ms <= bound)
			verdict = best ? "yes: highest IOPS" : "yes";
		else
			verdict = "no";

		svg_text(out, cols[0].x, ry, "end", attrs, psprintf("%d", i + 1));
		svg_text(out, cols[1].x, ry, "end", attrs, fmt_count(pt->processes));
		svg_text(out, cols[2].x, ry, "end", attrs, psprintf(INT64_FORMAT, pt->batch));
		svg_text(out, cols[3].x, ry, "end", attrs, fmt_count(pt->iops));
		svg_text(out, cols[4].x, ry, "end", attrs,
				 isnan(pt->mbps) ? "n/a" : psprintf("%.1f", pt->mbps));
		svg_text(out, cols[5].x, ry, "end", attrs, fmt_ms(pt->avg_ms));
		svg_text(out, cols[6].x, ry, "end", attrs, fmt_ms(pt->p99_ms));
		svg_text(out, cols[7].x, ry, "end", attrs, fmt_ms(pt->max_ms));
		svg_text(out, cols[8].x, ry, NULL,
				 best ? psprintf("font-weight=\"bold\" fill=\"%s\"", COLOR_BEST) :
				 (pt->avg_ms > bound || !pt->completed) ?
				 psprintf("fill=\"%s\"", COLOR_BOUND) : NULL,
				 verdict);
	}
	y += row_h * (shown + 1);
	if (shown < n)
	{
		svg_text(out, x0, y, NULL, psprintf("fill=\"%s\"", COLOR_MUTED),
				 psprintf("... and %d more batches: see ranread_summary", n - shown));
		y += row_h;
	}
	return y;
}

/* Whether point i has the highest IOPS of the points at its processes */
static bool
chart_best_at(const double *xs, const double *y, int n, int i)
{
	int			j;

	for (j = 0; j < n; j++)
		if (j != i && xs[j] == xs[i] && !isnan(y[j]) &&
			(y[j] > y[i] || (y[j] == y[i] && j < i)))
			return false;
	return true;
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
	StringInfoData buf;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	char		nulls[1] = {' '};
	const char *where;
	ChartContext cx;
	ChartPoint *pts;
	double	   *xs;
	double	   *y_iops;
	double	   *y_avg;
	double	   *y_p99;
	int			n;
	int			nplot = 0;
	int			i;
	double		bound = REPORT_DEFAULT_BOUND_MS;
	bool		bound_recorded = false;
	char	   *stop_reason = NULL;
	int64		best_batch = -1;
	ChartPoint *best = NULL;
	double		max_iops = 0.0;
	double		max_ms = 0.0;
	double		pmin = 0.0;
	double		pmax = 0.0;
	char	   *title;
	char	   *subtitle;
	ReportPlot	plot;
	ReportSeries series[3];
	int			height;
	double		y;
	double		last_label = -1e9;
	bool		scatter = false;

	initStringInfo(&buf);
	SPI_connect();

	/* Which batches: the sweep asked for, the latest sweep, or all */
	if (have_sweep)
	{
		args[0] = Int64GetDatum(sweep);
		report_query(psprintf("SELECT 1 FROM %s.ranread_batches b"
							  " WHERE b.sweep OPERATOR(pg_catalog.=) $1 LIMIT 1",
							  schema),
					 1, argtypes, args, nulls);
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sweep " INT64_FORMAT " for ranread_chart has no batches", sweep),
					 errhint("Pass NULL for the latest sweep; the sweep column of ranread_summary names the sweeps.")));
	}
	else
	{
		report_query(psprintf("SELECT pg_catalog.max(b.sweep) FROM %s.ranread_batches b",
							  schema),
					 0, NULL, NULL, NULL);
		sweep = spi_int8(0, 1, -1);
		have_sweep = (sweep >= 0);
	}
	args[0] = Int64GetDatum(sweep);
	where = have_sweep ? "b.sweep OPERATOR(pg_catalog.=) $1"
		: "b.status OPERATOR(pg_catalog.=) 'completed' AND $1 IS NULL";
	if (!have_sweep)
		nulls[0] = 'n';

	/* The bound and the stop reason, when the sweep recorded them */
	if (have_sweep)
	{
		report_query(psprintf("SELECT s.max_avg_ms, s.stop_reason FROM %s.ranread_sweeps s"
							  " WHERE s.sweep OPERATOR(pg_catalog.=) $1", schema),
					 1, argtypes, args, nulls);
		if (SPI_processed > 0 && !isnan(spi_float8(0, 1)))
		{
			bound = spi_float8(0, 1);
			bound_recorded = true;
			stop_reason = spi_text_or_null(0, 2);
		}
	}

	/* The batches, in the order of the x axis */
	report_query(psprintf("SELECT b.batch, b.processes::pg_catalog.int8, b.iops, b.mbps, b.avg_ms, b.p99_ms,"
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
		svg_empty(&buf, "ranread: IOPS and latency against processes",
				  "No completed batches yet: run ranread_sweep() or ranread_run() first.");
		SPI_finish();
		PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
	}

	pts = palloc0(sizeof(ChartPoint) * n);
	xs = palloc(sizeof(double) * n);
	y_iops = palloc(sizeof(double) * n);
	y_avg = palloc(sizeof(double) * n);
	y_p99 = palloc(sizeof(double) * n);
	memset(&cx, 0, sizeof(cx));
	for (i = 0; i < n; i++)
	{
		ChartPoint *pt = &pts[i];

		pt->batch = spi_int8(i, 1, -1);
		pt->processes = (int) spi_int8(i, 2, 0);
		pt->iops = spi_float8(i, 3);
		pt->mbps = spi_float8(i, 4);
		pt->avg_ms = spi_float8(i, 5);
		pt->p99_ms = spi_float8(i, 6);
		pt->max_ms = spi_float8(i, 7);
		pt->status = spi_text(i, 8);
		pt->completed = (strcmp(pt->status, "completed") == 0);
		chart_context_add(&cx, i, i == 0);

		if (pt->completed && pt->processes > 0)
		{
			xs[i] = pt->processes;
			y_iops[i] = pt->iops;
			y_avg[i] = pt->avg_ms;
			y_p99[i] = pt->p99_ms;
			if (nplot == 0 || pt->processes < pmin)
				pmin = pt->processes;
			if (nplot == 0 || pt->processes > pmax)
				pmax = pt->processes;
			if (!isnan(pt->iops))
				max_iops = Max(max_iops, pt->iops);
			if (!isnan(pt->avg_ms))
				max_ms = Max(max_ms, pt->avg_ms);
			if (!isnan(pt->p99_ms))
				max_ms = Max(max_ms, pt->p99_ms);
			nplot++;
		}
		else
			xs[i] = y_iops[i] = y_avg[i] = y_p99[i] = get_float8_nan();

		/*
		 * The verdict, by ranread_sweep_judge's rule: the highest IOPS of a
		 * completed batch within the bound; on a tie the fewest processes
		 * (rows come ordered by processes, then batch).
		 */
		if (pt->completed && !isnan(pt->iops) && !isnan(pt->avg_ms) &&
			pt->avg_ms <= bound && (best == NULL || pt->iops > best->iops))
			best = pt;
	}
	best_batch = best ? best->batch : -1;

	/*
	 * Several batches at the same processes (no sweep, repeated runs): a line
	 * through them would zigzag, so draw points only, and label the best
	 * IOPS at each processes.
	 */
	for (i = 1; i < n; i++)
		if (!isnan(xs[i]) && !isnan(xs[i - 1]) && xs[i] == xs[i - 1])
			scatter = true;

	/* Title: what was measured, where and when */
	title = psprintf("IOPS and latency vs processes: %s%s%s%s",
					 chart_workload(&cx),
					 cx.target ? " on target \xe2\x80\x9c" : ", several targets",
					 cx.target ? cx.target : "",
					 cx.target ? "\xe2\x80\x9d" : "");
	subtitle = psprintf("%s \xc2\xb7 %s \xc2\xb7 %d batch%s",
						have_sweep ? psprintf("Sweep " INT64_FORMAT, sweep)
						: "All completed batches",
						chart_when(&cx), n, n == 1 ? "" : "es");
	if (cx.queue_depth > 0)
		subtitle = psprintf("%s \xc2\xb7 queue depth %d", subtitle, cx.queue_depth);
	if (cx.duration && cx.duration[0])
		subtitle = psprintf("%s \xc2\xb7 %s s per step", subtitle, cx.duration);
	else if (cx.iterations > 0)
		subtitle = psprintf("%s \xc2\xb7 %s I/Os per process", subtitle,
							fmt_count((double) cx.iterations));
	if (cx.engine && cx.engine[0])
		subtitle = psprintf("%s \xc2\xb7 engine %s", subtitle, cx.engine);

	/* the table's last row sits at plot.bottom + 173 + 19 x rows */
	height = 625 + 19 * (Min(n, CHART_MAX_TABLE_ROWS) + (n > CHART_MAX_TABLE_ROWS ? 1 : 0));
	svg_begin(&buf, height, title, subtitle);

	/* The plot */
	memset(&plot, 0, sizeof(plot));
	plot.out = &buf;
	plot.left = 112;
	plot.right = SVG_WIDTH - 104;
	plot.top = 104;
	plot.bottom = 430;
	plot.xlog = true;
	if (nplot == 0)
		pmin = pmax = 1;
	plot.xmin = log2(pmin) - (pmin == pmax ? 1.0 : 0.4);
	plot.xmax = log2(pmax) + (pmin == pmax ? 1.0 : 0.4);
	plot.n = n;
	plot.x = xs;
	/* room above the IOPS points for their labels; the bound in scale unless it would squash the latency lines */
	plot.yl = axis_auto(max_iops * 1.08);
	plot.yr = axis_auto(bound <= 2.5 * max_ms ? Max(max_ms, bound) : max_ms);

	series[0] = (ReportSeries)
	{
		"IOPS (left axis)", COLOR_IOPS, NULL, 2.5, 'o', false, y_iops
	};
	series[1] = (ReportSeries)
	{
		"Average latency (right)", COLOR_AVG, NULL, 2.0, 's', true, y_avg
	};
	series[2] = (ReportSeries)
	{
		"p99 latency (right)", COLOR_P99, NULL, 2.0, '^', true, y_p99
	};

	y = plot_legend(&buf, 40, 82, series, lengthof(series));
	legend_entry(&buf, y, 82, COLOR_BOUND, "8 5", 1.5, 0,
				 psprintf("Average latency bound %s ms%s", fmt_setting(bound),
						  bound_recorded ? "" : " (default)"));

	plot_frame(&plot, "IOPS (I/O operations per second)", "Latency (ms)");

	/* x ticks at the process counts, skipping labels that would collide */
	for (i = 0; i < n; i++)
	{
		double		px;

		if (isnan(xs[i]) || (i > 0 && xs[i] == xs[i - 1]))
			continue;
		px = plot_x(&plot, xs[i]);
		appendStringInfo(&buf,
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 px, plot.top, px, plot.bottom, COLOR_GRID);
		appendStringInfo(&buf,
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 px, plot.bottom, px, plot.bottom + 5.0, COLOR_AXIS);
		if (px - last_label >= 34.0)
		{
			svg_text(&buf, px, plot.bottom + 20.0, "middle", NULL, fmt_count(xs[i]));
			last_label = px;
		}
	}
	svg_text(&buf, (plot.left + plot.right) / 2.0, plot.bottom + 44.0, "middle",
			 "font-size=\"13\" font-weight=\"bold\"",
			 cx.queue_depth > 1 ?
			 psprintf("Processes (I/O streams of queue depth %d each; log\xe2\x82\x82 scale)",
					  cx.queue_depth) :
			 "Processes (concurrent synchronous I/O streams; log\xe2\x82\x82 scale)");

	plot_reference(&plot, &plot.yr, bound, COLOR_BOUND,
				   psprintf("bound %s ms", fmt_setting(bound)));

	for (i = lengthof(series) - 1; i >= 0; i--)
		plot_series(&plot, &series[i], !scatter, true);

	/* IOPS data labels, and a ring around the verdict's point */
	last_label = -1e9;
	for (i = 0; i < n; i++)
	{
		double		px;
		double		py;
		bool		label;

		if (isnan(xs[i]) || isnan(y_iops[i]))
			continue;
		px = plot_x(&plot, xs[i]);
		py = plot_y(&plot, &plot.yl, y_iops[i]);
		if (pts[i].batch == best_batch)
			appendStringInfo(&buf,
							 "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n",
							 px, py, COLOR_BEST);
		if (pts[i].batch == best_batch)
			label = true;
		else if (scatter)
			label = chart_best_at(xs, y_iops, n, i) &&
				!(best && xs[i] == (double) best->processes);
		else
			label = (px - last_label >= 48.0);
		if (label)
		{
			svg_text(&buf, px, py - 13.0, "middle",
					 psprintf("font-size=\"11.5\" font-weight=\"bold\" fill=\"%s\" %s",
							  pts[i].batch == best_batch ? COLOR_BEST : COLOR_IOPS, SVG_HALO),
					 fmt_count(y_iops[i]));
			last_label = px;
		}
	}

	/* The verdict in words */
	y = plot.bottom + 76.0;
	if (best)
	{
		bool		flash = (best->avg_ms <= 2.0 && best->max_ms <= 5.0);

		svg_text(&buf, 40, y, NULL, "font-size=\"15\" font-weight=\"bold\"",
				 psprintf("%s%s IOPS at %s processes: the most within the %s ms average latency bound",
						  have_sweep ? "Verdict: " : "", fmt_count(best->iops),
						  fmt_count(best->processes), fmt_setting(bound)));
		svg_text(&buf, 40, y + 21.0, NULL, "font-size=\"13\"",
				 psprintf("Latency at that step (batch " INT64_FORMAT "): average %s ms, p99 %s ms, maximum %s ms",
						  best->batch, fmt_ms(best->avg_ms), fmt_ms(best->p99_ms),
						  fmt_ms(best->max_ms)));
		svg_text(&buf, 40, y + 42.0, NULL,
				 psprintf("font-size=\"13\" font-weight=\"bold\" fill=\"%s\"",
						  flash ? COLOR_BEST : COLOR_BOUND),
				 flash ?
				 "Meets the all-flash guidance (average \xe2\x89\xa4 2 ms, never above 5 ms)" :
				 "Does not meet the all-flash guidance (average \xe2\x89\xa4 2 ms, never above 5 ms)");
	}
	else
		svg_text(&buf, 40, y, NULL,
				 psprintf("font-size=\"15\" font-weight=\"bold\" fill=\"%s\"", COLOR_BOUND),
				 psprintf("No completed batch stayed within the %s ms average latency bound.",
						  fmt_setting(bound)));
	if (stop_reason)
		svg_text(&buf, 40, y + 63.0, NULL, psprintf("font-size=\"13\" fill=\"%s\"", COLOR_MUTED),
				 psprintf("Sweep stopped on %s", stop_reason));
	else if (have_sweep && !bound_recorded)
		svg_text(&buf, 40, y + 63.0, NULL, psprintf("font-size=\"13\" fill=\"%s\"", COLOR_MUTED),
				 "This sweep recorded no verdict (it did not finish): the figures come from its batches, judged against the default bound.");

	chart_table(&buf, y + 97.0, pts, n, best_batch, bound, have_sweep);
	appendStringInfoString(&buf, "</svg>\n");

	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}


/* ---------------------------------------------------------------------
 * ranread_timeline
 * ---------------------------------------------------------------------
 */

/*
 * ranread_timeline(batch bigint DEFAULT NULL) RETURNS text
 *
 * An SVG of IOPS, average and maximum latency per second of one batch, from
 * ranread_intervals: the latest batch that has intervals when batch is NULL.
 * Throttling and exhausted burst credits show as steps in the IOPS line.
 */
Datum
ranread_timeline(PG_FUNCTION_ARGS)
{
	bool		have_batch = !PG_ARGISNULL(0);
	int64		batch = have_batch ? PG_GETARG_INT64(0) : 0;
	char	   *schema = ranread_schema_name();
	StringInfoData buf;
	Oid			argtypes[1] = {INT8OID};
	Datum		args[1];
	char	   *title;
	char	   *subtitle;
	int			n;
	int			i;
	double	   *xs;
	double	   *y_iops;
	double	   *y_avg;
	double	   *y_max;
	double		sum = 0.0;
	double		sumsq = 0.0;
	double		lo = 0.0;
	double		hi = 0.0;
	double		worst = 0.0;
	double		xmin = 0.0;
	double		xmax = 0.0;
	double		mean;
	double		cv;
	int			nvalid = 0;
	ReportPlot	plot;
	ReportSeries series[3];
	double		xstep;
	double		t;
	double		batch_avg;

	initStringInfo(&buf);
	SPI_connect();

	if (!have_batch)
	{
		report_query(psprintf("SELECT pg_catalog.max(i.batch) FROM %s.ranread_intervals i",
							  schema),
					 0, NULL, NULL, NULL);
		batch = spi_int8(0, 1, -1);
		if (batch < 0)
		{
			svg_empty(&buf, "ranread: IOPS and latency per second",
					  "No batch has per-second intervals yet: run ranread_run() first.");
			SPI_finish();
			PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
		}
	}
	args[0] = Int64GetDatum(batch);

	report_query(psprintf("SELECT b.target::pg_catalog.text, b.processes::pg_catalog.int8,"
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

	{
		int			wp = (int) spi_int8(0, 5, 0);
		char	   *op = wp == 0 ? "reads" : wp == 100 ? "writes"
			: psprintf("I/O with %d%% writes", wp);

		title = psprintf("IOPS and latency per second: batch " INT64_FORMAT ", %s %s %s",
						 batch, spi_text(0, 6), fmt_block(spi_int8(0, 3, 0)), op);
		subtitle = psprintf("Target \xe2\x80\x9c%s\xe2\x80\x9d \xc2\xb7 %s \xc2\xb7 %s processes \xc2\xb7 queue depth %s \xc2\xb7 engine %s \xc2\xb7 status %s",
							spi_text(0, 1), spi_text(0, 9), fmt_count((double) spi_int8(0, 2, 0)),
							spi_text(0, 4), spi_text(0, 7), spi_text(0, 8));
		batch_avg = spi_float8(0, 11);
	}

	report_query(psprintf("SELECT i.second::pg_catalog.float8, i.iops, i.avg_ms, i.max_ms"
						  " FROM %s.ranread_intervals i WHERE i.batch OPERATOR(pg_catalog.=) $1"
						  " ORDER BY i.second", schema),
				 1, argtypes, args, NULL);
	n = (int) SPI_processed;
	if (n == 0)
	{
		svg_empty(&buf, title,
				  psprintf("Batch " INT64_FORMAT " has no per-second intervals (it measured for less than a second, or is still running).",
						   batch));
		SPI_finish();
		PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
	}

	xs = palloc(sizeof(double) * n);
	y_iops = palloc(sizeof(double) * n);
	y_avg = palloc(sizeof(double) * n);
	y_max = palloc(sizeof(double) * n);
	for (i = 0; i < n; i++)
	{
		/* second s covers [s, s + 1) of the measured run: plot its middle */
		xs[i] = spi_float8(i, 1) + 0.5;
		y_iops[i] = spi_float8(i, 2);
		y_avg[i] = spi_float8(i, 3);
		y_max[i] = spi_float8(i, 4);
		if (i == 0 || xs[i] < xmin)
			xmin = xs[i];
		if (i == 0 || xs[i] > xmax)
			xmax = xs[i];
		if (!isnan(y_iops[i]))
		{
			if (nvalid == 0 || y_iops[i] < lo)
				lo = y_iops[i];
			if (nvalid == 0 || y_iops[i] > hi)
				hi = y_iops[i];
			sum += y_iops[i];
			sumsq += y_iops[i] * y_iops[i];
			nvalid++;
		}
		if (!isnan(y_avg[i]))
			worst = Max(worst, y_avg[i]);
		if (!isnan(y_max[i]))
			worst = Max(worst, y_max[i]);
	}
	mean = nvalid > 0 ? sum / nvalid : 0.0;
	cv = (nvalid > 1 && mean > 0.0) ?
		sqrt(Max(0.0, sumsq / nvalid - mean * mean)) / mean * 100.0 : 0.0;

	svg_begin(&buf, 575, title, subtitle);

	memset(&plot, 0, sizeof(plot));
	plot.out = &buf;
	plot.left = 112;
	plot.right = SVG_WIDTH - 104;
	plot.top = 104;
	plot.bottom = 430;
	plot.xlog = false;
	/* x: seconds from 0 (or the first second), ticks every 1, 2 or 5 x 10^k */
	xmin = Min(xmin - 0.5, 0.0);
	xmax += 0.5;
	xstep = nice_ceil(Max(xmax - xmin, 1.0) / 10.0);
	if (fabs(xstep / pow(10.0, floor(log10(xstep))) - 2.5) < 1e-9)
		xstep *= 2.0;
	xstep = Max(xstep, 1.0);
	plot.xmin = xmin;
	plot.xmax = xmin + Max(1.0, ceil((xmax - xmin) / xstep - 1e-9)) * xstep;
	plot.n = n;
	plot.x = xs;
	plot.yl = axis_auto(hi);
	plot.yr = axis_auto(worst);

	series[0] = (ReportSeries)
	{
		"IOPS (left axis)", COLOR_IOPS, NULL, 2.2, 'o', false, y_iops
	};
	series[1] = (ReportSeries)
	{
		"Average latency (right)", COLOR_AVG, NULL, 2.0, 's', true, y_avg
	};
	series[2] = (ReportSeries)
	{
		"Maximum latency (right)", COLOR_P99, NULL, 1.2, 0, true, y_max
	};
	t = plot_legend(&buf, 40, 82, series, lengthof(series));
	legend_entry(&buf, t, 82, COLOR_IOPS, "3 4", 1.2, 0, "Mean IOPS");

	plot_frame(&plot, "IOPS (I/O operations per second)", "Latency (ms)");
	for (t = xmin; t <= plot.xmax + 1e-9; t += xstep)
	{
		double		px = plot_x(&plot, t);

		appendStringInfo(&buf,
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
						 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
						 px, plot.top, px, plot.bottom, COLOR_GRID,
						 px, plot.bottom, px, plot.bottom + 5.0, COLOR_AXIS);
		svg_text(&buf, px, plot.bottom + 20.0, "middle", NULL,
				 psprintf("%.0f", t));
	}
	svg_text(&buf, (plot.left + plot.right) / 2.0, plot.bottom + 44.0, "middle",
			 "font-size=\"13\" font-weight=\"bold\"",
			 "Seconds into the measured run (warm-up excluded)");

	appendStringInfo(&buf,
					 "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.2\" stroke-dasharray=\"3 4\"/>\n",
					 plot.left, plot_y(&plot, &plot.yl, mean), plot.right,
					 plot_y(&plot, &plot.yl, mean), COLOR_IOPS);
	for (i = lengthof(series) - 1; i >= 0; i--)
		plot_series(&plot, &series[i], true, n <= 90);

	svg_text(&buf, plot_x(&plot, plot.xmax) - 6.0, plot_y(&plot, &plot.yl, mean) - 6.0, "end",
			 psprintf("font-size=\"11.5\" fill=\"%s\" %s", COLOR_IOPS, SVG_HALO),
			 psprintf("mean %s", fmt_count(mean)));

	svg_text(&buf, 40, plot.bottom + 78.0, NULL, "font-size=\"15\" font-weight=\"bold\"",
			 psprintf("IOPS per second over %d s: mean %s, lowest %s, highest %s, coefficient of variation %.1f%%",
					  nvalid, fmt_count(mean), fmt_count(lo), fmt_count(hi), cv));
	svg_text(&buf, 40, plot.bottom + 99.0, NULL, "font-size=\"13\"",
			 psprintf("Latency: average over the batch %s ms; the slowest I/O took %s ms",
					  fmt_ms(batch_avg), fmt_ms(worst)));
	svg_text(&buf, 40, plot.bottom + 120.0, NULL,
			 psprintf("font-size=\"13\" fill=\"%s\"", COLOR_MUTED),
			 "A step down in IOPS while latency holds steady points to throttling or exhausted burst credits.");
	appendStringInfoString(&buf, "</svg>\n");

	SPI_finish();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}


