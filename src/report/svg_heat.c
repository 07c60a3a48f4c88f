/*
 * svg_heat.c
 *		The renderer's heat tables (svg.c), and the heat panels a line chart
 *		stacks under its plot on the same x axis.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg_internal.h"

/* The default heat scale, low -> high: viridis, which greys monotonically */
static const char *const svg_heat_default[] = {
	"#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"
};

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


/* Size the cells and the canvas of a heat table */
SvgHeatLayout
svg_heat_layout(const RanreadSvgChart *c)
{
	const RanreadSvgHeat *h = &c->heat;
	SvgHeatLayout l;
	double		rowlab = 40.0;
	double		collab = 0.0;
	int			i;

	for (i = 0; i < h->nrows; i++)
		rowlab = Max(rowlab, svg_text_width(h->rows[i] ? h->rows[i] : "", true));
	for (i = 0; i < h->ncols; i++)
		collab = Max(collab, svg_text_width(h->cols[i] ? h->cols[i] : "", true));
	l.gx = 40.0 + (c->y.label ? 26.0 : 0.0) + rowlab + 14.0;
	l.gy = PLOT_TOP + 30.0 + (c->x.label ? 22.0 : 0.0);
	l.ch = 32.0;
	l.cw = Max(64.0, Min(140.0, collab + 16.0));
	l.width = Max((double) SVG_WIDTH, l.gx + l.cw * h->ncols + 40.0);
	l.compact = false;
	if (l.width > SVG_MAX_WIDTH && h->ncols > 0)
	{
		/*
		 * columns whose printed values would make the picture wider than
		 * a window (a long batch's seconds): as wide as the usual canvas,
		 * at least 6 px a column, the values in tooltips
		 */
		l.compact = true;
		l.cw = Max(6.0, ((double) SVG_WIDTH - 40.0 - l.gx) / h->ncols);
		l.width = Max((double) SVG_WIDTH, l.gx + l.cw * h->ncols + 40.0);
		return l;
	}
	/* spread the columns over a wide canvas, up to 140 px each */
	if (h->ncols > 0)
		l.cw = Max(l.cw, Min(140.0, (l.width - 40.0 - l.gx) / h->ncols));
	return l;
}

/* Whether a heat table has any value */
bool
svg_heat_has_data(const RanreadSvgHeat *h)
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
	return svg_axis_wants_log(&scale_spec, r) && r->min > 0.0;
}

/* The width of a heat scale's legend */
static double
heat_legend_width(const RanreadSvgHeat *h, const SvgRange *r, bool log_scale)
{
	const char *title = psprintf("%s%s:", h->metric ? h->metric : "Value",
								 log_scale ? " (log colour scale)" : "");

	return svg_text_width(title, true) + 10.0 + svg_text_width(svg_fmt_value(r->min, h->format), false) +
		6.0 + 22.0 * 8 + 6.0 + svg_text_width(svg_fmt_value(r->max, h->format), false);
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
	x += svg_text_width(title, true) + 10.0;
	svg_text(out, x, y + 4.0, NULL, NULL, svg_fmt_value(r->min, h->format));
	x += svg_text_width(svg_fmt_value(r->min, h->format), false) + 6.0;
	for (i = 0; i < 8; i++)
		svg_rect(out, x + 22.0 * i, y - 7.0, 22.0, 14.0, heat_color(h, i / 7.0, &light));
	svg_text(out, x + 22.0 * 8 + 6.0, y + 4.0, NULL, NULL, svg_fmt_value(r->max, h->format));
}

/*
 * A heat table: column labels on top (the x axis's label above them), row
 * labels on the left, one cell per value in the colour of its place on the
 * scale with the value printed in it, and the scale as a legend of swatches
 * from the lowest value to the highest.  A table too wide for its values
 * (svg_heat_layout's compact) has narrow cells with the value in a tooltip
 * and the column labels that have room.
 */
double
svg_draw_heat(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	const RanreadSvgHeat *h = &c->heat;
	SvgHeatLayout l = svg_heat_layout(c);
	SvgRange	r = {0, 0, get_float8_nan(), 0};
	bool		log_scale;
	bool		light;
	double		last_label = -1e9;
	int			i;
	int			j;

	for (i = 0; i < h->nrows * h->ncols; i++)
	{
		svg_room(cv);
		svg_range_add(&r, h->values[i]);
	}
	log_scale = heat_log(h, &r);
	heat_legend(cv, h, &r, log_scale, 40.0, LEGEND_Y);

	if (c->x.label)
		svg_text(out, l.gx + l.cw * h->ncols / 2.0, l.gy - 30.0, "middle",
				 "font-size=\"13\" font-weight=\"bold\"", c->x.label);
	for (j = 0; j < h->ncols; j++)
	{
		const char *label = h->cols[j] ? h->cols[j] : "";
		double		half = svg_text_width(label, true) / 2.0;
		double		mid = l.gx + l.cw * (j + 0.5);

		/* compact: a label where it has room beside the last one */
		if (l.compact && mid - half < last_label + 10.0)
			continue;
		svg_text(out, mid, l.gy - 9.0, "middle", "font-weight=\"bold\"", label);
		last_label = mid + half;
	}
	if (c->y.label)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\">",
						 48.0, svg_fin(l.gy + l.ch * h->nrows / 2.0));
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
			if (l.compact)
			{
				/* no room for a value: the cell, its value in a tooltip */
				appendStringInfo(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"",
								 svg_fin(cx), svg_fin(cy + 1.0), svg_fin(l.cw), svg_fin(l.ch - 2.0));
				svg_attr(out, "fill", VALUE_OK(v) ?
						 heat_color(h, heat_t(v, r.min, r.max, log_scale), &light) : COLOR_HEADER);
				appendStringInfoString(out, "><title>");
				ranread_svg_escape(out, h->cols[j] ? h->cols[j] : "");
				appendStringInfoString(out, ", ");
				ranread_svg_escape(out, h->rows[i] ? h->rows[i] : "");
				appendStringInfoString(out, ": ");
				ranread_svg_escape(out, VALUE_OK(v) ? svg_fmt_value(v, h->format) : "n/a");
				appendStringInfoString(out, "</title></rect>\n");
				continue;
			}
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
					 svg_fmt_value(v, h->format));
		}
	}
	return l.gy + l.ch * h->nrows;
}


/*
 * The left edge of a plot that a panel's row labels and y axis title fit
 * beside, at least PLOT_LEFT
 */
double
svg_panel_left(const RanreadSvgChart *p)
{
	double		rowlab = 0.0;
	int			i;

	for (i = 0; i < p->heat.nrows; i++)
		rowlab = Max(rowlab, svg_text_width(p->heat.rows[i] ? p->heat.rows[i] : "", false));
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
				x0 = svg_axis_px(&cv->x, h->edges[j]);
				x1 = svg_axis_px(&cv->x, h->edges[j + 1]);
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
							 svg_fin(x0), svg_fin(cy), svg_fin(x1 - x0), svg_fin(rh));
			svg_attr(out, "fill", heat_color(h, heat_t(v, r->min, r->max, log_scale), &light));
			appendStringInfoString(out, "><title>");
			ranread_svg_escape(out, h->cols[j] ? h->cols[j] : "");
			appendStringInfoString(out, ", ");
			ranread_svg_escape(out, h->rows[i] ? h->rows[i] : "");
			appendStringInfoString(out, ": ");
			ranread_svg_escape(out, svg_fmt_value(v, h->format));
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
double
svg_draw_panel(SvgCanvas *cv, const RanreadSvgChart *p, double y, bool last)
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
		svg_range_add(&r, h->values[i]);
	}
	log_scale = heat_log(h, &r);

	/* the title, and the colour scale beside it (under it when too wide) */
	if (p->title)
	{
		svg_text(out, 40.0, head, NULL, "font-size=\"14\" font-weight=\"bold\"", p->title);
		tx += svg_text_width(p->title, true) * 14.0 / 12.0 + 24.0;
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
		rh = Max(rh, Min(40.0, (svg_text_width(p->y.label, true) * 13.0 / 12.0 + 16.0) / h->nrows));
	top = head + 16.0;
	bottom = top + rh * Max(h->nrows, 1);
	cv->top = top;
	cv->bottom = bottom;
	svg_rect(out, cv->left, top, cv->right - cv->left, bottom - top, COLOR_BAND);
	cv->x_title_later = !last;
	svg_draw_x_axis(cv);

	draw_panel_cells(cv, h, &r, log_scale, top, rh);
	if (r.n == 0)
		svg_text(out, (cv->left + cv->right) / 2.0, (top + bottom) / 2.0 + 4.0, "middle",
				 "fill=\"" RANREAD_SVG_COLOR_MUTED "\"", "No values in this panel.");
	appendStringInfo(out,
					 "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"%s\"/>\n",
					 svg_fin(cv->left), svg_fin(top), svg_fin(cv->right - cv->left), svg_fin(bottom - top), COLOR_AXIS);

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
						 48.0, svg_fin((top + bottom) / 2.0));
		ranread_svg_escape(out, p->y.label);
		appendStringInfoString(out, "</text>\n");
	}
	cv->top = saved_top;
	cv->bottom = saved_bottom;
	return last ? bottom + 44.0 : bottom + 20.0;
}
