/*
 * svg_axis.c
 *		The renderer's axes (svg.c): scales, linear and logarithmic, time
 *		axes (a duration in its unit, clock times), ticks,
 *		the x and y axes laid out around the plot, and the plot's furniture
 *		(grid, axes, reference lines).
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/float.h"

#include "svg_internal.h"

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


/* Widen a range by one value; NaN, infinities and huge values are none */
void
svg_range_add(SvgRange *r, double v)
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
bool
svg_axis_wants_log(const RanreadSvgAxis *spec, const SvgRange *r)
{
	if (spec->scale == RANREAD_SVG_LINEAR || spec->time != RANREAD_SVG_TIME_NONE ||
		r->n == 0 || isnan(r->minpos))
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

	if (a->spec->time == RANREAD_SVG_TIME_DURATION && !a->log)
		return psprintf("%s%s(%s)", label, label[0] ? " " : "",
						a->unit == 1.0 ? "s" : a->unit == 60.0 ? "min" :
						a->unit == 3600.0 ? "h" : "days");
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
 * A duration axis: x in seconds, drawn in the unit its span reads best in
 * (up to 3 minutes in seconds, 3 hours in minutes, 3 days in hours, then
 * days), ticks at 1, 2 or 5 x 10^k of the unit, about ten of them; the
 * unit goes into the label.
 */
static void
axis_duration_x(SvgAxis *a, double lo, double hi)
{
	double		span;
	double		unit;
	double		step;
	int			n;
	int			i;

	lo = axis_clamp(lo);
	hi = axis_clamp(hi);
	if (!(hi > lo))
		hi = lo + 1.0;
	span = hi - lo;
	unit = span <= 180.0 ? 1.0 : span <= 3 * 3600.0 ? 60.0 :
		span <= 3 * 86400.0 ? 3600.0 : 86400.0;
	step = nice_ceil(span / unit / 10.0);
	if (fabs(step / pow(10.0, floor(log10(step))) - 2.5) < 1e-9)
		step *= 2.0;
	if (a->spec->integer && unit == 1.0)
		step = Max(step, 1.0);
	/* from a multiple of the step at or below lo */
	lo = floor(lo / unit / step + 1e-9) * step * unit;
	n = (int) Max(1.0, Min(ceil((hi - lo) / unit / step - 1e-9), (double) MAX_TICKS - 1));
	a->unit = unit;
	a->decimals = step_decimals(step);
	a->step = step * unit;
	a->lo = lo;
	a->hi = lo + a->step * n;
	a->nticks = n + 1;
	for (i = 0; i < a->nticks; i++)
		a->ticks[i] = lo + a->step * i;
	axis_settle(a);
}

/* The whole days since 1970-01-01 of a time, and the seconds into its day */
static void
clock_split(double t, double *days, double *secs)
{
	*days = floor(t / 86400.0);
	*secs = t - *days * 86400.0;
}

/*
 * A clock axis: x in Unix time, shown at utc_offset; the data's range with
 * a margin, ticks at the round clock times of the first step that leaves
 * at most 8 of them (seconds, minutes, hours, days, weeks).
 */
static void
axis_clock_x(SvgAxis *a, double lo, double hi)
{
	static const double steps[] = {
		1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
		21600, 43200, 86400, 172800, 604800, 1209600, 2419200, 4838400,
		9676800, 31449600
	};
	double		off = VALUE_OK(a->spec->utc_offset) ? a->spec->utc_offset : 0.0;
	double		step = steps[lengthof(steps) - 1];
	double		span;
	double		t;
	int			i;

	lo = Max(-1e13, Min(1e13, axis_clamp(lo)));
	hi = Max(-1e13, Min(1e13, axis_clamp(hi)));
	if (!(hi > lo))
	{
		lo -= 1800.0;
		hi += 1800.0;
	}
	span = hi - lo;
	/* a margin, unless the spec gave the bounds */
	if (isnan(spec_bound(a->spec->min)) && isnan(spec_bound(a->spec->max)))
	{
		lo -= 0.03 * span;
		hi += 0.03 * span;
		span = hi - lo;
	}
	for (i = 0; i < lengthof(steps); i++)
		if (span / steps[i] <= 8.0)
		{
			step = steps[i];
			break;
		}
	a->unit = step;
	a->step = step;
	a->decimals = 0;
	a->lo = lo;
	a->hi = hi;
	a->nticks = 0;
	/* the first round time at or after lo, on the clock of the labels */
	t = ceil((lo + off) / step - 1e-9) * step - off;
	for (; t <= hi + 1e-6 && a->nticks < MAX_TICKS; t += step)
		a->ticks[a->nticks++] = t;
	axis_settle(a);
}

/* A tick label of a clock axis: a date at midnight, else the time of day */
static char *
clock_text(const SvgAxis *a, double v)
{
	double		off = VALUE_OK(a->spec->utc_offset) ? a->spec->utc_offset : 0.0;
	double		days;
	double		secs;
	int64		s;
	int			year;
	int			month;
	int			day;
	int64		z;
	int64		era;
	int64		doe;
	int64		yoe;
	int64		doy;
	int64		mp;

	clock_split(rint(v + off), &days, &secs);
	s = (int64) secs;
	if (a->unit < 60.0)
		return psprintf("%02d:%02d:%02d", (int) (s / 3600), (int) (s / 60 % 60), (int) (s % 60));
	if (s != 0)
		return psprintf("%02d:%02d", (int) (s / 3600), (int) (s / 60 % 60));
	/* the civil date of a day number (the proleptic Gregorian calendar) */
	z = (int64) days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	day = (int) (doy - (153 * mp + 2) / 5 + 1);
	month = (int) (mp < 10 ? mp + 3 : mp - 9);
	year = (int) (yoe + era * 400 + (month <= 2 ? 1 : 0));
	if (a->unit >= 31449600.0)
		return psprintf("%d", year);
	if (a->unit >= 2419200.0)
		return psprintf("%d-%02d-%02d", year, month, day);
	return psprintf("%02d-%02d", month, day);
}

/*
 * Pixel of a position on an axis (a tick, the base of the bars); NaN where
 * the axis cannot show it
 */
double
svg_axis_pos(const SvgAxis *a, double v)
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
double
svg_axis_px(const SvgAxis *a, double v)
{
	if (!VALUE_OK(v))
		return get_float8_nan();
	return svg_axis_pos(a, v);
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
	if (a->spec->time == RANREAD_SVG_TIME_CLOCK)
		return clock_text(a, v);
	if (a->spec->time == RANREAD_SVG_TIME_DURATION)
	{
		double		step = a->step / a->unit;

		v /= a->unit;
		if (fabs(v) < step * 1e-6)
			v = 0.0;
		/* as a linear axis's: huge or tiny in exponent form, never long */
		if (fabs(v) >= FMT_SCI_FROM || (step > 0.0 && step < 1e-6))
			return ranread_fmt_sci(v);
		return psprintf("%.*f", a->decimals, v);
	}
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
void
svg_layout_y(SvgCanvas *cv, SvgAxis *a, const RanreadSvgAxis *spec, bool right,
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
				svg_range_add(&r, c->series[i].y[j]);
		}
	}
	if (!a->used)
		return;

	a->log = svg_axis_wants_log(spec, &r);
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
void
svg_layout_x(SvgCanvas *cv)
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
				svg_range_add(&r, c->series[i].x[j]);
		}

	a->log = svg_axis_wants_log(&c->x, &r);
	if (a->log)
		axis_log(a, &r, c->x.data_ticks);
	else if (c->x.time != RANREAD_SVG_TIME_NONE)
	{
		double		smin = spec_bound(c->x.min);
		double		smax = spec_bound(c->x.max);
		double		lo = isnan(smin) ? (r.n > 0 ? r.min : 0.0) : smin;
		double		hi = isnan(smax) ? (r.n > 0 ? r.max : lo + 1.0) : smax;

		if (c->x.time == RANREAD_SVG_TIME_DURATION)
			axis_duration_x(a, isnan(smin) ? Min(lo, 0.0) : lo, hi);
		else
			axis_clock_x(a, lo, hi);
	}
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
 * Plot furniture: grid, axes, reference lines
 * ---------------------------------------------------------------------
 */

/* The left axis (which owns the gridlines), the right one, their titles */
void
svg_draw_y_axes(SvgCanvas *cv)
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
		double		y = svg_axis_pos(l, l->ticks[i]);

		svg_line(out, cv->left, y, cv->right, y, i == 0 ? COLOR_AXIS : COLOR_GRID, 1.0, NULL);
		svg_text(out, cv->left - 8.0, y + 4.0, "end",
				 psprintf("fill=\"%s\"", lcolor), tick_text(l, l->ticks[i]));
	}
	for (i = 0; r->used && i < r->nticks; i++)
	{
		double		y = svg_axis_pos(r, r->ticks[i]);

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
						 svg_fin(cv->left - 72.0), svg_fin(mid), lcolor);
		ranread_svg_escape(out, l->label);
		appendStringInfoString(out, "</text>\n");
	}
	if (r->used)
	{
		appendStringInfo(out,
						 "<text transform=\"translate(%.1f %.1f) rotate(90)\" text-anchor=\"middle\" font-size=\"13\" font-weight=\"bold\" fill=\"%s\">",
						 svg_fin(cv->right + 62.0), svg_fin(mid), rcolor);
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
void
svg_draw_x_axis(SvgCanvas *cv)
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
				if (c->series[i].x && !isnan(svg_axis_px(a, c->series[i].x[j])) &&
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
		double		px = svg_axis_pos(a, xs[i]);

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
					 c->x.data_ticks ? svg_fmt_value(xs[i], c->x.format) : tick_text(a, xs[i]));
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
void
svg_draw_line(SvgCanvas *cv, const RanreadSvgLine *l, bool stroke, bool labels)
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
	y = svg_axis_px(a, l->value);
	if (stroke)
		svg_line(out, cv->left, y, cv->right, y, color,
				 l->width > 0.0 ? l->width : 1.5, l->dash ? l->dash : "8 5");
	if (labels && label[0])
		svg_text(out, cv->right - 6.0, y - 6.0, "end", attrs, label);
}
