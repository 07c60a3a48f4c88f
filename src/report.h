/*
 * report.h
 *		What export.c (files) and chart.c (SVG) share: reading history
 *		through SPI, formatting numbers, and the look of the charts.
 */
#ifndef RANREAD_REPORT_H
#define RANREAD_REPORT_H

#include "lib/stringinfo.h"

/* The latency bound of the methodology, when a sweep did not record one */
#define REPORT_DEFAULT_BOUND_MS 10.0

/* Rows of the chart's table before it says "... and N more" */
#define CHART_MAX_TABLE_ROWS 24

#define SVG_WIDTH 960
#define SVG_FONT "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

/* A white outline under text that sits on lines, so both stay legible */
#define SVG_HALO "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

#define COLOR_TEXT "#212529"
#define COLOR_MUTED "#5c636a"
#define COLOR_GRID "#e9ecef"
#define COLOR_AXIS "#adb5bd"
#define COLOR_IOPS "#1c5fa8"
#define COLOR_AVG "#d9480f"
#define COLOR_P99 "#f59f00"
#define COLOR_BOUND "#c92a2a"
#define COLOR_BEST "#2b8a3e"


/* A y axis from 0 to ticks * step */
typedef struct ReportAxis
{
	double		step;
	int			ticks;
	double		max;
	int			decimals;
} ReportAxis;

/* One line of a plot and how it is drawn */
typedef struct ReportSeries
{
	const char *label;
	const char *color;
	const char *dash;			/* stroke-dasharray, or NULL for solid */
	double		width;
	char		marker;			/* 'o', 's', '^', or 0 for none */
	bool		right;			/* against the right axis */
	const double *y;			/* NaN where there is no value */
} ReportSeries;

/* The plot area of an SVG and its coordinate system */
typedef struct ReportPlot
{
	StringInfo	out;
	double		left;			/* plot area, px */
	double		right;
	double		top;
	double		bottom;
	bool		xlog;			/* x is log2(value) */
	double		xmin;			/* x data range, after log2 when xlog */
	double		xmax;
	ReportAxis	yl;
	ReportAxis	yr;
	int			n;
	const double *x;
} ReportPlot;

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

extern void report_query(const char *sql, int nargs, Oid *types, Datum *values, const char *nulls);
extern double spi_float8(int row, int col);
extern int64 spi_int8(int row, int col, int64 dflt);
extern char *spi_text_or_null(int row, int col);
extern char *spi_text(int row, int col);
extern void svg_escape(StringInfo out, const char *s);
extern char *fmt_count(double v);
extern char *fmt_ms(double v);
extern char *fmt_setting(double v);
extern char *fmt_block(int64 bytes);


#endif							/* RANREAD_REPORT_H */
