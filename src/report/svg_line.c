/*
 * svg_line.c
 *		The renderer's line charts (svg.c): series as lines and markers, the
 *		values printed at chosen points, highlighted points.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg_internal.h"

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
	*px = svg_axis_px(&cv->x, s->x[j]);
	*py = svg_axis_px(a, s->y[j]);
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
	const char *color = svg_series_color(c, i);
	char		marker = svg_series_marker(c, i);
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
		appendStringInfo(out, "%s%.1f %.1f", pen_down ? "L" : "M", svg_fin(px), svg_fin(py));
		pen_down = true;
	}
	if (open)
	{
		appendStringInfoString(out, "\" fill=\"none\"");
		svg_attr(out, "stroke", color);
		appendStringInfo(out, " stroke-width=\"%.1f\" stroke-linejoin=\"round\" stroke-linecap=\"round\"",
						 svg_fin(svg_series_width(c, i)));
		if (svg_series_dash(c, i)[0])
			svg_attr(out, "stroke-dasharray", svg_series_dash(c, i));
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
							  : svg_series_color(c, i), SVG_HALO),
					 s->texts && s->texts[j] ? s->texts[j] : svg_fmt_value(s->y[j], s->format));
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
		appendStringInfo(cv->out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\"", svg_fin(px), svg_fin(py));
		svg_attr(cv->out, "stroke", color);
		appendStringInfoString(cv->out, " stroke-width=\"2\"/>\n");
		if (hl->label)
			svg_text(cv->out, px + 13.0, py + 4.0, NULL,
					 psprintf("font-size=\"11.5\" font-weight=\"bold\" fill=\"%s\" %s", color, SVG_HALO),
					 hl->label);
	}
}

/* Whether a line chart has any point to draw */
bool
svg_line_has_data(const RanreadSvgChart *c)
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
void
svg_draw_line_chart(SvgCanvas *cv)
{
	int			i;

	svg_layout_x(cv);
	svg_draw_y_axes(cv);
	svg_draw_x_axis(cv);
	for (i = 0; i < cv->c->nlines; i++)
		svg_draw_line(cv, &cv->c->lines[i], true, true);
	for (i = cv->c->nseries - 1; i >= 0; i--)
		draw_series(cv, i);
	draw_highlights(cv);
	draw_point_labels(cv);
}
