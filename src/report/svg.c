/*
 * svg.c
 *		The one chart renderer: a chart described as data (RanreadSvgChart,
 *		svg.h) drawn as a standalone SVG document, for line, bar and heat
 *		charts; and the escaping and number formats every report shares.
 *
 * Reports do not lay out SVG themselves.  SQL builds a chart's spec as
 * jsonb (series of points, axes, reference lines, highlighted points,
 * notes, a table), chart_json.c reads it into a RanreadSvgChart, and
 * ranread_svg_render draws it: ranread_chart and ranread_timeline, whose
 * spec queries are compiled into the library (charts.c), and any plpgsql
 * function through ranread_svg(spec jsonb).  So every chart of ranread has
 * one look and one set of rules, and a rule fixed here is fixed for all.
 *
 * The output uses presentation attributes only (no CSS, no script, no
 * gradients), every text escaped and every non-ASCII character written as a
 * character reference, so it is well-formed XML in any server encoding and
 * renders the same in browsers, Inkscape and office suites.  Characters XML
 * 1.0 does not allow (control characters, U+FFFE and U+FFFF) and the other
 * Unicode noncharacters are replaced, whatever the text.  The document is
 * built in two passes over one StringInfo: the body first, then the root
 * element, once the height is known.
 *
 * Whatever the numbers, the document stays bounded and well-formed: a value
 * is placed only when it is finite and within +-RANREAD_SVG_MAX_VALUE (so
 * that no span or scale overflows), an axis always has hi > lo, every
 * coordinate written is finite and clamped to +-SVG_COORD_MAX, and a number
 * printed is at most a few dozen characters (beyond 10^15 in exponent form:
 * 1.2e300).  The work grows about linearly with the points, cells and text:
 * which points get their values printed is decided by sorting the points of
 * a series once, not by comparing every pair, ticks at the data are at most
 * one per pixel, and every loop over the input checks for interrupts.
 *
 * A panel is how one picture shows two views of the same seconds, such as
 * ranread_timeline's latency heatmap under its IOPS line: the same x axis,
 * so a second's cells lie under its point.
 *
 * Rules every chart follows:
 *	- A title says what was compared; axes carry units in their labels; a
 *	  legend names every series and labelled reference line.
 *	- Up to 12 series stay apart in greyscale too: each gets a colour, a
 *	  marker and a dash from the palette, cycled so that no two of the first
 *	  12 share both marker and dash (bars get hatching instead).
 *	- "log": "auto" makes an axis logarithmic (base 10, unless the spec says
 *	  2) when its data are all positive and span 100x or more; an axis drawn
 *	  in log says so in its label.
 *	- NaN (NULL in jsonb) is no value: a gap in a line, no bar, an empty
 *	  cell.  A chart with no value at all says there is nothing to draw, and
 *	  is still a well-formed SVG with its title, notes and table.
 *	- A y axis runs from 0 (linear) and extends to a reference line within
 *	  2.5x of its data; a reference line beyond the scale is noted in the
 *	  corner instead of squashing the data.
 *
 * The jsonb spec of ranread_svg (docs/charts-and-reports.md, "Charts from
 * SQL") -- every key optional except where said; unknown keys are an error:
 *
 *	 kind		"line" (default), "bar" or "heat"
 *	 title		what was compared; subtitle: where, when, settings
 *	 empty		the message when there is nothing to draw
 *	 x, y, y2	axes (y2 is the right one): {"label": "Latency (ms)",
 *				"log": false | true | "auto", "base": 10 | 2, "min", "max",
 *				"integer": true (whole-number ticks), "ticks": "data" (x: a
 *				tick at each x of the data), "format": "number" | "count",
 *				"color"}
 *	 series		[{"label", "x": [numbers], "y": [numbers or null],
 *				"axis": "left" | "right", "color": "#rrggbb",
 *				"dash": "6 3" | "solid", "marker": "circle" | "square" |
 *				"triangle" | "down" | "diamond" | "cross" | "none",
 *				"width", "line": false (markers only), "labels": true
 *				(print values), "texts": [strings printed instead],
 *				"format"}]; bar series have "y" only, one per category
 *	 categories	bar: the labels along x
 *	 lines		horizontal reference lines: [{"value" (required; null: none,
 *				only the legend), "axis", "label", "legend", "color", "dash",
 *				"width"}]
 *	 highlights [{"series", "point" (0-based, required), "label", "color"}]
 *	 notes		lines under the chart: ["text", ...] or [{"text", "style":
 *				"headline" | "plain" | "good" | "bad" | "muted" |
 *				"headline-good" | "headline-bad"}]
 *	 table		{"header": [strings], "rows": [[cells]], "align": ["left" |
 *				"right", ...], "highlight": [row numbers, 0-based], "more":
 *				"a line under it"}; a cell is a string, a number, null or
 *				{"text", "tone": "plain" | "good" | "bad" | "muted"}
 *	 heat		{"rows": [labels], "columns": [labels], "values": [[numbers
 *				or null] per row], "metric": "IOPS", "log": as for axes,
 *				"colors": ["#low", ..., "#high"], "format"}
 *	 panels		line charts: at most 4 heat charts stacked under the plot,
 *				sharing its x axis (range, ticks, left and right edges; the
 *				x axis's title moves under the last): [{"kind": "heat",
 *				"title", "y": {"label"}, "heat": {as above, and "edges":
 *				[ncols + 1 increasing numbers on the x axis]}}]; column j's
 *				cells span edges[j] to edges[j + 1] (clipped to the plot, none
 *				off it), one row each from the top, a tooltip (<title>) with
 *				column, row and value, the colour scale beside the panel's
 *				title.  A panel has no x of its own; "edges" only in a panel.
 *
 * A text (title, labels, legends, notes, cells ...) is a string, a number,
 * or an array of at most 100 parts: strings, numbers, {"char": code point},
 * or one figure in a format: {"count": n} (12,346), {"number": n}, {"ms":
 * n} (6.10), {"fixed": n, "decimals": d}, {"setting": n} (2.5), {"block":
 * bytes} (8 KiB); a figure is a number of any size, null or "NaN" (n/a),
 * "Infinity" or "-Infinity".
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg.h"

#define SVG_WIDTH 960
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

/*
 * The palette: twelve colours that stay apart on white, and markers and
 * dashes cycled with periods 6 and 4 so that the first twelve series all
 * differ in (marker, dash) as well.
 */
static const char *const svg_palette[RANREAD_SVG_MAX_SERIES] = {
	"#1c5fa8", "#d9480f", "#2b8a3e", "#ae3ec9", "#f59f00", "#0c8599",
	"#862e9c", "#5c940d", "#e64980", "#495057", "#364fc7", "#a61e4d"
};
static const char svg_markers[] = {'o', 's', '^', 'd', 'v', 'x'};
static const char *const svg_dashes[] = {"", "7 4", "2 3", "9 3 2 3"};

/* The default heat scale, low -> high: viridis, which greys monotonically */
static const char *const svg_heat_default[] = {
	"#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"
};

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


/* The error for a document past RANREAD_SVG_MAX_OUTPUT bytes */
static void svg_too_large(int len) pg_attribute_noreturn();

static void
svg_too_large(int len)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("the SVG of a chart is at most %d MB, and this one reached %d MB",
					RANREAD_SVG_MAX_OUTPUT / (1024 * 1024), len / (1024 * 1024)),
			 errhint("Draw fewer points, fewer value labels or markers, or shorter texts.")));
}

/*
 * Between the steps of a loop that draws: stop on a cancel, and when the
 * document has grown past RANREAD_SVG_MAX_OUTPUT (a step adds little: a
 * point, a cell, a row of a table), before it can grow much further.  A
 * backstop: within ranread_svg's limits (chart_json.c: points, cells, all
 * texts) the largest document measured is about 15 MB.
 */
static void
svg_room(const SvgCanvas *cv)
{
	CHECK_FOR_INTERRUPTS();
	if (cv->out->len > RANREAD_SVG_MAX_OUTPUT)
		svg_too_large(cv->out->len);
}

/* ---------------------------------------------------------------------
 * Escaping and number formats
 * ---------------------------------------------------------------------
 */

/*
 * Append UTF-8 text as XML character data: escaped, and ASCII only (other
 * characters as references), so the SVG is the same in any server encoding.
 * Bytes that are not UTF-8 after all (SQL_ASCII databases) become '?'.
 * XML 1.0 allows neither control characters (but tab, newline and return,
 * written as spaces here) nor U+FFFE and U+FFFF, not even as references:
 * those and the other noncharacters (U+FDD0..U+FDEF, U+xFFFE and U+xFFFF
 * of every plane) become U+FFFD, the replacement character.
 */
void
ranread_svg_escape(StringInfo out, const char *s)
{
	static const char specials[] = "<>&\"'";
	static const char *const references[] = {"&lt;", "&gt;", "&amp;", "&quot;", "&#39;"};
	const unsigned char *u = (const unsigned char *) s;
	const char *special;

	while (*u)
	{
		if (*u >= 0x80)
		{
			int			len = pg_utf_mblen(u);

			if (len > 1 && strnlen((const char *) u, len) == len &&
				pg_utf8_islegal(u, len))
			{
				pg_wchar	cp = utf8_to_unicode(u);

				if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE ||
					(cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
					cp = 0xFFFD;
				appendStringInfo(out, "&#x%X;", (unsigned int) cp);
				u += len;
			}
			else
			{
				appendStringInfoChar(out, '?');
				u++;
			}
			continue;
		}
		if ((special = strchr(specials, *u)) != NULL)
			appendStringInfoString(out, references[special - specials]);
		else
		{
			/* control characters are not allowed in XML 1.0 */
			appendStringInfoChar(out, *u < 0x20 ? ' ' : (char) *u);
		}
		u++;
	}
}

/*
 * A number in exponent form, three significant digits: 1.2e300, -5e-7,
 * 0.  For numbers too large or too small to print in full.
 */
char *
ranread_fmt_sci(double v)
{
	char		buf[64];
	char	   *e;
	char	   *d;

	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "Infinity" : "-Infinity";
	if (v == 0.0)
		return "0";
	snprintf(buf, sizeof(buf), "%.2e", v);
	/* 1.20e+300 -> 1.2e300: no trailing zeros, no '+', no leading zeros */
	e = strchr(buf, 'e');
	if (e == NULL)
		return pstrdup(buf);
	d = e;
	while (d > buf && d[-1] == '0')
		d--;
	if (d > buf && d[-1] == '.')
		d--;
	return psprintf("%.*se%d", (int) (d - buf), buf, atoi(e + 1));
}

/* A count with thousands separators: 12,345 (beyond 10^15: 1.2e18) */
char *
ranread_fmt_count(double v)
{
	char	   *digits;
	char	   *out;
	int			len;
	int			i;
	int			j = 0;

	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return v > 0 ? "Infinity" : "-Infinity";
	if (fabs(v) >= FMT_SCI_FROM)
		return ranread_fmt_sci(v);
	digits = psprintf("%.0f", fabs(v));
	len = strlen(digits);
	out = palloc(len * 2 + 2);
	if (v <= -0.5)
		out[j++] = '-';
	for (i = 0; i < len; i++)
	{
		if (i > 0 && (len - i) % 3 == 0)
			out[j++] = ',';
		out[j++] = digits[i];
	}
	out[j] = '\0';
	return out;
}

/* A latency in ms with three significant digits or so: 0.123, 4.56, 78.9 */
char *
ranread_fmt_ms(double v)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v))
		return ranread_fmt_count(v);
	if (v < 0.0)
		return ranread_fmt_number(v);
	v = fabs(v);				/* -0 prints as 0 */
	if (v < 1.0)
		return psprintf("%.3f", v);
	if (v < 10.0)
		return psprintf("%.2f", v);
	if (v < 100.0)
		return psprintf("%.1f", v);
	return ranread_fmt_count(v);
}

/* Any value, three significant digits or a count: -0.5, 4.56, 1,234 */
char *
ranread_fmt_number(double v)
{
	if (isnan(v) || isinf(v) || v >= 0.0)
		return ranread_fmt_ms(v);
	if (v > -0.0005)
		return "0.000";
	return psprintf("-%s", ranread_fmt_ms(-v));
}

/* A number with a fixed number of decimals: 12.5 (beyond 10^15: 1.2e18) */
char *
ranread_fmt_fixed(double v, int decimals)
{
	if (isnan(v))
		return "n/a";
	if (isinf(v) || fabs(v) >= FMT_SCI_FROM)
		return ranread_fmt_sci(v);
	if (v == 0.0)
		v = 0.0;				/* -0 prints as 0 */
	return psprintf("%.*f", decimals, v);
}

/* A setting such as the latency bound, as the user wrote it: 10, 2.5 */
char *
ranread_fmt_setting(double v)
{
	return psprintf("%g", v);
}

/* A block size: 8 KiB, 1 MiB, 512 B */
char *
ranread_fmt_block(int64 bytes)
{
	if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0)
		return psprintf(INT64_FORMAT " MiB", bytes / (1024 * 1024));
	if (bytes >= 1024 && bytes % 1024 == 0)
		return psprintf(INT64_FORMAT " KiB", bytes / 1024);
	return psprintf(INT64_FORMAT " B", bytes);
}

/* A value as a spec asks for it */
static char *
fmt_value(double v, RanreadSvgFormat format)
{
	return format == RANREAD_SVG_COUNT ? ranread_fmt_count(v) : ranread_fmt_number(v);
}


/* ---------------------------------------------------------------------
 * SVG primitives
 * ---------------------------------------------------------------------
 */

/*
 * A coordinate or length as written: finite and within +-SVG_COORD_MAX, so
 * that "%.1f" prints a few characters.  Layout keeps its numbers finite;
 * this is the last guard, for every number that reaches the document.
 */
static double
fin(double v)
{
	if (isnan(v))
		return 0.0;
	return Max(-SVG_COORD_MAX, Min(SVG_COORD_MAX, v));
}

/* Append name="value", the value escaped */
static void
svg_attr(StringInfo out, const char *name, const char *value)
{
	appendStringInfo(out, " %s=\"", name);
	ranread_svg_escape(out, value);
	appendStringInfoChar(out, '"');
}

/* Append a line of text at (x, y) */
static void
svg_text(StringInfo out, double x, double y, const char *anchor,
		 const char *attrs, const char *s)
{
	appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\"", fin(x), fin(y));
	if (anchor)
		appendStringInfo(out, " text-anchor=\"%s\"", anchor);
	if (attrs)
		appendStringInfo(out, " %s", attrs);
	appendStringInfoChar(out, '>');
	ranread_svg_escape(out, s);
	appendStringInfoString(out, "</text>\n");
}

/* Append a straight line */
static void
svg_line(StringInfo out, double x1, double y1, double x2, double y2,
		 const char *color, double width, const char *dash)
{
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"",
					 fin(x1), fin(y1), fin(x2), fin(y2));
	svg_attr(out, "stroke", color);
	if (width != 1.0)
		appendStringInfo(out, " stroke-width=\"%.1f\"", fin(width));
	if (dash && dash[0])
		svg_attr(out, "stroke-dasharray", dash);
	appendStringInfoString(out, "/>\n");
}

/* Append a filled rectangle */
static void
svg_rect(StringInfo out, double x, double y, double w, double h, const char *fill)
{
	appendStringInfo(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
					 fin(x), fin(y), Max(fin(w), 0.0), Max(fin(h), 0.0));
	svg_attr(out, "fill", fill);
	appendStringInfoString(out, "/>\n");
}

/* Draw one marker centred on (x, y) */
static void
svg_marker(StringInfo out, char marker, double x, double y, const char *color)
{
	const char *edge = "stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n";

	x = fin(x);
	y = fin(y);
	switch (marker)
	{
		case 'o':
			appendStringInfo(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"", x, y);
			svg_attr(out, "fill", color);
			appendStringInfo(out, " %s", edge);
			break;
		case 's':
			appendStringInfo(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\"",
							 x - 4.0, y - 4.0);
			svg_attr(out, "fill", color);
			appendStringInfo(out, " %s", edge);
			break;
		case '^':
		case 'v':
			{
				double		d = (marker == '^') ? 1.0 : -1.0;

				appendStringInfo(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"",
								 x, y - 5.5 * d, x + 5.0, y + 3.5 * d, x - 5.0, y + 3.5 * d);
				svg_attr(out, "fill", color);
				appendStringInfo(out, " %s", edge);
				break;
			}
		case 'd':
			appendStringInfo(out, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\"",
							 x, y - 5.5, x + 5.0, y, x, y + 5.5, x - 5.0, y);
			svg_attr(out, "fill", color);
			appendStringInfo(out, " %s", edge);
			break;
		case 'x':
			/* stroke before fill: a marker is not mistaken for a line */
			appendStringInfo(out, "<path d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"",
							 x - 4.0, y - 4.0, x + 4.0, y + 4.0, x - 4.0, y + 4.0, x + 4.0, y - 4.0);
			svg_attr(out, "stroke", color);
			appendStringInfoString(out, " stroke-width=\"2.2\" fill=\"none\"/>\n");
			break;
		default:
			break;
	}
}

/* Width of a text in px, roughly */
static double
text_width(const char *s, bool bold)
{
	int			chars = 0;

	/* count characters, not bytes: continuation bytes are 10xxxxxx */
	for (; *s; s++)
		if ((*s & 0xC0) != 0x80)
			chars++;
	return chars * (bold ? CHAR_W_BOLD : CHAR_W);
}

/* The attributes of a note or a cell in a tone */
static const char *
tone_attrs(RanreadSvgTone tone, bool bold)
{
	switch (tone)
	{
		case RANREAD_SVG_GOOD:
			return bold ? "font-weight=\"bold\" fill=\"" RANREAD_SVG_COLOR_GOOD "\""
				: "fill=\"" RANREAD_SVG_COLOR_GOOD "\"";
		case RANREAD_SVG_BAD:
			return bold ? "font-weight=\"bold\" fill=\"" RANREAD_SVG_COLOR_BAD "\""
				: "fill=\"" RANREAD_SVG_COLOR_BAD "\"";
		case RANREAD_SVG_MUTED:
			return "fill=\"" RANREAD_SVG_COLOR_MUTED "\"";
		default:
			return bold ? "font-weight=\"bold\"" : NULL;
	}
}


/* ---------------------------------------------------------------------
 * Series styles
 * ---------------------------------------------------------------------
 */

/* The colour of series i */
static const char *
series_color(const RanreadSvgChart *c, int i)
{
	return c->series[i].color ? c->series[i].color
		: svg_palette[i % RANREAD_SVG_MAX_SERIES];
}

/* The dash of series i ("" for solid) */
static const char *
series_dash(const RanreadSvgChart *c, int i)
{
	return c->series[i].dash ? c->series[i].dash : svg_dashes[i % lengthof(svg_dashes)];
}

/* The marker of series i (0 for none) */
static char
series_marker(const RanreadSvgChart *c, int i)
{
	char		m = c->series[i].marker;

	if (m == '-')
		return 0;
	return m ? m : svg_markers[i % lengthof(svg_markers)];
}

/* The stroke width of series i */
static double
series_width(const RanreadSvgChart *c, int i)
{
	return c->series[i].width > 0.0 ? c->series[i].width : 2.0;
}


/* ---------------------------------------------------------------------
 * Axes
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
step_decimals(double step)
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

/* Data range of the values an axis carries */
typedef struct SvgRange
{
	double		min;
	double		max;
	double		minpos;			/* smallest positive value */
	int			n;
} SvgRange;

/* Widen a range by one value; NaN, infinities and huge values are none */
static void
range_add(SvgRange *r, double v)
{
	if (!VALUE_OK(v))
		return;
	if (r->n == 0 || v < r->min)
		r->min = v;
	if (r->n == 0 || v > r->max)
		r->max = v;
	if (v > 0.0 && (isnan(r->minpos) || v < r->minpos))
		r->minpos = v;
	r->n++;
}

/* Whether an axis over range r is drawn in log */
static bool
axis_wants_log(const RanreadSvgAxis *spec, const SvgRange *r)
{
	if (spec->scale == RANREAD_SVG_LINEAR || r->n == 0 || isnan(r->minpos))
		return false;
	if (spec->scale == RANREAD_SVG_LOG)
		return true;
	return r->min > 0.0 && r->max / r->min >= 100.0;
}

/* The label of an axis, saying so when it is drawn in log */
static const char *
axis_label(const SvgAxis *a)
{
	const char *label = a->spec->label ? a->spec->label : "";

	if (!a->log || strstr(label, "log scale") != NULL ||
		strstr(label, "log\xe2\x82\x82 scale") != NULL)
		return label;
	if (a->base == 2.0)
		return psprintf("%s%slog\xe2\x82\x82 scale", label, label[0] ? "; " : "");
	return psprintf("%s%slog scale", label, label[0] ? "; " : "");
}

/*
 * A bound of a linear axis: room above the largest value (x 4 at most), and
 * still spans that no double overflows
 */
static double
axis_clamp(double v)
{
	if (isnan(v))
		return 0.0;
	return Max(-4.0 * RANREAD_SVG_MAX_VALUE, Min(4.0 * RANREAD_SVG_MAX_VALUE, v));
}

/*
 * The last word on an axis's scale: lo and hi finite and hi > lo, so that
 * a pixel is never a division by zero, whatever the data and the spec did.
 */
static void
axis_settle(SvgAxis *a)
{
	if (!isfinite(a->lo))
		a->lo = 0.0;
	if (!isfinite(a->hi) || !(a->hi > a->lo))
		a->hi = a->lo + Max(1.0, fabs(a->lo));
	if (!(a->hi > a->lo))
		a->hi = a->lo + 1.0;	/* not reached for |lo| <= the largest value */
}

/* A bound given by the spec, or NaN when none (or none a chart can place) */
static double
spec_bound(double v)
{
	return VALUE_OK(v) ? v : get_float8_nan();
}

/* A linear axis of n steps of step from lo, a tick at each */
static void
axis_set_linear(SvgAxis *a, double lo, double step, int n)
{
	int			i;

	a->lo = lo;
	a->hi = lo + step * n;
	a->step = step;
	a->decimals = step_decimals(step);
	a->nticks = Min(n + 1, MAX_TICKS);
	for (i = 0; i < a->nticks; i++)
		a->ticks[i] = lo + step * i;
	axis_settle(a);
}

/*
 * A linear value axis through 0 with 4 to 7 ticks that the data fill as far
 * as they can: fewer ticks unless more fit the data clearly better.
 */
static void
axis_linear_y(SvgAxis *a, double lo, double hi)
{
	double		best_step = 0.0;
	double		best_lo = 0.0;
	int			best_ticks = 0;
	double		best_span = 0.0;
	int			t;

	lo = axis_clamp(lo);
	hi = axis_clamp(hi);
	if (!(hi > lo))
		hi = lo + (lo == 0.0 ? 1.0 : fabs(lo));
	for (t = 4; t <= 7; t++)
	{
		double		step = nice_ceil((hi - lo) * 1.04 / t);

		/* below negative data, a margin of 4% (of the span at most) */
		double		first = lo < 0.0 ?
			floor((lo - Min(0.04 * fabs(lo), 0.04 * (hi - lo))) / step) * step : lo;
		double		nd = ceil((hi - first) / step - 1e-9);
		int			n = (int) Max(0.0, Min(nd, (double) MAX_TICKS));
		double		span;

		n = Max(n, t);
		span = step * n;
		if (best_ticks == 0 || span < best_span * 0.95)
		{
			best_step = step;
			best_lo = first;
			best_ticks = n;
			best_span = span;
		}
	}
	axis_set_linear(a, best_lo, best_step, best_ticks);
}

/*
 * A linear x axis: from 0 (or the spec's min) to the data, ticks every 1,
 * 2 or 5 x 10^k, about ten of them.
 */
static void
axis_linear_x(SvgAxis *a, double lo, double hi)
{
	double		step;
	int			n;

	lo = axis_clamp(lo);
	hi = axis_clamp(hi);
	if (!(hi > lo))
		hi = lo + 1.0;
	if (!(hi > lo))
		hi = lo + fabs(lo);
	step = nice_ceil((hi - lo) / 10.0);
	if (fabs(step / pow(10.0, floor(log10(step))) - 2.5) < 1e-9)
		step *= 2.0;
	if (a->spec->integer)
		step = Max(step, 1.0);
	n = (int) Max(1.0, Min(ceil((hi - lo) / step - 1e-9), (double) MAX_TICKS));
	axis_set_linear(a, lo, step, n);
}

/*
 * A log axis: whole powers of the base from below the data to above it,
 * with 2 and 5 between the decades of a base-10 axis of few decades.  With
 * data ticks, the range is the data's plus a margin instead.
 */
static void
axis_log(SvgAxis *a, const SvgRange *r, bool pad)
{
	double		lb = log(a->base);
	double		lmin = log(r->minpos) / lb;
	double		lmax = log(Max(r->max, r->minpos)) / lb;
	double		smin = spec_bound(a->spec->min);
	double		smax = spec_bound(a->spec->max);
	double		k;
	double		kstep;

	if (smin > 0.0)
		lmin = log(smin) / lb;
	if (smax > 0.0)
		lmax = log(smax) / lb;
	if (pad)
	{
		double		m = (lmax - lmin < 1e-9) ? 1.0 : 0.4;

		a->lo = lmin - m;
		a->hi = Max(lmax + m, a->lo + 1.0);
	}
	else
	{
		a->lo = floor(lmin + 1e-9);
		a->hi = Max(ceil(lmax - 1e-9), a->lo + 1.0);
	}
	/* a tick at every power, or every few when they are many */
	kstep = Max(1.0, ceil((a->hi - a->lo) / 12.0 - 1e-9));
	a->nticks = 0;
	for (k = ceil(a->lo - 1e-9); k <= a->hi + 1e-9 && a->nticks < MAX_TICKS; k += kstep)
	{
		double		v = pow(a->base, k);

		a->ticks[a->nticks++] = v;
		if (a->base == 10.0 && a->hi - a->lo <= 2.0 + 1e-9)
		{
			if (log10(2 * v) <= a->hi + 1e-9 && a->nticks < MAX_TICKS)
				a->ticks[a->nticks++] = 2 * v;
			if (log10(5 * v) <= a->hi + 1e-9 && a->nticks < MAX_TICKS)
				a->ticks[a->nticks++] = 5 * v;
		}
	}
	a->decimals = 0;
	axis_settle(a);
}

/*
 * Pixel of a position on an axis (a tick, the base of the bars); NaN where
 * the axis cannot show it
 */
static double
axis_pos(const SvgAxis *a, double v)
{
	double		px;

	if (!isfinite(v))
		return get_float8_nan();
	if (a->log)
	{
		if (!(v > 0.0))
			return get_float8_nan();
		v = log(v) / log(a->base);
	}
	px = a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
	if (isnan(px))
		return px;
	/* off the scale (a spec's min or max): far off the canvas, but finite */
	return Max(-SVG_COORD_MAX, Min(SVG_COORD_MAX, px));
}

/*
 * Pixel of a value of the data on an axis; NaN for no value (NaN, infinite
 * or beyond +-RANREAD_SVG_MAX_VALUE) or where the axis cannot show it.  A
 * scale may reach past the largest value (room above the data, a rounded
 * tick): its ticks are placed with axis_pos.
 */
static double
axis_px(const SvgAxis *a, double v)
{
	if (!VALUE_OK(v))
		return get_float8_nan();
	return axis_pos(a, v);
}

/* Whether a value lies within an axis's scale */
static bool
axis_contains(const SvgAxis *a, double v)
{
	double		s;

	if (a->log)
	{
		if (!(v > 0.0))
			return false;
		s = log(v) / log(a->base);
	}
	else
		s = v;
	return s >= a->lo - 1e-9 && s <= a->hi + 1e-9;
}

/* A tick label */
static char *
tick_text(const SvgAxis *a, double v)
{
	if (a->log)
		return v >= 1.0 ? ranread_fmt_count(v) : psprintf("%g", v);
	/* a tick at 0 that rounding put a hair off it, or at -0 */
	if (fabs(v) < a->step * 1e-6)
		v = 0.0;
	if (fabs(v) >= FMT_SCI_FROM || (a->step > 0.0 && a->step < 1e-6))
		return ranread_fmt_sci(v);
	if (a->spec->format == RANREAD_SVG_COUNT && a->decimals == 0)
		return ranread_fmt_count(v);
	return psprintf("%.*f", a->decimals, v);
}

/*
 * Lay out a y axis over the values of the series on that side, the
 * reference lines near them, and room above for printed values.
 */
static void
layout_y(SvgCanvas *cv, SvgAxis *a, const RanreadSvgAxis *spec, bool right,
		 bool bars, double room)
{
	const RanreadSvgChart *c = cv->c;
	SvgRange	r = {0, 0, get_float8_nan(), 0};
	bool		labels = false;
	double		hi;
	double		lo;
	int			i;
	int			j;

	a->spec = spec;
	a->base = spec->base == 2.0 ? 2.0 : 10.0;
	a->p0 = cv->bottom;
	a->p1 = cv->top;
	for (i = 0; i < c->nseries; i++)
	{
		if (c->series[i].right != right)
			continue;
		a->used = true;
		labels |= c->series[i].labels || bars;
		for (j = 0; j < c->series[i].n; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (bars || c->series[i].x == NULL || VALUE_OK(c->series[i].x[j]))
				range_add(&r, c->series[i].y[j]);
		}
	}
	if (!a->used)
		return;

	a->log = axis_wants_log(spec, &r);
	if (a->log && bars)
	{
		/* bars on a log scale stand on its bottom, with room for values */
		SvgRange	room_r = r;

		room_r.max = Max(r.max, r.minpos) * pow(a->base, 0.3);
		axis_log(a, &room_r, false);
		a->label = axis_label(a);
		return;
	}
	if (a->log)
	{
		/* the reference lines do not stretch a log axis */
		axis_log(a, &r, false);
		a->label = axis_label(a);
		return;
	}

	/* a reference line is in scale unless it would squash the data */
	hi = r.n > 0 ? Max(r.max, 0.0) : 0.0;
	lo = r.n > 0 ? Min(r.min, 0.0) : 0.0;
	for (i = 0; i < c->nlines; i++)
		if (c->lines[i].right == right && VALUE_OK(c->lines[i].value) &&
			c->lines[i].value > hi && c->lines[i].value <= 2.5 * hi)
			hi = c->lines[i].value;
	if (labels)
		hi *= Max(room, 1.08);
	if (!isnan(spec_bound(spec->max)))
		hi = spec->max / 1.04;
	if (!isnan(spec_bound(spec->min)))
		lo = spec->min;
	axis_linear_y(a, lo, hi);
	a->label = axis_label(a);
}

/* Lay out the x axis of a line chart over the x of every series */
static void
layout_x(SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	SvgAxis    *a = &cv->x;
	SvgRange	r = {0, 0, get_float8_nan(), 0};
	int			i;
	int			j;

	a->spec = &c->x;
	a->used = true;
	a->base = c->x.base == 2.0 ? 2.0 : 10.0;
	a->p0 = cv->left;
	a->p1 = cv->right;
	for (i = 0; i < c->nseries; i++)
		for (j = 0; j < c->series[i].n; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (c->series[i].x && VALUE_OK(c->series[i].y[j]))
				range_add(&r, c->series[i].x[j]);
		}

	a->log = axis_wants_log(&c->x, &r);
	if (a->log)
		axis_log(a, &r, c->x.data_ticks);
	else
	{
		double		smin = spec_bound(c->x.min);
		double		smax = spec_bound(c->x.max);
		double		lo = isnan(smin) ? (r.n > 0 ? Min(r.min, 0.0) : 0.0) : smin;
		double		hi = isnan(smax) ? (r.n > 0 ? r.max : 1.0) : smax;

		if (c->x.data_ticks && r.n > 0 && isnan(smin))
		{
			/* ticks at the data: a margin of 5% either side */
			double		m = (r.max > r.min) ? 0.05 * (r.max - r.min) : 1.0;

			a->lo = r.min - m;
			a->hi = r.max + m;
			a->nticks = 0;
			axis_settle(a);
		}
		else
			axis_linear_x(a, lo, hi);
	}
	a->label = axis_label(a);
}


/* ---------------------------------------------------------------------
 * The frame: root element, title, legend
 * ---------------------------------------------------------------------
 */

/* The root element, background and title lines, before the body */
static void
svg_head(StringInfo out, double width, double height, const RanreadSvgChart *c)
{
	const char *title = c->title ? c->title : "ranread chart";

	width = Max(fin(width), 1.0);
	height = Max(fin(height), 1.0);
	appendStringInfo(out,
					 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
					 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
					 "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
					 "font-family=\"%s\" font-size=\"12\" fill=\"%s\">\n",
					 width, height, width, height, SVG_FONT, RANREAD_SVG_COLOR_TEXT);
	appendStringInfoString(out, "<title>");
	ranread_svg_escape(out, title);
	appendStringInfoString(out, "</title>\n");
	appendStringInfo(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
					 width, height);
	svg_text(out, 40, 34, NULL, "font-size=\"19\" font-weight=\"bold\"", title);
	if (c->subtitle)
		svg_text(out, 40, 57, NULL, "font-size=\"13\" fill=\"" RANREAD_SVG_COLOR_MUTED "\"",
				 c->subtitle);
}

/* One legend entry: a short line in the style, a marker or swatch, a label */
typedef struct SvgLegendEntry
{
	const char *label;
	const char *color;
	const char *dash;
	double		width;
	char		marker;
	int			swatch;			/* bars: 1 + hatch number; 0: a line */
} SvgLegendEntry;

/* Width of a legend entry */
static double
legend_entry_width(const SvgLegendEntry *e)
{
	return 36.0 + text_width(e->label, false) + 26.0;
}

/* The bar hatchings, so that bar series stay apart in greyscale */
static void
svg_hatch_defs(StringInfo out)
{
	static const char *const paths[] = {
		"M0 6L6 0M-1 1L1 -1M5 7L7 5",	/* / */
		"M0 0L6 6M-1 5L1 7M5 -1L7 1",	/* \ */
		"M0 3L6 3",				/* - */
		"M3 0L3 6",				/* | */
		"M0 0L6 6M0 6L6 0"		/* x */
	};
	int			i;

	appendStringInfoString(out, "<defs>\n");
	for (i = 0; i < lengthof(paths); i++)
		appendStringInfo(out,
						 "<pattern id=\"ranread-hatch-%d\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
						 "<path d=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.3\" stroke-opacity=\"0.7\"/></pattern>\n",
						 i + 1, paths[i]);
	appendStringInfoString(out, "</defs>\n");
}

/* A bar's fill and, past the first series, its hatching on top */
static void
svg_bar(StringInfo out, double x, double y, double w, double h,
		const char *color, int series)
{
	svg_rect(out, x, y, w, h, color);
	if (series % 6 != 0)
		appendStringInfo(out,
						 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#ranread-hatch-%d)\"/>\n",
						 fin(x), fin(y), Max(fin(w), 0.0), Max(fin(h), 0.0), series % 6);
}

/* Draw the legend entries in rows from (40, LEGEND_Y) */
static void
legend_draw(SvgCanvas *cv, const SvgLegendEntry *e, int n)
{
	StringInfo	out = cv->out;
	double		x = 40.0;
	double		y = LEGEND_Y;
	int			i;

	for (i = 0; i < n; i++)
	{
		double		w = legend_entry_width(&e[i]);

		if (x > 40.0 && x + w - 26.0 > cv->width - 24.0)
		{
			x = 40.0;
			y += LEGEND_ROW;
		}
		if (e[i].swatch)
			svg_bar(out, x + 7.0, y - 7.0, 14.0, 14.0, e[i].color, e[i].swatch - 1);
		else
		{
			svg_line(out, x, y, x + 28.0, y, e[i].color, e[i].width, e[i].dash);
			svg_marker(out, e[i].marker, x + 14.0, y, e[i].color);
		}
		svg_text(out, x + 36.0, y + 4.0, NULL, NULL, e[i].label);
		x += w;
	}
}

/* How many rows the legend entries take */
static int
legend_rows(double width, const SvgLegendEntry *e, int n)
{
	double		x = 40.0;
	int			rows = n > 0 ? 1 : 0;
	int			i;

	for (i = 0; i < n; i++)
	{
		double		w = legend_entry_width(&e[i]);

		if (x > 40.0 && x + w - 26.0 > width - 24.0)
		{
			x = 40.0;
			rows++;
		}
		x += w;
	}
	return rows;
}

/* The legend of a line or bar chart: series, then labelled lines */
static int
legend_collect(const RanreadSvgChart *c, SvgLegendEntry *e)
{
	int			n = 0;
	int			i;

	for (i = 0; i < c->nseries; i++)
	{
		e[n].label = c->series[i].label ? c->series[i].label : psprintf("series %d", i + 1);
		e[n].color = series_color(c, i);
		e[n].dash = series_dash(c, i);
		e[n].width = series_width(c, i);
		e[n].marker = series_marker(c, i);
		e[n].swatch = (c->kind == RANREAD_SVG_BAR) ? i + 1 : 0;
		n++;
	}
	for (i = 0; i < c->nlines; i++)
	{
		if (!c->lines[i].legend)
			continue;
		e[n].label = c->lines[i].legend;
		e[n].color = c->lines[i].color ? c->lines[i].color : RANREAD_SVG_COLOR_BAD;
		e[n].dash = c->lines[i].dash ? c->lines[i].dash : "8 5";
		e[n].width = c->lines[i].width > 0.0 ? c->lines[i].width : 1.5;
		e[n].marker = 0;
		e[n].swatch = 0;
		n++;
	}
	return n;
}


/* ---------------------------------------------------------------------
 * Plot furniture: grid, axes, reference lines
 * ---------------------------------------------------------------------
 */

/* The left axis (which owns the gridlines), the right one, their titles */
static void
draw_y_axes(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	double		mid = (cv->top + cv->bottom) / 2.0;
	const SvgAxis *l = &cv->y;
	const SvgAxis *r = &cv->y2;
	const char *lcolor = l->spec->color ? l->spec->color : RANREAD_SVG_COLOR_TEXT;
	const char *rcolor = r->used && r->spec->color ? r->spec->color : RANREAD_SVG_COLOR_TEXT;
	int			i;

	for (i = 0; l->used && i < l->nticks; i++)
	{
		double		y = axis_pos(l, l->ticks[i]);

		svg_line(out, cv->left, y, cv->right, y, i == 0 ? COLOR_AXIS : COLOR_GRID, 1.0, NULL);
		svg_text(out, cv->left - 8.0, y + 4.0, "end",
				 psprintf("fill=\"%s\"", lcolor), tick_text(l, l->ticks[i]));
	}
	for (i = 0; r->used && i < r->nticks; i++)
	{
		double		y = axis_pos(r, r->ticks[i]);

		svg_line(out, cv->right, y, cv->right + 5.0, y, rcolor, 1.0, NULL);
		svg_text(out, cv->right + 9.0, y + 4.0, NULL,
				 psprintf("fill=\"%s\"", rcolor), tick_text(r, r->ticks[i]));
	}
	svg_line(out, cv->left, cv->top, cv->left, cv->bottom,
			 l->spec->color ? lcolor : COLOR_AXIS, 1.0, NULL);
	if (r->used)
		svg_line(out, cv->right, cv->top, cv->right, cv->bottom,
				 r->spec->color ? rcolor : COLOR_AXIS, 1.0, NULL);
	if (l->used)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
						 fin(cv->left - 72.0), fin(mid), lcolor);
		ranread_svg_escape(out, l->label);
		appendStringInfoString(out, "</text>\n");
	}
	if (r->used)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
						 fin(cv->right + 62.0), fin(mid), rcolor);
		ranread_svg_escape(out, r->label);
		appendStringInfoString(out, "</text>\n");
	}
}

/* Compare doubles for qsort */
static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return (x > y) - (x < y);
}

/* Ticks, gridlines and the title of the x axis of a line chart */
static void
draw_x_axis(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	const SvgAxis *a = &cv->x;
	double		last_label = -1e9;
	double		last_tick = -1e9;
	double	   *xs;
	int			n = 0;
	int			i;
	int			j;

	if (c->x.data_ticks)
	{
		/* a tick at each distinct x, labels that would collide left out */
		for (i = 0; i < c->nseries; i++)
			n += c->series[i].n;
		xs = palloc(sizeof(double) * Max(n, 1));
		n = 0;
		for (i = 0; i < c->nseries; i++)
			for (j = 0; j < c->series[i].n; j++)
			{
				svg_room(cv);
				if (c->series[i].x && !isnan(axis_px(a, c->series[i].x[j])) &&
					VALUE_OK(c->series[i].y[j]))
					xs[n++] = c->series[i].x[j];
			}
		qsort(xs, n, sizeof(double), cmp_double);
	}
	else
	{
		xs = (double *) a->ticks;
		n = a->nticks;
	}

	for (i = 0; i < n; i++)
	{
		/* data ticks are values already placed, the others the scale's */
		double		px = axis_pos(a, xs[i]);

		svg_room(cv);
		if (isnan(px) || (i > 0 && xs[i] == xs[i - 1]))
			continue;
		/* at most one tick per pixel, however many points share it */
		if (c->x.data_ticks && px - last_tick < 1.0)
			continue;
		last_tick = px;
		svg_line(out, px, cv->top, px, cv->bottom, COLOR_GRID, 1.0, NULL);
		svg_line(out, px, cv->bottom, px, cv->bottom + 5.0, COLOR_AXIS, 1.0, NULL);
		if (!c->x.data_ticks || px - last_label >= 34.0)
		{
			svg_text(out, px, cv->bottom + 20.0, "middle", NULL,
					 c->x.data_ticks ? fmt_value(xs[i], c->x.format) : tick_text(a, xs[i]));
			last_label = px;
		}
	}
	if (!cv->x_title_later)
		svg_text(out, (cv->left + cv->right) / 2.0, cv->bottom + 44.0, "middle",
				 "font-size=\"13\" font-weight=\"bold\"", a->label);
}

/*
 * A horizontal reference line across the plot, labelled at its right end;
 * when its value is off the scale, a note in the top left corner says so.
 */
static void
draw_line(SvgCanvas *cv, const RanreadSvgLine *l, bool stroke, bool labels)
{
	StringInfo	out = cv->out;
	const SvgAxis *a = l->right ? &cv->y2 : &cv->y;
	const char *color = l->color ? l->color : RANREAD_SVG_COLOR_BAD;
	const char *label = l->label ? l->label : "";
	char	   *attrs;
	double		y;

	if (!a->used)
		a = &cv->y;
	attrs = psprintf("font-size=\"11.5\" fill=\"%s\" %s", color, SVG_HALO);
	if (!VALUE_OK(l->value))
		return;
	if (!axis_contains(a, l->value))
	{
		/* compared on the scale: a power of the base could overflow */
		bool		above = a->log ?
			(l->value > 0.0 && log(l->value) / log(a->base) > a->hi) : l->value > a->hi;

		/* top left: values, and their labels, usually peak on the right */
		if (labels)
			svg_text(out, cv->left + 8.0, cv->top + 14.0 + 16.0 * cv->corner_notes++, NULL, attrs,
				 psprintf("%s: %s this scale %s", label, above ? "above" : "below",
						  above ? "\xe2\x86\x91" : "\xe2\x86\x93"));
		return;
	}
	y = axis_px(a, l->value);
	if (stroke)
		svg_line(out, cv->left, y, cv->right, y, color,
				 l->width > 0.0 ? l->width : 1.5, l->dash ? l->dash : "8 5");
	if (labels && label[0])
		svg_text(out, cv->right - 6.0, y - 6.0, "end", attrs, label);
}


/* ---------------------------------------------------------------------
 * Line charts
 * ---------------------------------------------------------------------
 */

/* Pixel position of point j of series i; false when it has none */
static bool
point_px(const SvgCanvas *cv, int i, int j, double *px, double *py)
{
	const RanreadSvgSeries *s = &cv->c->series[i];
	const SvgAxis *a = (s->right && cv->y2.used) ? &cv->y2 : &cv->y;

	if (s->x == NULL)
		return false;
	*px = axis_px(&cv->x, s->x[j]);
	*py = axis_px(a, s->y[j]);
	return !isnan(*px) && !isnan(*py);
}

/*
 * Draw a series: a line through its points, broken where there is no
 * value, and a marker on each point (unless there are too many to tell
 * apart); without a line, the markers alone.
 */
static void
draw_series(SvgCanvas *cv, int i)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	const RanreadSvgSeries *s = &c->series[i];
	const char *color = series_color(c, i);
	char		marker = series_marker(c, i);
	bool		pen_down = false;
	bool		open = false;
	double		px;
	double		py;
	int			j;

	for (j = 0; !s->no_line && j < s->n; j++)
	{
		svg_room(cv);
		if (!point_px(cv, i, j, &px, &py))
		{
			pen_down = false;
			continue;
		}
		if (!open)
		{
			appendStringInfoString(out, "<path d=\"");
			open = true;
		}
		appendStringInfo(out, "%s%.1f %.1f", pen_down ? "L" : "M", fin(px), fin(py));
		pen_down = true;
	}
	if (open)
	{
		appendStringInfoString(out, "\" fill=\"none\"");
		svg_attr(out, "stroke", color);
		appendStringInfo(out, " stroke-width=\"%.1f\" stroke-linejoin=\"round\" stroke-linecap=\"round\"",
						 fin(series_width(c, i)));
		if (series_dash(c, i)[0])
			svg_attr(out, "stroke-dasharray", series_dash(c, i));
		appendStringInfoString(out, "/>\n");
	}

	if (marker == 0 || (!s->no_line && s->n > MARKERS_UP_TO))
		return;
	for (j = 0; j < s->n; j++)
	{
		svg_room(cv);
		if (point_px(cv, i, j, &px, &py))
			svg_marker(out, marker, px, py, color);
	}
}

/* Which points of a series get their values printed */
typedef enum SvgLabelPlan
{
	LABEL_NONE,					/* not printed */
	LABEL_ALWAYS,				/* highlighted, or the highest at a shared x */
	LABEL_SPACED				/* alone at its x: printed when 48 px apart */
} SvgLabelPlan;

/* A point of a series, for sorting by x and then from the highest y */
typedef struct SvgLabelPoint
{
	double		x;
	double		y;
	int			j;
} SvgLabelPoint;

static int
cmp_label_point(const void *a, const void *b)
{
	const SvgLabelPoint *p = (const SvgLabelPoint *) a;
	const SvgLabelPoint *q = (const SvgLabelPoint *) b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y > q->y ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

/*
 * Which points of series i get their value printed: highlighted points
 * always; where several points share an x (repeated runs), only the
 * highest (the first of equals), and none beside a highlighted one; a point
 * alone at its x when it is 48 px from the last label along the line.  One
 * sort of the points, so O(n log n) however many share an x.  *hl gets the
 * highlight of each point (or NULL).
 */
static SvgLabelPlan *
label_plan(const SvgCanvas *cv, int i, const RanreadSvgHighlight ***hl)
{
	const RanreadSvgChart *c = cv->c;
	const RanreadSvgSeries *s = &c->series[i];
	SvgLabelPlan *plan = palloc0(sizeof(SvgLabelPlan) * Max(s->n, 1));
	SvgLabelPoint *pts = palloc(sizeof(SvgLabelPoint) * Max(s->n, 1));
	const RanreadSvgHighlight **hls = palloc0(sizeof(RanreadSvgHighlight *) * Max(s->n, 1));
	int			n = 0;
	int			g;
	int			h;
	int			j;

	/* the first highlight of a point is the one drawn */
	for (h = c->nhighlights - 1; h >= 0; h--)
		if (c->highlights[h].series == i &&
			c->highlights[h].point >= 0 && c->highlights[h].point < s->n)
			hls[c->highlights[h].point] = &c->highlights[h];
	for (j = 0; j < s->n; j++)
	{
		CHECK_FOR_INTERRUPTS();
		if (hls[j])
			plan[j] = LABEL_ALWAYS;
		if (VALUE_OK(s->x[j]) && VALUE_OK(s->y[j]))
		{
			pts[n].x = s->x[j];
			pts[n].y = s->y[j];
			pts[n].j = j;
			n++;
		}
	}
	qsort(pts, n, sizeof(SvgLabelPoint), cmp_label_point);
	for (g = 0; g < n;)
	{
		int			end = g + 1;
		bool		blocked = hls[pts[g].j] != NULL;

		CHECK_FOR_INTERRUPTS();
		while (end < n && pts[end].x == pts[g].x)
			blocked |= hls[pts[end++].j] != NULL;
		if (end - g == 1)
		{
			if (!hls[pts[g].j])
				plan[pts[g].j] = LABEL_SPACED;
		}
		else if (!blocked)
			plan[pts[g].j] = LABEL_ALWAYS;
		g = end;
	}
	pfree(pts);
	*hl = hls;
	return plan;
}

/* Values printed above the points of the series that ask for it */
static void
draw_point_labels(SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	int			i;
	int			j;

	for (i = 0; i < c->nseries; i++)
	{
		const RanreadSvgSeries *s = &c->series[i];
		const RanreadSvgHighlight **hls;
		SvgLabelPlan *plan;
		double		last_label = -1e9;

		if (!s->labels || s->x == NULL)
			continue;
		plan = label_plan(cv, i, &hls);
		for (j = 0; j < s->n; j++)
		{
			const RanreadSvgHighlight *h = hls[j];
			double		px;
			double		py;

			svg_room(cv);
			if (plan[j] == LABEL_NONE || !point_px(cv, i, j, &px, &py) ||
				(plan[j] == LABEL_SPACED && px - last_label < 48.0))
				continue;
			svg_text(cv->out, px, py - 13.0, "middle",
					 psprintf("font-size=\"11.5\" font-weight=\"bold\" fill=\"%s\" %s",
							  h ? (h->color ? h->color : RANREAD_SVG_COLOR_GOOD)
							  : series_color(c, i), SVG_HALO),
					 s->texts && s->texts[j] ? s->texts[j] : fmt_value(s->y[j], s->format));
			last_label = px;
		}
		pfree(plan);
		pfree(hls);
	}
}

/* A ring around each highlighted point, and its label beside it */
static void
draw_highlights(SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	int			h;

	for (h = 0; h < c->nhighlights; h++)
	{
		const RanreadSvgHighlight *hl = &c->highlights[h];
		const char *color = hl->color ? hl->color : RANREAD_SVG_COLOR_GOOD;
		double		px;
		double		py;

		if (hl->series < 0 || hl->series >= c->nseries ||
			hl->point < 0 || hl->point >= c->series[hl->series].n ||
			!point_px(cv, hl->series, hl->point, &px, &py))
			continue;
		appendStringInfo(cv->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\"", fin(px), fin(py));
		svg_attr(cv->out, "stroke", color);
		appendStringInfoString(cv->out, " stroke-width=\"2\"/>\n");
		if (hl->label)
			svg_text(cv->out, px + 13.0, py + 4.0, NULL,
					 psprintf("font-size=\"11.5\" font-weight=\"bold\" fill=\"%s\" %s", color, SVG_HALO),
					 hl->label);
	}
}

/* Whether a line chart has any point to draw */
static bool
line_has_data(const RanreadSvgChart *c)
{
	int			i;
	int			j;

	for (i = 0; i < c->nseries; i++)
		for (j = 0; j < c->series[i].n; j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (c->series[i].x && VALUE_OK(c->series[i].x[j]) && VALUE_OK(c->series[i].y[j]))
				return true;
		}
	return false;
}

/* The plot of a line chart, from the axes to the printed values */
static void
draw_line_chart(SvgCanvas *cv)
{
	int			i;

	layout_x(cv);
	draw_y_axes(cv);
	draw_x_axis(cv);
	for (i = 0; i < cv->c->nlines; i++)
		draw_line(cv, &cv->c->lines[i], true, true);
	for (i = cv->c->nseries - 1; i >= 0; i--)
		draw_series(cv, i);
	draw_highlights(cv);
	draw_point_labels(cv);
}


/* ---------------------------------------------------------------------
 * Bar charts
 * ---------------------------------------------------------------------
 */

/* The text printed on bar j of series i */
static const char *
bar_text(const RanreadSvgSeries *s, int j)
{
	if (s->texts && s->texts[j])
		return s->texts[j];
	return fmt_value(s->y[j], s->format);
}

/*
 * Whether a bar chart has any value to draw; with widest, also the width of
 * the widest value label that does not fit across a bar bw wide (0 when
 * every one fits)
 */
static bool
bar_values(const RanreadSvgChart *c, double bw, double *widest)
{
	bool		any = false;
	int			i;
	int			j;

	if (widest)
		*widest = 0.0;
	for (i = 0; i < c->nseries; i++)
		for (j = 0; j < Min(c->series[i].n, c->ncategories); j++)
		{
			CHECK_FOR_INTERRUPTS();
			if (VALUE_OK(c->series[i].y[j]))
			{
				double		w;

				any = true;
				if (widest == NULL)
					return true;
				w = text_width(bar_text(&c->series[i], j), false);
				if (w * 0.92 > bw + 2.0)
					*widest = Max(*widest, w);
			}
		}
	return any;
}

/* Whether a bar chart has any value to draw */
static bool
bar_has_data(const RanreadSvgChart *c)
{
	return bar_values(c, 0.0, NULL);
}

/* How far below the plot the category labels reach */
static double
bar_category_drop(const SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	double		slot = (cv->right - cv->left) / Max(c->ncategories, 1);
	double		widest = 0.0;
	int			j;

	for (j = 0; j < c->ncategories; j++)
	{
		CHECK_FOR_INTERRUPTS();
		widest = Max(widest, text_width(c->categories[j] ? c->categories[j] : "", false));
	}
	/* labels wider than their slot are slanted */
	return widest > slot - 6.0 ? Min(widest * 0.5, 140.0) + 14.0 : 0.0;
}

/*
 * Categories along x, one bar per series in each, grouped; each bar's value
 * printed on top of it (turned upright when wider than the bar).
 */
static void
draw_bar_chart(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	int			ncat = Max(c->ncategories, 1);
	double		slot = (cv->right - cv->left) / ncat;
	double		group = slot * 0.78;
	double		bw = group / Max(c->nseries, 1);
	double		base;
	double		drop = bar_category_drop(cv);
	int			i;
	int			j;

	draw_y_axes(cv);
	base = cv->y.log ? cv->bottom : axis_pos(&cv->y, Max(cv->y.lo, Min(0.0, cv->y.hi)));
	for (i = 0; i < cv->c->nlines; i++)
		draw_line(cv, &cv->c->lines[i], true, false);

	for (j = 0; j < c->ncategories; j++)
	{
		double		cx = cv->left + slot * (j + 0.5);
		const char *cat = c->categories[j] ? c->categories[j] : "";

		svg_room(cv);
		svg_line(out, cx, cv->bottom, cx, cv->bottom + 5.0, COLOR_AXIS, 1.0, NULL);
		if (drop > 0.0)
		{
			appendStringInfo(out,
							 "<text transform=\"translate(%.1f %.1f) rotate(-30)\" text-anchor=\"end\">",
							 fin(cx + 4.0), fin(cv->bottom + 16.0));
			ranread_svg_escape(out, cat);
			appendStringInfoString(out, "</text>\n");
		}
		else
			svg_text(out, cx, cv->bottom + 20.0, "middle", NULL, cat);

		for (i = 0; i < c->nseries; i++)
		{
			const RanreadSvgSeries *s = &c->series[i];
			double		x = cx - group / 2.0 + bw * i;
			double		top;
			const char *text;

			if (j >= s->n)
				continue;
			if (!VALUE_OK(s->y[j]) || (cv->y.log && !(s->y[j] > 0.0)))
			{
				/* no value, or none a log scale can stand a bar on */
				svg_text(out, x + bw / 2.0, base - 4.0, "middle",
						 "font-size=\"10\" fill=\"" RANREAD_SVG_COLOR_MUTED "\"",
						 VALUE_OK(s->y[j]) ? bar_text(s, j) : "n/a");
				continue;
			}
			top = axis_px(&cv->y, s->y[j]);
			svg_bar(out, x + 1.0, Min(top, base), Max(bw - 2.0, 1.0), fabs(base - top),
					series_color(c, i), i);
			text = bar_text(s, j);
			if (text_width(text, false) * 0.92 <= bw + 2.0)
				svg_text(out, x + bw / 2.0, Min(top, base) - 5.0, "middle",
						 "font-size=\"11\" font-weight=\"bold\"", text);
			else
			{
				appendStringInfo(out,
								 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"11\" font-weight=\"bold\">",
								 fin(x + bw / 2.0 + 4.0), fin(Min(top, base) - 5.0));
				ranread_svg_escape(out, text);
				appendStringInfoString(out, "</text>\n");
			}
		}
	}
	/* the lines' labels over the bars, not behind them */
	for (i = 0; i < cv->c->nlines; i++)
		draw_line(cv, &cv->c->lines[i], false, true);
	if (cv->x.spec->label)
		svg_text(out, (cv->left + cv->right) / 2.0, cv->bottom + 44.0 + drop, "middle",
				 "font-size=\"13\" font-weight=\"bold\"", cv->x.spec->label);
}

/* Room above the bars for their upright value labels, as a factor */
static double
bar_label_room(const RanreadSvgChart *c, double plot_width)
{
	double		bw = plot_width / Max(c->ncategories, 1) * 0.78 / Max(c->nseries, 1);
	double		widest;

	(void) bar_values(c, bw, &widest);
	/* a long text takes room up to the plot's height, not more */
	return widest > 0.0 ? 1.0 + Min(widest + 10.0, PLOT_HEIGHT) / PLOT_HEIGHT : 1.0;
}


/* ---------------------------------------------------------------------
 * Heat tables
 * ---------------------------------------------------------------------
 */

/* Parse #rgb or #rrggbb; black for anything else */
static void
color_rgb(const char *s, double rgb[3])
{
	unsigned int v = 0;
	int			i;
	int			len = s ? strlen(s) : 0;

	rgb[0] = rgb[1] = rgb[2] = 0.0;
	if (len != 4 && len != 7)
		return;
	for (i = 1; i < len; i++)
	{
		int			ch = s[i];
		int			d = (ch >= '0' && ch <= '9') ? ch - '0'
			: (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10
			: (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10 : 0;

		v = v * 16 + d;
	}
	if (len == 4)
		for (i = 0; i < 3; i++)
			rgb[i] = ((v >> (8 - 4 * i)) & 0xF) * 17;
	else
		for (i = 0; i < 3; i++)
			rgb[i] = (v >> (16 - 8 * i)) & 0xFF;
}

/* The colour at t in [0, 1] along the heat scale's stops, and its lightness */
static char *
heat_color(const RanreadSvgHeat *h, double t, bool *light)
{
	bool		given = h->colors && h->ncolors > 0;
	const char *const *stops = given ? h->colors : svg_heat_default;
	int			n = given ? h->ncolors : lengthof(svg_heat_default);
	double		a[3];
	double		b[3];
	double		pos;
	int			k;
	int			i;
	int			rgb[3];

	/* Max and Min let NaN through: it would index no stop at all */
	if (!(t >= 0.0))
		t = 0.0;
	if (!(t <= 1.0))
		t = 1.0;
	if (n == 1)
		k = 0, pos = 0.0;
	else
	{
		pos = t * (n - 1);
		k = Max(0, Min((int) floor(pos), n - 2));
		pos -= k;
	}
	color_rgb(stops[k], a);
	color_rgb(stops[Min(k + 1, n - 1)], b);
	for (i = 0; i < 3; i++)
		rgb[i] = (int) rint(a[i] + (b[i] - a[i]) * pos);
	*light = (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]) > 150.0;
	return psprintf("#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

/* Where a value sits on the heat scale, 0 to 1 */
static double
heat_t(double v, double lo, double hi, bool log_scale)
{
	if (log_scale)
	{
		v = log(Max(v, lo));
		lo = log(lo);
		hi = log(hi);
	}
	return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

/* Layout of a heat table */
typedef struct SvgHeatLayout
{
	double		gx;				/* left of the cells */
	double		gy;				/* top of the cells */
	double		cw;				/* cell width and height */
	double		ch;
	double		width;			/* the canvas it needs */
} SvgHeatLayout;

/* Size the cells and the canvas of a heat table */
static SvgHeatLayout
heat_layout(const RanreadSvgChart *c)
{
	const RanreadSvgHeat *h = &c->heat;
	SvgHeatLayout l;
	double		rowlab = 40.0;
	double		collab = 0.0;
	int			i;

	for (i = 0; i < h->nrows; i++)
		rowlab = Max(rowlab, text_width(h->rows[i] ? h->rows[i] : "", true));
	for (i = 0; i < h->ncols; i++)
		collab = Max(collab, text_width(h->cols[i] ? h->cols[i] : "", true));
	l.gx = 40.0 + (c->y.label ? 26.0 : 0.0) + rowlab + 14.0;
	l.gy = PLOT_TOP + 30.0 + (c->x.label ? 22.0 : 0.0);
	l.ch = 32.0;
	l.cw = Max(64.0, Min(140.0, collab + 16.0));
	l.width = Max((double) SVG_WIDTH, l.gx + l.cw * h->ncols + 40.0);
	/* spread the columns over a wide canvas, up to 140 px each */
	if (h->ncols > 0)
		l.cw = Max(l.cw, Min(140.0, (l.width - 40.0 - l.gx) / h->ncols));
	return l;
}

/* Whether a heat table has any value */
static bool
heat_has_data(const RanreadSvgHeat *h)
{
	int			i;

	for (i = 0; i < h->nrows * h->ncols; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (VALUE_OK(h->values[i]))
			return true;
	}
	return false;
}

/* Whether a heat scale over range r is drawn in log */
static bool
heat_log(const RanreadSvgHeat *h, const SvgRange *r)
{
	RanreadSvgAxis scale_spec;

	memset(&scale_spec, 0, sizeof(scale_spec));
	scale_spec.scale = h->scale;
	return axis_wants_log(&scale_spec, r) && r->min > 0.0;
}

/* The width of a heat scale's legend */
static double
heat_legend_width(const RanreadSvgHeat *h, const SvgRange *r, bool log_scale)
{
	const char *title = psprintf("%s%s:", h->metric ? h->metric : "Value",
								 log_scale ? " (log colour scale)" : "");

	return text_width(title, true) + 10.0 + text_width(fmt_value(r->min, h->format), false) +
		6.0 + 22.0 * 8 + 6.0 + text_width(fmt_value(r->max, h->format), false);
}

/*
 * The scale of a heat table or panel as a legend at (x, y): what the values
 * are, the lowest, eight swatches from low to high, the highest
 */
static void
heat_legend(SvgCanvas *cv, const RanreadSvgHeat *h, const SvgRange *r, bool log_scale,
			double x, double y)
{
	StringInfo	out = cv->out;
	char	   *title = psprintf("%s%s:", h->metric ? h->metric : "Value",
								 log_scale ? " (log colour scale)" : "");
	bool		light;
	int			i;

	svg_text(out, x, y + 4.0, NULL, "font-weight=\"bold\"", title);
	x += text_width(title, true) + 10.0;
	svg_text(out, x, y + 4.0, NULL, NULL, fmt_value(r->min, h->format));
	x += text_width(fmt_value(r->min, h->format), false) + 6.0;
	for (i = 0; i < 8; i++)
		svg_rect(out, x + 22.0 * i, y - 7.0, 22.0, 14.0, heat_color(h, i / 7.0, &light));
	svg_text(out, x + 22.0 * 8 + 6.0, y + 4.0, NULL, NULL, fmt_value(r->max, h->format));
}

/*
 * A heat table: column labels on top (the x axis's label above them), row
 * labels on the left, one cell per value in the colour of its place on the
 * scale with the value printed in it, and the scale as a legend of swatches
 * from the lowest value to the highest.
 */
static double
draw_heat(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	const RanreadSvgHeat *h = &c->heat;
	SvgHeatLayout l = heat_layout(c);
	SvgRange	r = {0, 0, get_float8_nan(), 0};
	bool		log_scale;
	bool		light;
	int			i;
	int			j;

	for (i = 0; i < h->nrows * h->ncols; i++)
	{
		svg_room(cv);
		range_add(&r, h->values[i]);
	}
	log_scale = heat_log(h, &r);
	heat_legend(cv, h, &r, log_scale, 40.0, LEGEND_Y);

	if (c->x.label)
		svg_text(out, l.gx + l.cw * h->ncols / 2.0, l.gy - 30.0, "middle",
				 "font-size=\"13\" font-weight=\"bold\"", c->x.label);
	for (j = 0; j < h->ncols; j++)
		svg_text(out, l.gx + l.cw * (j + 0.5), l.gy - 9.0, "middle", "font-weight=\"bold\"",
				 h->cols[j] ? h->cols[j] : "");
	if (c->y.label)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">",
						 48.0, fin(l.gy + l.ch * h->nrows / 2.0));
		ranread_svg_escape(out, c->y.label);
		appendStringInfoString(out, "</text>\n");
	}
	for (i = 0; i < h->nrows; i++)
	{
		double		cy = l.gy + l.ch * i;

		svg_text(out, l.gx - 10.0, cy + l.ch / 2.0 + 4.0, "end", "font-weight=\"bold\"",
				 h->rows[i] ? h->rows[i] : "");
		for (j = 0; j < h->ncols; j++)
		{
			double		v = h->values[i * h->ncols + j];
			double		cx = l.gx + l.cw * j;

			svg_room(cv);
			if (!VALUE_OK(v))
			{
				svg_rect(out, cx + 1.0, cy + 1.0, l.cw - 2.0, l.ch - 2.0, COLOR_HEADER);
				svg_text(out, cx + l.cw / 2.0, cy + l.ch / 2.0 + 4.0, "middle",
						 "fill=\"" RANREAD_SVG_COLOR_MUTED "\"", "n/a");
				continue;
			}
			svg_rect(out, cx + 1.0, cy + 1.0, l.cw - 2.0, l.ch - 2.0,
					 heat_color(h, heat_t(v, r.min, r.max, log_scale), &light));
			svg_text(out, cx + l.cw / 2.0, cy + l.ch / 2.0 + 4.0, "middle",
					 light ? "font-weight=\"bold\"" : "font-weight=\"bold\" fill=\"#ffffff\"",
					 fmt_value(v, h->format));
		}
	}
	return l.gy + l.ch * h->nrows;
}


/* ---------------------------------------------------------------------
 * Notes and the table under the chart
 * ---------------------------------------------------------------------
 */

/* The notes, one line each from y; returns the baseline of the last */
static double
draw_notes(SvgCanvas *cv, double y)
{
	int			i;

	y -= 21.0;

	for (i = 0; i < cv->c->nnotes; i++)
	{
		const RanreadSvgNote *n = &cv->c->notes[i];
		const char *tone = tone_attrs(n->tone, n->tone == RANREAD_SVG_GOOD ||
									  n->tone == RANREAD_SVG_BAD || n->headline);

		char	   *attrs = psprintf("font-size=\"%s\"%s%s", n->headline ? "15" : "13",
										 tone ? " " : "", tone ? tone : "");
		const char *rest = n->text ? n->text : "";
		/* px per character at the note's size: 15 px bold or 13 px */
		double		cw = n->headline ? CHAR_W_BOLD * 15.0 / 12.0 : CHAR_W * 13.0 / 12.0;
		int			fit = Max((int) ((cv->width - 80.0) / cw), 20);

		/* a note wider than the picture wraps at spaces, never leaves it */
		y += 21.0;
		for (;;)
		{
			int			len = strlen(rest);
			int			cut;
			int			chars = 0;
			int			k;

			CHECK_FOR_INTERRUPTS();
			/* the byte where the fit-th character starts, if any */
			for (k = 0; k < len; k++)
				if ((rest[k] & 0xC0) != 0x80 && chars++ == fit)
					break;
			if (k >= len)
			{
				svg_text(cv->out, 40, y, NULL, attrs, rest);
				break;
			}
			for (cut = k; cut > 0 && rest[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = k;		/* one word longer than a line: cut it */
			svg_text(cv->out, 40, y, NULL, attrs, pnstrdup(rest, cut));
			rest += cut;
			while (*rest == ' ')
				rest++;
			if (!*rest)
				break;
			y += n->headline ? 19.0 : 17.0;
		}
	}
	return y;
}

/* Column edges of the table: each as wide as its widest text */
static void
table_columns(const RanreadSvgTable *t, double *colx, double x0)
{
	int			c;
	int			r;

	colx[0] = x0;
	for (c = 0; c < t->ncols; c++)
	{
		double		w = text_width(t->header[c] ? t->header[c] : "", true);

		for (r = 0; r < t->nrows; r++)
		{
			const char *s = t->cells[r * t->ncols + c].text;

			CHECK_FOR_INTERRUPTS();
			w = Max(w, text_width(s ? s : "", t->highlight && t->highlight[r]));
		}
		colx[c + 1] = colx[c] + Max(w + 24.0, 56.0);
	}
}

/* The table, header row at y; returns the baseline of its last line */
static double
draw_table(SvgCanvas *cv, double y)
{
	StringInfo	out = cv->out;
	const RanreadSvgTable *t = &cv->c->table;
	const double row_h = 19.0;
	double		x0 = 48.0;
	double		x1 = cv->width - 48.0;
	double		colx[RANREAD_SVG_MAX_COLUMNS + 1];
	int			r;
	int			c;

	table_columns(t, colx, x0);
	svg_rect(out, x0, y - 14.0, x1 - x0, row_h, COLOR_HEADER);
	for (r = -1; r < t->nrows; r++)
	{
		bool		hl = r >= 0 && t->highlight && t->highlight[r];
		double		ry = y + row_h * (r + 1);

		svg_room(cv);
		if (hl)
			svg_rect(out, x0, ry - 14.0, x1 - x0, row_h, COLOR_BAND_GOOD);
		else if (r >= 0 && r % 2 == 1)
			svg_rect(out, x0, ry - 14.0, x1 - x0, row_h, COLOR_BAND);
		for (c = 0; c < t->ncols; c++)
		{
			bool		left = t->left && t->left[c];
			const char *text;
			const char *attrs;

			if (r < 0)
			{
				text = t->header[c];
				attrs = "font-weight=\"bold\"";
			}
			else
			{
				text = t->cells[r * t->ncols + c].text;
				attrs = tone_attrs(t->cells[r * t->ncols + c].tone, hl);
			}
			svg_text(out, left ? colx[c] + 12.0 : colx[c + 1] - 12.0, ry,
					 left ? NULL : "end", attrs, text ? text : "");
		}
	}
	y += row_h * t->nrows;
	if (t->more)
	{
		y += row_h;
		svg_text(out, x0, y, NULL, "fill=\"" RANREAD_SVG_COLOR_MUTED "\"", t->more);
	}
	return y;
}

/* The width a table needs */
static double
table_width(const RanreadSvgTable *t)
{
	double		colx[RANREAD_SVG_MAX_COLUMNS + 1];

	if (t->ncols == 0)
		return 0.0;
	table_columns(t, colx, 48.0);
	return colx[t->ncols] + 48.0;
}


/* ---------------------------------------------------------------------
 * The chart
 * ---------------------------------------------------------------------
 */

/*
 * The left edge of a plot that a panel's row labels and y axis title fit
 * beside, at least PLOT_LEFT
 */
static double
panel_left(const RanreadSvgChart *p)
{
	double		rowlab = 0.0;
	int			i;

	for (i = 0; i < p->heat.nrows; i++)
		rowlab = Max(rowlab, text_width(p->heat.rows[i] ? p->heat.rows[i] : "", false));
	return Max(PLOT_LEFT, 40.0 + (p->y.label ? 24.0 : 0.0) + rowlab + 10.0);
}

/*
 * A heat panel's cells, rows of height rh from top: each column's from its
 * edge to the next on the plot's x axis (or an even share of the plot
 * without edges), clipped to the plot, with its column, row and value as a
 * tooltip
 */
static void
draw_panel_cells(SvgCanvas *cv, const RanreadSvgHeat *h, const SvgRange *r, bool log_scale,
				 double top, double rh)
{
	StringInfo	out = cv->out;
	bool		light;
	int			i;
	int			j;

	for (i = 0; i < h->nrows; i++)
	{
		double		cy = top + rh * i;

		for (j = 0; j < h->ncols; j++)
		{
			double		v = h->values[i * h->ncols + j];
			double		x0;
			double		x1;

			svg_room(cv);
			if (!VALUE_OK(v))
				continue;
			if (h->edges)
			{
				x0 = axis_px(&cv->x, h->edges[j]);
				x1 = axis_px(&cv->x, h->edges[j + 1]);
			}
			else
			{
				x0 = cv->left + (cv->right - cv->left) * j / h->ncols;
				x1 = cv->left + (cv->right - cv->left) * (j + 1) / h->ncols;
			}
			if (isnan(x0) || isnan(x1))
				continue;
			x0 = Max(x0, cv->left);
			x1 = Min(x1, cv->right);
			if (!(x1 > x0))
				continue;
			appendStringInfo(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
							 fin(x0), fin(cy), fin(x1 - x0), fin(rh));
			svg_attr(out, "fill", heat_color(h, heat_t(v, r->min, r->max, log_scale), &light));
			appendStringInfoString(out, "><title>");
			ranread_svg_escape(out, h->cols[j] ? h->cols[j] : "");
			appendStringInfoString(out, ", ");
			ranread_svg_escape(out, h->rows[i] ? h->rows[i] : "");
			appendStringInfoString(out, ": ");
			ranread_svg_escape(out, fmt_value(v, h->format));
			if (h->metric)
			{
				appendStringInfoChar(out, ' ');
				ranread_svg_escape(out, h->metric);
			}
			appendStringInfoString(out, "</title></rect>\n");
		}
	}
}

/*
 * A heat panel under the plot of a line chart, from the baseline y of the
 * text above it: its title and colour scale, then its rows (the first on
 * top) between the plot's left and right edges, each column's cells from
 * its edge to the next on the plot's x axis, whose gridlines and ticks it
 * repeats; the x axis's title under the last panel.  Returns the baseline
 * of its lowest text.
 */
static double
draw_panel(SvgCanvas *cv, const RanreadSvgChart *p, double y, bool last)
{
	StringInfo	out = cv->out;
	const RanreadSvgHeat *h = &p->heat;
	SvgRange	r = {0, 0, get_float8_nan(), 0};
	double		head = y + 38.0;
	double		tx = 40.0;
	double		rh;
	double		top;
	double		bottom;
	double		saved_top = cv->top;
	double		saved_bottom = cv->bottom;
	bool		log_scale;
	int			every;
	int			i;

	for (i = 0; i < h->nrows * h->ncols; i++)
	{
		svg_room(cv);
		range_add(&r, h->values[i]);
	}
	log_scale = heat_log(h, &r);

	/* the title, and the colour scale beside it (under it when too wide) */
	if (p->title)
	{
		svg_text(out, 40.0, head, NULL, "font-size=\"14\" font-weight=\"bold\"", p->title);
		tx += text_width(p->title, true) * 14.0 / 12.0 + 24.0;
	}
	if (r.n > 0)
	{
		if (tx > 40.0 && tx + heat_legend_width(h, &r, log_scale) > cv->width - 24.0)
		{
			head += 22.0;
			tx = 40.0;
		}
		heat_legend(cv, h, &r, log_scale, tx, head - 4.0);
	}

	/*
	 * rows of 6 to 22 px, about 240 px in all; a few rows taller (up to
	 * 40 px), so that the y axis's title fits beside them
	 */
	rh = h->nrows > 0 ? Max(6.0, Min(22.0, 240.0 / h->nrows)) : 22.0;
	if (p->y.label && h->nrows > 0)
		rh = Max(rh, Min(40.0, (text_width(p->y.label, true) * 13.0 / 12.0 + 16.0) / h->nrows));
	top = head + 16.0;
	bottom = top + rh * Max(h->nrows, 1);
	cv->top = top;
	cv->bottom = bottom;
	svg_rect(out, cv->left, top, cv->right - cv->left, bottom - top, COLOR_BAND);
	cv->x_title_later = !last;
	draw_x_axis(cv);

	draw_panel_cells(cv, h, &r, log_scale, top, rh);
	if (r.n == 0)
		svg_text(out, (cv->left + cv->right) / 2.0, (top + bottom) / 2.0 + 4.0, "middle",
				 "fill=\"" RANREAD_SVG_COLOR_MUTED "\"", "No values in this panel.");
	appendStringInfo(out,
					 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"%s\"/>\n",
					 fin(cv->left), fin(top), fin(cv->right - cv->left), fin(bottom - top), COLOR_AXIS);

	/* row labels, no closer than 13 px */
	every = Max(1, (int) ceil(13.0 / rh));
	for (i = 0; i < h->nrows; i += every)
	{
		svg_room(cv);
		svg_text(out, cv->left - 8.0, top + rh * i + rh / 2.0 + 4.0, "end",
				 rh < 14.0 ? "font-size=\"11\"" : NULL, h->rows[i] ? h->rows[i] : "");
	}
	if (p->y.label)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">",
						 48.0, fin((top + bottom) / 2.0));
		ranread_svg_escape(out, p->y.label);
		appendStringInfoString(out, "</text>\n");
	}
	cv->top = saved_top;
	cv->bottom = saved_bottom;
	return last ? bottom + 44.0 : bottom + 20.0;
}

/*
 * The legend and plot of a line or bar chart; returns the baseline of the
 * x axis's title.
 */
static double
draw_plot(SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	SvgLegendEntry *legend = palloc(sizeof(SvgLegendEntry) * (c->nseries + c->nlines + 1));
	int			nlegend = legend_collect(c, legend);
	bool		bars = (c->kind == RANREAD_SVG_BAR);
	double		last;
	int			i;

	cv->legend_rows = Max(legend_rows(cv->width, legend, nlegend), 1);
	cv->left = PLOT_LEFT;
	cv->top = PLOT_TOP + LEGEND_ROW * (cv->legend_rows - 1);
	cv->bottom = cv->top + PLOT_HEIGHT;
	cv->right = cv->width - 48.0;
	for (i = 0; i < c->nseries; i++)
	{
		/* a right axis takes room for its ticks and title */
		if (c->series[i].right && !bars)
			cv->right = cv->width - 104.0;
	}
	legend_draw(cv, legend, nlegend);
	cv->x.spec = &c->x;
	cv->y2.spec = &c->y2;

	if (bars)
	{
		/* bars stand on 0 (or a log scale's bottom), with room above for their values */
		layout_y(cv, &cv->y, &c->y, false, true,
				 Max(1.08, bar_label_room(c, cv->right - cv->left)));
		draw_bar_chart(cv);
		return cv->bottom + 44.0 + bar_category_drop(cv);
	}

	/* panels under the plot share its left edge: room for their row labels */
	for (i = 0; i < c->npanels; i++)
		cv->left = Max(cv->left, panel_left(&c->panels[i]));
	cv->x_title_later = c->npanels > 0;

	layout_y(cv, &cv->y, &c->y, false, false, 1.0);
	layout_y(cv, &cv->y2, &c->y2, true, false, 1.0);
	if (!cv->y.used)
	{
		/* every series on the right: the left axis takes them */
		cv->y = cv->y2;
		cv->y2.used = false;
		cv->right = cv->width - 48.0;
		cv->x.p1 = cv->right;
	}
	draw_line_chart(cv);
	if (c->npanels == 0)
		return cv->bottom + 44.0;
	last = cv->bottom + 20.0;
	for (i = 0; i < c->npanels; i++)
		last = draw_panel(cv, &c->panels[i], last, i == c->npanels - 1);
	return last;
}

/* Set every field of a chart to "not given" */
void
ranread_svg_init(RanreadSvgChart *chart, RanreadSvgKind kind)
{
	memset(chart, 0, sizeof(*chart));
	chart->kind = kind;
	chart->x.min = chart->x.max = get_float8_nan();
	chart->y.min = chart->y.max = get_float8_nan();
	chart->y2.min = chart->y2.max = get_float8_nan();
	chart->x.scale = chart->y.scale = chart->y2.scale = RANREAD_SVG_LINEAR;
	chart->heat.scale = RANREAD_SVG_LINEAR;
}

/* A box in place of the plot that says there is nothing to draw */
static double
draw_empty(SvgCanvas *cv, double y)
{
	svg_rect(cv->out, 40, y, cv->width - 80, 100, COLOR_BAND);
	appendStringInfo(cv->out,
					 "<rect x=\"40\" y=\"%.1f\" width=\"%.1f\" height=\"100\" fill=\"none\" stroke=\"%s\"/>\n",
					 y, cv->width - 80, COLOR_GRID);
	svg_text(cv->out, cv->width / 2.0, y + 55.0, "middle",
			 "font-size=\"15\" fill=\"" RANREAD_SVG_COLOR_MUTED "\"",
			 cv->c->empty ? cv->c->empty : "Nothing to draw: the chart has no values.");
	return y + 100.0;
}

/*
 * Draw a chart as a standalone SVG document, appended to out: the plot (or
 * the box saying there is nothing to draw), then the notes and the table.
 */
void
ranread_svg_render(StringInfo out, const RanreadSvgChart *c)
{
	StringInfoData body;
	SvgCanvas	cv;
	bool		has_data;
	double		last;			/* baseline of the lowest text so far */

	if (c->table.ncols > RANREAD_SVG_MAX_COLUMNS || c->nseries < 0 || c->ncategories < 0)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a chart table has at most %d columns, not %d",
						RANREAD_SVG_MAX_COLUMNS, c->table.ncols)));
	memset(&cv, 0, sizeof(cv));
	initStringInfo(&body);
	cv.out = &body;
	cv.c = c;
	cv.width = SVG_WIDTH;

	if (c->kind == RANREAD_SVG_HEAT)
		has_data = heat_has_data(&c->heat);
	else if (c->kind == RANREAD_SVG_BAR)
		has_data = bar_has_data(c);
	else
		has_data = line_has_data(c);

	/* the canvas is as wide as a heat table or the table under it needs */
	if (c->kind == RANREAD_SVG_HEAT && has_data)
		cv.width = heat_layout(c).width;
	cv.width = Max(cv.width, table_width(&c->table));

	if (!has_data)
		last = draw_empty(&cv, c->subtitle ? 76.0 : 60.0) + 16.0;
	else if (c->kind == RANREAD_SVG_HEAT)
		last = draw_heat(&cv) + 12.0;
	else
		last = draw_plot(&cv);

	if (c->nnotes > 0)
		last = draw_notes(&cv, last + 32.0);
	if (c->table.ncols > 0)
		last = draw_table(&cv, last + (c->nnotes > 0 ? 34.0 : 40.0));

	svg_head(out, cv.width, ceil(last + 24.0), c);
	if (c->kind == RANREAD_SVG_BAR && has_data)
		svg_hatch_defs(out);
	if (body.len > RANREAD_SVG_MAX_OUTPUT)
		svg_too_large(body.len);
	appendBinaryStringInfo(out, body.data, body.len);
	appendStringInfoString(out, "</svg>\n");
}
