/*
 * svg_internal.h
 *		What the renderer's files share (svg.c, svg_axis.c, svg_line.c,
 *		svg_bar.c, svg_heat.c): the look's constants, an axis as drawn, the
 *		canvas a render keeps, and the steps one file draws for another.
 *		Only the renderer includes it; the rest of ranread uses svg.h.
 */
#ifndef RANREAD_SVG_INTERNAL_H
#define RANREAD_SVG_INTERNAL_H

#include "svg.h"

#define SVG_WIDTH 960
#define SVG_MAX_WIDTH 1400.0	/* the widest the title lines make a canvas */
#define SVG_FONT "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif"

/* A white outline under text that sits on lines, so both stay legible */
#define SVG_HALO "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""

#define COLOR_GRID "#e9ecef"
#define COLOR_AXIS "#adb5bd"
#define COLOR_BAND "#f8f9fa"
#define COLOR_HEADER "#f1f3f5"
#define COLOR_BAND_GOOD "#ebfbee"

/* Rough text widths at 12 px, good enough to place things side by side */
#define CHAR_W 6.6
#define CHAR_W_BOLD 7.0

/* Plot area of a line or bar chart, below a one-row legend */
#define PLOT_LEFT 112.0
#define PLOT_TOP 104.0
#define PLOT_HEIGHT 326.0
#define LEGEND_Y 82.0
#define LEGEND_ROW 20.0

#define MAX_TICKS 64
#define MARKERS_UP_TO 90		/* points per series that still get markers */

/* The farthest coordinate written, in px: well off any canvas, and short */
#define SVG_COORD_MAX 1e6

/* Whether a value can be placed: finite, its spans finite too (NaN: no) */
#define VALUE_OK(v) (fabs(v) <= RANREAD_SVG_MAX_VALUE)

/* Beyond this magnitude, numbers are printed in exponent form */
#define FMT_SCI_FROM 1e15


/* An axis as drawn: its scale, pixel range and ticks */
typedef struct SvgAxis
{
	bool		used;
	bool		log;
	double		base;
	double		lo;				/* scale coordinates (log applied) */
	double		hi;
	double		p0;				/* pixels of lo and hi */
	double		p1;
	double		step;			/* linear: between ticks; 0: none */
	int			nticks;
	double		ticks[MAX_TICKS];	/* values, as the data */
	int			decimals;
	double		unit;			/* a time axis: seconds of its unit or step */
	const RanreadSvgAxis *spec;
	const char *label;			/* the spec's, with "log scale" when log */
} SvgAxis;

/* What a render keeps while it draws */
typedef struct SvgCanvas
{
	StringInfo	out;
	const RanreadSvgChart *c;
	double		width;
	double		legend_rows;
	double		left;
	double		right;
	double		top;
	double		bottom;
	SvgAxis		x;
	SvgAxis		y;
	SvgAxis		y2;
	int			corner_notes;	/* reference lines noted off the scale */
	bool		x_title_later;	/* the x axis's title goes under a panel */
} SvgCanvas;
/* Data range of the values an axis carries */
typedef struct SvgRange
{
	double		min;
	double		max;
	double		minpos;			/* smallest positive value */
	int			n;
} SvgRange;

/* Layout of a heat table */
typedef struct SvgHeatLayout
{
	double		gx;				/* left of the cells */
	double		gy;				/* top of the cells */
	double		cw;				/* cell width and height */
	double		ch;
	double		width;			/* the canvas it needs */
	bool		compact;		/* too many columns for their values: cells
								 * without printed values (a tooltip each),
								 * column labels where they have room */
} SvgHeatLayout;

/* svg.c */
extern void svg_room(const SvgCanvas *cv);
extern char *svg_fmt_value(double v, RanreadSvgFormat format);
extern double svg_fin(double v);
extern void svg_attr(StringInfo out, const char *name, const char *value);
extern void svg_text(StringInfo out, double x, double y, const char *anchor, const char *attrs, const char *s);
extern void svg_line(StringInfo out, double x1, double y1, double x2, double y2, const char *color, double width, const char *dash);
extern void svg_rect(StringInfo out, double x, double y, double w, double h, const char *fill);
extern void svg_marker(StringInfo out, char marker, double x, double y, const char *color);
extern double svg_text_width(const char *s, bool bold);
extern const char *svg_series_color(const RanreadSvgChart *c, int i);
extern const char *svg_series_dash(const RanreadSvgChart *c, int i);
extern char svg_series_marker(const RanreadSvgChart *c, int i);
extern double svg_series_width(const RanreadSvgChart *c, int i);
extern void svg_bar(StringInfo out, double x, double y, double w, double h, const char *color, int series);

/* svg_axis.c */
extern void svg_range_add(SvgRange *r, double v);
extern bool svg_axis_wants_log(const RanreadSvgAxis *spec, const SvgRange *r);
extern double svg_axis_pos(const SvgAxis *a, double v);
extern double svg_axis_px(const SvgAxis *a, double v);
extern void svg_layout_y(SvgCanvas *cv, SvgAxis *a, const RanreadSvgAxis *spec, bool right, bool bars, double room);
extern void svg_layout_x(SvgCanvas *cv);
extern void svg_draw_y_axes(SvgCanvas *cv);
extern void svg_draw_x_axis(SvgCanvas *cv);
extern void svg_draw_line(SvgCanvas *cv, const RanreadSvgLine *l, bool stroke, bool labels);

/* svg_line.c */
extern bool svg_line_has_data(const RanreadSvgChart *c);
extern void svg_draw_line_chart(SvgCanvas *cv);

/* svg_bar.c */
extern bool svg_bar_has_data(const RanreadSvgChart *c);
extern double svg_bar_category_drop(const SvgCanvas *cv);
extern void svg_draw_bar_chart(SvgCanvas *cv);
extern double svg_bar_label_room(const RanreadSvgChart *c, double plot_width);

/* svg_heat.c */
extern SvgHeatLayout svg_heat_layout(const RanreadSvgChart *c);
extern bool svg_heat_has_data(const RanreadSvgHeat *h);
extern double svg_draw_heat(SvgCanvas *cv);
extern double svg_panel_left(const RanreadSvgChart *p);
extern double svg_draw_panel(SvgCanvas *cv, const RanreadSvgChart *p, double y, bool last);

#endif							/* RANREAD_SVG_INTERNAL_H */
