/*
 * svg.h
 *		The chart renderer (svg.c): a chart described as data, drawn as a
 *		standalone SVG; and the escaping and number formats every report
 *		uses.  chart_json.c reads the same description from jsonb, the way
 *		every chart of ranread is given.
 *
 * A caller fills a RanreadSvgChart (ranread_svg_init first: it sets every
 * field to "not given"), points its arrays at its own memory, and calls
 * ranread_svg_render.  Strings are UTF-8; NaN in a value means "none", and
 * so does a value beyond +-RANREAD_SVG_MAX_VALUE or infinite: the renderer
 * places only values whose spans and pixels stay finite.  Its work grows
 * with the points, cells and text it is given, about linearly; the limits
 * of what a spec may hold are ranread_svg's (chart_json.c).
 */
#ifndef RANREAD_SVG_H
#define RANREAD_SVG_H

#include "lib/stringinfo.h"

/* Look shared by every chart */
#define RANREAD_SVG_COLOR_TEXT "#212529"
#define RANREAD_SVG_COLOR_MUTED "#5c636a"
#define RANREAD_SVG_COLOR_GOOD "#2b8a3e"
#define RANREAD_SVG_COLOR_BAD "#c92a2a"

/* Most series a chart draws; the most table columns */
#define RANREAD_SVG_MAX_SERIES 12
#define RANREAD_SVG_MAX_COLUMNS 16

/*
 * The most bytes of SVG one chart draws: a limit of the work and memory of
 * one call, whatever the spec (ranread_svg is granted to pg_monitor)
 */
#define RANREAD_SVG_MAX_OUTPUT (64 * 1024 * 1024)

/* The largest magnitude of a value a chart places (its spans stay finite) */
#define RANREAD_SVG_MAX_VALUE 1e300

typedef enum RanreadSvgKind
{
	RANREAD_SVG_LINE,			/* series of (x, y) points */
	RANREAD_SVG_BAR,			/* categories, one bar per series in each */
	RANREAD_SVG_HEAT			/* a grid of cells coloured by value */
} RanreadSvgKind;

typedef enum RanreadSvgScale
{
	RANREAD_SVG_LINEAR,
	RANREAD_SVG_LOG,
	RANREAD_SVG_AUTO			/* log when positive data span >= 100x */
} RanreadSvgScale;

typedef enum RanreadSvgFormat
{
	RANREAD_SVG_NUMBER,			/* 0.123, 4.56, 78.9, 1,234 */
	RANREAD_SVG_COUNT			/* 1,234 (rounded) */
} RanreadSvgFormat;

typedef enum RanreadSvgTone
{
	RANREAD_SVG_PLAIN,
	RANREAD_SVG_GOOD,			/* bold, green */
	RANREAD_SVG_BAD,			/* bold, red */
	RANREAD_SVG_MUTED			/* grey */
} RanreadSvgTone;

/*
 * A time axis (x of a line chart only): DURATION takes x in seconds and
 * draws them in seconds, minutes, hours or days, chosen by the span, the
 * unit added to the label; CLOCK takes x as Unix time (seconds since
 * 1970-01-01 UTC) and ticks at round clock times (HH:MM, a date at
 * midnight), shifted by the axis's utc_offset.
 */
typedef enum RanreadSvgTime
{
	RANREAD_SVG_TIME_NONE,
	RANREAD_SVG_TIME_DURATION,
	RANREAD_SVG_TIME_CLOCK
} RanreadSvgTime;

/* An axis; the label carries the unit: "Latency (ms)" */
typedef struct RanreadSvgAxis
{
	const char *label;
	RanreadSvgScale scale;
	double		base;			/* of a log scale: 2 or 10 */
	double		min;			/* NaN: from the data (linear: from 0) */
	double		max;			/* NaN: from the data */
	bool		integer;		/* linear ticks at whole numbers only */
	bool		data_ticks;		/* x: a tick at each x of the data */
	RanreadSvgFormat format;	/* of the tick labels */
	const char *color;			/* ticks, axis line, title; NULL: neutral */
	RanreadSvgTime time;		/* x: a time axis (never log) */
	double		utc_offset;		/* CLOCK: seconds east of UTC of the labels */
} RanreadSvgAxis;

/* A line (x, y per point) or a bar series (y per category) */
typedef struct RanreadSvgSeries
{
	const char *label;
	int			n;
	const double *x;			/* line charts; NaN: no point */
	const double *y;			/* NaN: no value (a gap in the line) */
	const char *const *texts;	/* what to print at each point, or NULL */
	bool		right;			/* against the right y axis */
	bool		no_line;		/* markers only */
	bool		labels;			/* print the values at the points */
	RanreadSvgFormat format;	/* of printed values */
	const char *color;			/* NULL: the palette's */
	const char *dash;			/* stroke-dasharray; NULL: palette's, "": solid */
	char		marker;			/* o s ^ v d x, '-' none, 0: palette's */
	double		width;			/* stroke width; 0: 2 */
} RanreadSvgSeries;

/* A horizontal reference line, such as a latency bound */
typedef struct RanreadSvgLine
{
	double		value;
	bool		right;			/* on the right y axis */
	const char *label;			/* at its right end */
	const char *legend;			/* a legend entry, or NULL */
	const char *color;			/* NULL: red */
	const char *dash;			/* NULL: "8 5" */
	double		width;			/* 0: 1.5 */
} RanreadSvgLine;

/* A point ringed and labelled: the verdict's, the best */
typedef struct RanreadSvgHighlight
{
	int			series;
	int			point;
	const char *label;			/* beside the ring, or NULL */
	const char *color;			/* NULL: green */
} RanreadSvgHighlight;

/* A line of text under the chart; a headline is larger */
typedef struct RanreadSvgNote
{
	const char *text;
	bool		headline;
	RanreadSvgTone tone;
} RanreadSvgNote;

typedef struct RanreadSvgCell
{
	const char *text;
	RanreadSvgTone tone;
} RanreadSvgCell;

/* A table under the chart: a header row, then rows of text cells */
typedef struct RanreadSvgTable
{
	int			ncols;			/* 0: no table */
	int			nrows;
	const char *const *header;	/* ncols */
	const bool *left;			/* per column: left-aligned (else right) */
	const RanreadSvgCell *cells;	/* nrows x ncols, row by row */
	const bool *highlight;		/* per row, or NULL */
	const char *more;			/* a line under the last row, or NULL */
} RanreadSvgTable;

/* A heat table: rows x columns of values, the colour scale low -> high */
typedef struct RanreadSvgHeat
{
	int			nrows;
	int			ncols;
	const char *const *rows;	/* row labels */
	const char *const *cols;	/* column labels */
	const double *values;		/* nrows x ncols, NaN: none */
	const char *metric;			/* what the values are, with the unit */
	RanreadSvgScale scale;
	RanreadSvgFormat format;
	const char *const *colors;	/* the scale's stops, low -> high, or NULL */
	int			ncolors;
	const double *edges;		/* a panel's: ncols + 1 column edges on the
								 * chart's x axis, increasing; NULL: a table */
} RanreadSvgHeat;

/* Most panels under one chart */
#define RANREAD_SVG_MAX_PANELS 4

typedef struct RanreadSvgChart
{
	RanreadSvgKind kind;
	const char *title;			/* what was compared */
	const char *subtitle;
	const char *empty;			/* said when there is nothing to draw */
	RanreadSvgAxis x;			/* heat: the columns' dimension */
	RanreadSvgAxis y;			/* heat: the rows' dimension */
	RanreadSvgAxis y2;			/* right axis (series with right = true) */
	int			nseries;
	const RanreadSvgSeries *series;
	int			ncategories;	/* bar */
	const char *const *categories;
	int			nlines;
	const RanreadSvgLine *lines;
	int			nhighlights;
	const RanreadSvgHighlight *highlights;
	int			nnotes;
	const RanreadSvgNote *notes;
	RanreadSvgTable table;
	RanreadSvgHeat heat;
	/*
	 * Line charts: panels stacked under the plot on its x axis (same range,
	 * ticks and plot area); each is a heat chart (title, y label, heat with
	 * edges) whose columns span x from edge to edge
	 */
	int			npanels;
	const struct RanreadSvgChart *panels;
} RanreadSvgChart;

extern void ranread_svg_init(RanreadSvgChart *chart, RanreadSvgKind kind);
extern void ranread_svg_render(StringInfo out, const RanreadSvgChart *chart);

extern void ranread_svg_escape(StringInfo out, const char *s);
extern char *ranread_fmt_count(double v);
extern char *ranread_fmt_ms(double v);
extern char *ranread_fmt_number(double v);
extern char *ranread_fmt_fixed(double v, int decimals);
extern char *ranread_fmt_setting(double v);
extern char *ranread_fmt_block(int64 bytes);
extern char *ranread_fmt_sci(double v);

#endif							/* RANREAD_SVG_H */
