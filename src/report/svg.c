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
 * The renderer's files: this one (the document and its frame, text,
 * escaping and number formats, legends, notes and the table, and
 * ranread_svg_render, which puts a chart together), svg_axis.c (scales,
 * ticks, the axes and what is drawn on them), svg_line.c, svg_bar.c and
 * svg_heat.c (each kind of plot; heat panels too); svg_internal.h holds
 * what they share.
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
 *				"color"; x of a line chart: "time": "duration" (x in seconds,
 *				ticks in s, min, h or days by the span, the unit in the
 *				label) | "clock" (x in Unix time, ticks at clock times, a
 *				date at midnight), "utc_offset" (clock: seconds east of UTC)}
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
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg_internal.h"

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
void
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
char *
svg_fmt_value(double v, RanreadSvgFormat format)
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
double
svg_fin(double v)
{
	if (isnan(v))
		return 0.0;
	return Max(-SVG_COORD_MAX, Min(SVG_COORD_MAX, v));
}

/* Append name="value", the value escaped */
void
svg_attr(StringInfo out, const char *name, const char *value)
{
	appendStringInfo(out, " %s=\"", name);
	ranread_svg_escape(out, value);
	appendStringInfoChar(out, '"');
}

/* Append a line of text at (x, y) */
void
svg_text(StringInfo out, double x, double y, const char *anchor,
		 const char *attrs, const char *s)
{
	appendStringInfo(out, "<text x=\"%.1f\" y=\"%.1f\"", svg_fin(x), svg_fin(y));
	if (anchor)
		appendStringInfo(out, " text-anchor=\"%s\"", anchor);
	if (attrs)
		appendStringInfo(out, " %s", attrs);
	appendStringInfoChar(out, '>');
	ranread_svg_escape(out, s);
	appendStringInfoString(out, "</text>\n");
}

/* Append a straight line */
void
svg_line(StringInfo out, double x1, double y1, double x2, double y2,
		 const char *color, double width, const char *dash)
{
	appendStringInfo(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"",
					 svg_fin(x1), svg_fin(y1), svg_fin(x2), svg_fin(y2));
	svg_attr(out, "stroke", color);
	if (width != 1.0)
		appendStringInfo(out, " stroke-width=\"%.1f\"", svg_fin(width));
	if (dash && dash[0])
		svg_attr(out, "stroke-dasharray", dash);
	appendStringInfoString(out, "/>\n");
}

/* Append a filled rectangle */
void
svg_rect(StringInfo out, double x, double y, double w, double h, const char *fill)
{
	appendStringInfo(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
					 svg_fin(x), svg_fin(y), Max(svg_fin(w), 0.0), Max(svg_fin(h), 0.0));
	svg_attr(out, "fill", fill);
	appendStringInfoString(out, "/>\n");
}

/* Draw one marker centred on (x, y) */
void
svg_marker(StringInfo out, char marker, double x, double y, const char *color)
{
	const char *edge = "stroke=\"#ffffff\" stroke-width=\"1.5\"/>\n";

	x = svg_fin(x);
	y = svg_fin(y);
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
double
svg_text_width(const char *s, bool bold)
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
const char *
svg_series_color(const RanreadSvgChart *c, int i)
{
	return c->series[i].color ? c->series[i].color
		: svg_palette[i % RANREAD_SVG_MAX_SERIES];
}

/* The dash of series i ("" for solid) */
const char *
svg_series_dash(const RanreadSvgChart *c, int i)
{
	return c->series[i].dash ? c->series[i].dash : svg_dashes[i % lengthof(svg_dashes)];
}

/* The marker of series i (0 for none) */
char
svg_series_marker(const RanreadSvgChart *c, int i)
{
	char		m = c->series[i].marker;

	if (m == '-')
		return 0;
	return m ? m : svg_markers[i % lengthof(svg_markers)];
}

/* The stroke width of series i */
double
svg_series_width(const RanreadSvgChart *c, int i)
{
	return c->series[i].width > 0.0 ? c->series[i].width : 2.0;
}


/* ---------------------------------------------------------------------
 * The frame: root element, title, legend
 * ---------------------------------------------------------------------
 */

/* Widths of the title (19 px bold) and the subtitle (13 px), roughly */
#define TITLE_W(s) (svg_text_width((s), true) * 19.0 / 12.0)
#define SUBTITLE_W(s) (svg_text_width((s), false) * 13.0 / 12.0)

/*
 * A title line that fits room px at px_per_char: the text, or its first
 * characters and an ellipsis (the canvas widens for the title lines up to
 * SVG_MAX_WIDTH first, so only a title longer than that is cut)
 */
static const char *
head_fit(const char *s, double px_per_char, double room)
{
	int			fit = Max((int) (room / px_per_char) - 1, 8);
	int			chars = 0;
	int			k;

	if (svg_text_width(s, false) * px_per_char / CHAR_W <= room)
		return s;
	for (k = 0; s[k]; k++)
		if ((s[k] & 0xC0) != 0x80 && chars++ == fit)
			return psprintf("%s\xe2\x80\xa6", pnstrdup(s, k));
	return s;
}

/* The root element, background and title lines, before the body */
static void
svg_head(StringInfo out, double width, double height, const RanreadSvgChart *c)
{
	const char *title = c->title ? c->title : "ranread chart";

	width = Max(svg_fin(width), 1.0);
	height = Max(svg_fin(height), 1.0);
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
	svg_text(out, 40, 34, NULL, "font-size=\"19\" font-weight=\"bold\"",
			 head_fit(title, CHAR_W_BOLD * 19.0 / 12.0, width - 80.0));
	if (c->subtitle)
		svg_text(out, 40, 57, NULL, "font-size=\"13\" fill=\"" RANREAD_SVG_COLOR_MUTED "\"",
				 head_fit(c->subtitle, CHAR_W * 13.0 / 12.0, width - 80.0));
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
	return 36.0 + svg_text_width(e->label, false) + 26.0;
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
void
svg_bar(StringInfo out, double x, double y, double w, double h,
		const char *color, int series)
{
	svg_rect(out, x, y, w, h, color);
	if (series % 6 != 0)
		appendStringInfo(out,
						 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"url(#ranread-hatch-%d)\"/>\n",
						 svg_fin(x), svg_fin(y), Max(svg_fin(w), 0.0), Max(svg_fin(h), 0.0), series % 6);
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
		e[n].color = svg_series_color(c, i);
		e[n].dash = svg_series_dash(c, i);
		e[n].width = svg_series_width(c, i);
		e[n].marker = svg_series_marker(c, i);
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
		/* px per character at the note's size: 15 px bold or 13 px, bold too in a tone */
		bool		bold = n->headline || n->tone == RANREAD_SVG_GOOD || n->tone == RANREAD_SVG_BAD;
		double		cw = (bold ? CHAR_W_BOLD : CHAR_W) * (n->headline ? 15.0 : 13.0) / 12.0;
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
		double		w = svg_text_width(t->header[c] ? t->header[c] : "", true);

		for (r = 0; r < t->nrows; r++)
		{
			const char *s = t->cells[r * t->ncols + c].text;

			CHECK_FOR_INTERRUPTS();
			w = Max(w, svg_text_width(s ? s : "", t->highlight && t->highlight[r]));
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
		svg_layout_y(cv, &cv->y, &c->y, false, true,
				 Max(1.08, svg_bar_label_room(c, cv->right - cv->left)));
		svg_draw_bar_chart(cv);
		return cv->bottom + 44.0 + svg_bar_category_drop(cv);
	}

	/* panels under the plot share its left edge: room for their row labels */
	for (i = 0; i < c->npanels; i++)
		cv->left = Max(cv->left, svg_panel_left(&c->panels[i]));
	cv->x_title_later = c->npanels > 0;

	svg_layout_y(cv, &cv->y, &c->y, false, false, 1.0);
	svg_layout_y(cv, &cv->y2, &c->y2, true, false, 1.0);
	if (!cv->y.used)
	{
		/* every series on the right: the left axis takes them */
		cv->y = cv->y2;
		cv->y2.used = false;
		cv->right = cv->width - 48.0;
		cv->x.p1 = cv->right;
	}
	svg_draw_line_chart(cv);
	if (c->npanels == 0)
		return cv->bottom + 44.0;
	last = cv->bottom + 20.0;
	for (i = 0; i < c->npanels; i++)
		last = svg_draw_panel(cv, &c->panels[i], last, i == c->npanels - 1);
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
		has_data = svg_heat_has_data(&c->heat);
	else if (c->kind == RANREAD_SVG_BAR)
		has_data = svg_bar_has_data(c);
	else
		has_data = svg_line_has_data(c);

	/* the canvas is as wide as a heat table or the table under it needs */
	if (c->kind == RANREAD_SVG_HEAT && has_data)
		cv.width = svg_heat_layout(c).width;
	cv.width = Max(cv.width, table_width(&c->table));
	/* and as the title lines need, up to SVG_MAX_WIDTH (then they are cut) */
	cv.width = Max(cv.width, Min(SVG_MAX_WIDTH,
								 80.0 + Max(TITLE_W(c->title ? c->title : "ranread chart"),
											c->subtitle ? SUBTITLE_W(c->subtitle) : 0.0)));

	if (!has_data)
		last = draw_empty(&cv, c->subtitle ? 76.0 : 60.0) + 16.0;
	else if (c->kind == RANREAD_SVG_HEAT)
		last = svg_draw_heat(&cv) + 12.0;
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
