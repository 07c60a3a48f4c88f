/*
 * svg_bar.c
 *		The renderer's bar charts (svg.c): categories along x, one bar per
 *		series in each, with their values.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg_internal.h"

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
	return svg_fmt_value(s->y[j], s->format);
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
				w = svg_text_width(bar_text(&c->series[i], j), false);
				if (w * 0.92 > bw + 2.0)
					*widest = Max(*widest, w);
			}
		}
	return any;
}

/* Whether a bar chart has any value to draw */
bool
svg_bar_has_data(const RanreadSvgChart *c)
{
	return bar_values(c, 0.0, NULL);
}

/* How far below the plot the category labels reach */
double
svg_bar_category_drop(const SvgCanvas *cv)
{
	const RanreadSvgChart *c = cv->c;
	double		slot = (cv->right - cv->left) / Max(c->ncategories, 1);
	double		widest = 0.0;
	int			j;

	for (j = 0; j < c->ncategories; j++)
	{
		CHECK_FOR_INTERRUPTS();
		widest = Max(widest, svg_text_width(c->categories[j] ? c->categories[j] : "", false));
	}
	/* labels wider than their slot are slanted */
	return widest > slot - 6.0 ? Min(widest * 0.5, 140.0) + 14.0 : 0.0;
}

/*
 * Categories along x, one bar per series in each, grouped; each bar's value
 * printed on top of it (turned upright when wider than the bar).
 */
void
svg_draw_bar_chart(SvgCanvas *cv)
{
	StringInfo	out = cv->out;
	const RanreadSvgChart *c = cv->c;
	int			ncat = Max(c->ncategories, 1);
	double		slot = (cv->right - cv->left) / ncat;
	double		group = slot * 0.78;
	double		bw = group / Max(c->nseries, 1);
	double		base;
	double		drop = svg_bar_category_drop(cv);
	int			i;
	int			j;

	svg_draw_y_axes(cv);
	base = cv->y.log ? cv->bottom : svg_axis_pos(&cv->y, Max(cv->y.lo, Min(0.0, cv->y.hi)));
	for (i = 0; i < cv->c->nlines; i++)
		svg_draw_line(cv, &cv->c->lines[i], true, false);

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
							 svg_fin(cx + 4.0), svg_fin(cv->bottom + 16.0));
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
			top = svg_axis_px(&cv->y, s->y[j]);
			svg_bar(out, x + 1.0, Min(top, base), Max(bw - 2.0, 1.0), fabs(base - top),
					svg_series_color(c, i), i);
			text = bar_text(s, j);
			if (svg_text_width(text, false) * 0.92 <= bw + 2.0)
				svg_text(out, x + bw / 2.0, Min(top, base) - 5.0, "middle",
						 "font-size=\"11\" font-weight=\"bold\"", text);
			else
			{
				appendStringInfo(out,
								 "<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"11\" font-weight=\"bold\">",
								 svg_fin(x + bw / 2.0 + 4.0), svg_fin(Min(top, base) - 5.0));
				ranread_svg_escape(out, text);
				appendStringInfoString(out, "</text>\n");
			}
		}
	}
	/* the lines' labels over the bars, not behind them */
	for (i = 0; i < cv->c->nlines; i++)
		svg_draw_line(cv, &cv->c->lines[i], false, true);
	if (cv->x.spec->label)
		svg_text(out, (cv->left + cv->right) / 2.0, cv->bottom + 44.0 + drop, "middle",
				 "font-size=\"13\" font-weight=\"bold\"", cv->x.spec->label);
}

/* Room above the bars for their upright value labels, as a factor */
double
svg_bar_label_room(const RanreadSvgChart *c, double plot_width)
{
	double		bw = plot_width / Max(c->ncategories, 1) * 0.78 / Max(c->nseries, 1);
	double		widest;

	(void) bar_values(c, bw, &widest);
	/* a long text takes room up to the plot's height, not more */
	return widest > 0.0 ? 1.0 + Min(widest + 10.0, PLOT_HEIGHT) / PLOT_HEIGHT : 1.0;
}
