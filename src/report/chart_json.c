/*
 * chart_json.c
 *		ranread_svg(spec jsonb): a chart spec read from jsonb into a
 *		RanreadSvgChart and drawn by the renderer (svg.c), so that plpgsql
 *		functions draw charts the way ranread_chart does.
 *
 * The keys are documented atop svg.c and in the README.  Reading is strict:
 * an unknown key, a value of the wrong type, arrays of unequal length or a
 * highlight of a point that does not exist is an error that names the key
 * by its path ("series[2].marker"), because a typo that silently drew a
 * different chart would be worse.  Colours and dashes go into attributes,
 * so they are checked against what SVG accepts (#rgb, #rrggbb, a colour
 * name; numbers, spaces and commas) as well as escaped.  Text is converted
 * from the server encoding to UTF-8, as the renderer expects.
 *
 * pg_monitor may call ranread_svg, so a spec is untrusted input: the work
 * must stay about linear in it and bounded.  Every array has a limit (the
 * SPEC_MAX_* below and the renderer's 12 series and 16 columns), every text
 * one of SPEC_MAX_TEXT characters, and a number must lie within
 * +-RANREAD_SVG_MAX_VALUE (JSON has no NaN or Infinity; a string is not a
 * number).  Past a limit, the error names the key, the value and the
 * limit.  A jsonb number is never printed in full to read it: 1e-16000 is
 * a few bytes of jsonb but 16,000 digits of numeric_out, so numbers are
 * read through their exponent form, and printed (as the text of a cell, or
 * in an error) in at most a few dozen characters.  Loops over arrays check
 * for interrupts, and element paths ("series[0].y[7]") are built only for
 * an error.
 *
 * The function is IMMUTABLE: the SVG depends on the spec alone.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <math.h>

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "sqlfunc.h"
#include "svg.h"

PG_FUNCTION_INFO_V1(ranread_svg);

/*
 * The limits of a spec (README, "Charts from SQL"): rows and columns of a
 * heat table, rows of a table, points of a series, categories, reference
 * lines, highlights, notes, colours of a heat scale, characters of a text
 */
#define SPEC_MAX_HEAT_ROWS 200
#define SPEC_MAX_HEAT_COLS 40
#define SPEC_MAX_TABLE_ROWS 500
#define SPEC_MAX_POINTS 100000
#define SPEC_MAX_CATEGORIES 200
#define SPEC_MAX_LINES 32
#define SPEC_MAX_HIGHLIGHTS 64
#define SPEC_MAX_NOTES 32
#define SPEC_MAX_COLORS 16
#define SPEC_MAX_TEXT 10000

#define SPEC_HINT "The keys of a ranread_svg spec are listed in the README, section \"Charts from SQL\"."

static const char *const spec_top_keys[] = {
	"kind", "title", "subtitle", "empty", "x", "y", "y2", "series", "categories",
	"lines", "highlights", "notes", "table", "heat", NULL
};
static const char *const spec_axis_keys[] = {
	"label", "log", "base", "min", "max", "integer", "ticks", "format", "color", NULL
};
static const char *const spec_series_keys[] = {
	"label", "x", "y", "axis", "color", "dash", "marker", "width", "line", "labels",
	"texts", "format", NULL
};
static const char *const spec_line_keys[] = {
	"value", "axis", "label", "legend", "color", "dash", "width", NULL
};
static const char *const spec_highlight_keys[] = {"series", "point", "label", "color", NULL};
static const char *const spec_note_keys[] = {"text", "style", NULL};
static const char *const spec_table_keys[] = {"header", "rows", "align", "highlight", "more", NULL};
static const char *const spec_cell_keys[] = {"text", "tone", NULL};
static const char *const spec_heat_keys[] = {
	"rows", "columns", "values", "metric", "log", "colors", "format", NULL
};


/* ---------------------------------------------------------------------
 * Reading jsonb values
 * ---------------------------------------------------------------------
 */

/* Fail on a bad value at path */
static void
spec_error(const char *path, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s in the spec for ranread_svg: %s", path, what),
			 errhint(SPEC_HINT)));
}

/* Path of a key below path */
static char *
spec_path(const char *path, const char *key)
{
	return path[0] ? psprintf("%s.%s", path, key) : pstrdup(key);
}

/* Path of an element below path */
static char *
spec_index(const char *path, int i)
{
	return psprintf("%s[%d]", path, i);
}

/* The path of element i of path, or path itself when i < 0 (for errors) */
static char *
spec_where(const char *path, int i)
{
	return i < 0 ? (char *) path : spec_index(path, i);
}

/* Whether a number is short in decimal: below 10^15, at most 30 decimals */
static bool
spec_numeric_short(Numeric num)
{
	static Numeric big = NULL;
	static Numeric minus_big = NULL;

	if (big == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		big = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum("1e15"),
												  ObjectIdGetDatum(InvalidOid),
												  Int32GetDatum(-1)));
		minus_big = DatumGetNumeric(DirectFunctionCall1(numeric_uminus, NumericGetDatum(big)));
		MemoryContextSwitchTo(old);
	}
	return DatumGetInt32(DirectFunctionCall1(numeric_scale, NumericGetDatum(num))) <= 30 &&
		DatumGetBool(DirectFunctionCall2(numeric_lt, NumericGetDatum(num), NumericGetDatum(big))) &&
		DatumGetBool(DirectFunctionCall2(numeric_gt, NumericGetDatum(num), NumericGetDatum(minus_big)));
}

/*
 * A jsonb number as a double.  A short one (spec_numeric_short) is read
 * from its decimal text; any other through its exponent form with 17
 * significant digits, whose cost is that of its stored digits, not of its
 * decimal expansion.  *huge is set when it is beyond a double (or infinite).
 */
static double
spec_numeric_double(Numeric num, bool *huge)
{
	double		d;

	*huge = false;
	if (numeric_is_nan(num))
		return get_float8_nan();
	if (numeric_is_inf(num))
	{
		*huge = true;
		return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(num)));
	}
	if (spec_numeric_short(num))
		return strtod(DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num))), NULL);
	d = strtod(numeric_out_sci(num, 17), NULL);
	/* strtod gives HUGE_VAL past a double, and 0 or a denormal below one */
	*huge = isinf(d);
	return d;
}

/*
 * A jsonb number as text, in at most a few dozen characters: as the spec
 * wrote it when that is short, else with 15 significant digits, or in
 * exponent form beyond a double
 */
static char *
spec_numeric_text(Numeric num)
{
	bool		huge;
	double		d;

	if (numeric_is_nan(num) || numeric_is_inf(num))
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	if (spec_numeric_short(num))
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(num)));
	d = spec_numeric_double(num, &huge);
	if (huge)
		return numeric_out_sci(num, 3);
	return psprintf("%.15g", d);
}

/* A jsonb value as an error shows it: "NaN", 1e+300, true, an array */
static char *
spec_show(JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvBool:
			return v->val.boolean ? "true" : "false";
		case jbvNumeric:
			return spec_numeric_text(v->val.numeric);
		case jbvString:
			{
				int			len = pg_mbcliplen(v->val.string.val, v->val.string.len, 40);

				return psprintf("\"%.*s%s\"", len, v->val.string.val,
								len < v->val.string.len ? "..." : "");
			}
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "an array" : "an object";
		default:
			return "a value";
	}
}

/* The container of an object value, checking that it has only known keys */
static JsonbContainer *
spec_object(JsonbValue *v, const char *path, const char *const *keys)
{
	JsonbIterator *it;
	JsonbValue	k;
	JsonbIteratorToken tok;

	if (v->type != jbvBinary || !JsonContainerIsObject(v->val.binary.data))
		spec_error(path, psprintf("%s is not an object", spec_show(v)));
	it = JsonbIteratorInit(v->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		int			i;

		if (tok != WJB_KEY)
			continue;
		for (i = 0; keys[i]; i++)
			if (strlen(keys[i]) == k.val.string.len &&
				strncmp(keys[i], k.val.string.val, k.val.string.len) == 0)
				break;
		if (keys[i] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%.*s\" in %s of the spec for ranread_svg",
							pg_mbcliplen(k.val.string.val, k.val.string.len, 64),
							k.val.string.val, path[0] ? path : "the top level"),
					 errhint(SPEC_HINT)));
	}
	return v->val.binary.data;
}

/* The value of key in an object, or NULL when absent or null */
static JsonbValue *
spec_get(JsonbContainer *obj, const char *key)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, key, strlen(key), NULL);

	return (v && v->type != jbvNull) ? v : NULL;
}

/* The container of an array value and its length */
static JsonbContainer *
spec_array(JsonbValue *v, const char *path, int *n, int max)
{
	if (v->type != jbvBinary || !JsonContainerIsArray(v->val.binary.data))
		spec_error(path, psprintf("%s is not an array", spec_show(v)));
	*n = JsonContainerSize(v->val.binary.data);
	if (*n > max)
		spec_error(path, psprintf("%d elements, at most %d", *n, max));
	return v->val.binary.data;
}

/* Element i of an array (a jbvNull value for null) */
static JsonbValue *
spec_elem(JsonbContainer *arr, int i)
{
	return getIthJsonbValueFromContainer(arr, i);
}

/*
 * A string value (element i of path, or path itself for i < 0), as UTF-8;
 * numbers are accepted as their text.  At most SPEC_MAX_TEXT characters.
 */
static char *
spec_string_at(JsonbValue *v, const char *path, int i)
{
	if (v->type == jbvString)
	{
		int			chars = pg_mbstrlen_with_len(v->val.string.val, v->val.string.len);

		if (chars > SPEC_MAX_TEXT)
			spec_error(spec_where(path, i),
					   psprintf("a text of %d characters, at most %d", chars, SPEC_MAX_TEXT));
		return pg_server_to_any(pnstrdup(v->val.string.val, v->val.string.len),
								v->val.string.len, PG_UTF8);
	}
	if (v->type == jbvNumeric)
		return spec_numeric_text(v->val.numeric);
	spec_error(spec_where(path, i), psprintf("%s is not a string", spec_show(v)));
	return NULL;
}

/* A string value */
static char *
spec_string(JsonbValue *v, const char *path)
{
	return spec_string_at(v, path, -1);
}

/*
 * A number value (element i of path, or path itself for i < 0); null is
 * NaN (no value).  Within +-RANREAD_SVG_MAX_VALUE.
 */
static double
spec_number_at(JsonbValue *v, const char *path, int i)
{
	bool		huge;
	double		d;

	static const char *const not_json[] = {
		"nan", "infinity", "-infinity", "+infinity", "inf", "-inf", "+inf"
	};
	int			k;

	if (v->type == jbvNull)
		return get_float8_nan();
	for (k = 0; v->type == jbvString && k < lengthof(not_json); k++)
		if (v->val.string.len == strlen(not_json[k]) &&
			pg_strncasecmp(v->val.string.val, not_json[k], v->val.string.len) == 0)
			spec_error(spec_where(path, i),
					   psprintf("%s is not a number (JSON has no NaN or infinity; null is no value)",
								spec_show(v)));
	if (v->type != jbvNumeric)
		spec_error(spec_where(path, i), psprintf("%s is not a number", spec_show(v)));
	d = spec_numeric_double(v->val.numeric, &huge);
	if (huge || !(fabs(d) <= RANREAD_SVG_MAX_VALUE))
		spec_error(spec_where(path, i),
				   psprintf("%s is beyond the largest magnitude a chart places, 1e300",
							spec_show(v)));
	return d;
}

/* A number value; null is NaN (no value) */
static double
spec_number(JsonbValue *v, const char *path)
{
	return spec_number_at(v, path, -1);
}

/* A boolean value */
static bool
spec_bool(JsonbValue *v, const char *path)
{
	if (v->type != jbvBool)
		spec_error(path, psprintf("%s is not true or false", spec_show(v)));
	return v->val.boolean;
}

/* Whether a string value equals s */
static bool
spec_is(JsonbValue *v, const char *s)
{
	return v->type == jbvString && strlen(s) == v->val.string.len &&
		strncmp(s, v->val.string.val, v->val.string.len) == 0;
}

/* An array of numbers (or nulls), and its length */
static double *
spec_numbers(JsonbValue *v, const char *path, int *n)
{
	JsonbContainer *arr = spec_array(v, path, n, SPEC_MAX_POINTS);
	double	   *out = palloc(sizeof(double) * Max(*n, 1));
	JsonbIterator *it = JsonbIteratorInit(arr);
	JsonbIteratorToken tok;
	JsonbValue	e;
	int			i = 0;

	/* one pass of an iterator: no lookup nor allocation per element */
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM || i >= *n)
			continue;
		CHECK_FOR_INTERRUPTS();
		out[i] = spec_number_at(&e, path, i);
		i++;
	}
	return out;
}

/* An array of strings (null elements stay NULL), and its length */
static const char **
spec_strings(JsonbValue *v, const char *path, int *n, int max)
{
	JsonbContainer *arr = spec_array(v, path, n, max);
	const char **out = palloc0(sizeof(char *) * Max(*n, 1));
	JsonbIterator *it = JsonbIteratorInit(arr);
	JsonbIteratorToken tok;
	JsonbValue	e;
	int			i = 0;

	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM || i >= *n)
			continue;
		CHECK_FOR_INTERRUPTS();
		out[i] = e.type == jbvNull ? NULL : spec_string_at(&e, path, i);
		i++;
	}
	return out;
}

/* A colour for an attribute: #rgb, #rrggbb or a colour name */
static const char *
spec_color(JsonbValue *v, const char *path)
{
	char	   *s = spec_string(v, path);
	size_t		len = strlen(s);
	size_t		i;
	bool		ok;

	if (s[0] == '#')
	{
		ok = (len == 4 || len == 7);
		for (i = 1; ok && i < len; i++)
			ok = isxdigit((unsigned char) s[i]);
	}
	else
	{
		ok = (len > 0 && len <= 30);
		for (i = 0; ok && i < len; i++)
			ok = (s[i] >= 'a' && s[i] <= 'z');
	}
	if (!ok)
		spec_error(path, psprintf("%s is not a colour (#rgb, #rrggbb or a name such as \"teal\")",
								  spec_show(v)));
	return s;
}

/* A dash pattern: "solid", or numbers separated by spaces or commas */
static const char *
spec_dash(JsonbValue *v, const char *path)
{
	char	   *s = spec_string(v, path);

	if (strcmp(s, "solid") == 0 || s[0] == '\0')
		return "";
	if (strlen(s) > 40 || strspn(s, "0123456789., ") != strlen(s))
		spec_error(path, psprintf("%s is not a dash pattern (\"solid\", or lengths such as \"6 3\", at most 40 characters)",
								  spec_show(v)));
	return s;
}

/* A scale: false or "linear", true or "log", "auto" */
static RanreadSvgScale
spec_scale(JsonbValue *v, const char *path)
{
	if (v->type == jbvBool)
		return v->val.boolean ? RANREAD_SVG_LOG : RANREAD_SVG_LINEAR;
	if (spec_is(v, "auto"))
		return RANREAD_SVG_AUTO;
	if (spec_is(v, "log"))
		return RANREAD_SVG_LOG;
	if (spec_is(v, "linear"))
		return RANREAD_SVG_LINEAR;
	spec_error(path, psprintf("%s is not true, false or \"auto\"", spec_show(v)));
	return RANREAD_SVG_LINEAR;
}

/* A number format: "number" or "count" */
static RanreadSvgFormat
spec_format(JsonbValue *v, const char *path)
{
	if (spec_is(v, "count"))
		return RANREAD_SVG_COUNT;
	if (spec_is(v, "number"))
		return RANREAD_SVG_NUMBER;
	spec_error(path, psprintf("%s is not \"number\" or \"count\"", spec_show(v)));
	return RANREAD_SVG_NUMBER;
}

/* "left" or "right": whether it is "right" */
static bool
spec_right(JsonbValue *v, const char *path)
{
	if (spec_is(v, "right"))
		return true;
	if (!spec_is(v, "left"))
		spec_error(path, psprintf("%s is not \"left\" or \"right\"", spec_show(v)));
	return false;
}

/* A tone: plain, good, bad, muted */
static RanreadSvgTone
spec_tone(JsonbValue *v, const char *path)
{
	if (spec_is(v, "good"))
		return RANREAD_SVG_GOOD;
	if (spec_is(v, "bad"))
		return RANREAD_SVG_BAD;
	if (spec_is(v, "muted"))
		return RANREAD_SVG_MUTED;
	if (!spec_is(v, "plain"))
		spec_error(path, psprintf("%s is not \"plain\", \"good\", \"bad\" or \"muted\"", spec_show(v)));
	return RANREAD_SVG_PLAIN;
}

/* A non-negative whole number below limit */
static int
spec_int(JsonbValue *v, const char *path, int limit)
{
	double		d = v->type == jbvNumeric ? spec_number(v, path) : get_float8_nan();

	if (!(d >= 0.0 && d < limit && d == floor(d)))
		spec_error(path, psprintf("%s is not a whole number from 0 to %d",
								  spec_show(v), limit - 1));
	return (int) d;
}


/* ---------------------------------------------------------------------
 * Reading the parts of a spec
 * ---------------------------------------------------------------------
 */

/* An axis object */
static void
spec_axis(JsonbValue *v, const char *path, RanreadSvgAxis *a)
{
	JsonbContainer *o = spec_object(v, path, spec_axis_keys);
	JsonbValue *f;

	if ((f = spec_get(o, "label")))
		a->label = spec_string(f, spec_path(path, "label"));
	if ((f = spec_get(o, "log")))
		a->scale = spec_scale(f, spec_path(path, "log"));
	if ((f = spec_get(o, "base")))
	{
		a->base = spec_number(f, spec_path(path, "base"));
		if (a->base != 2.0 && a->base != 10.0)
			spec_error(spec_path(path, "base"), "not 2 or 10");
	}
	if ((f = spec_get(o, "min")))
		a->min = spec_number(f, spec_path(path, "min"));
	if ((f = spec_get(o, "max")))
		a->max = spec_number(f, spec_path(path, "max"));
	if (!isnan(a->min) && !isnan(a->max) && !(a->max > a->min))
		spec_error(spec_path(path, "max"), "not above min");
	if ((f = spec_get(o, "integer")))
		a->integer = spec_bool(f, spec_path(path, "integer"));
	if ((f = spec_get(o, "ticks")))
	{
		if (!spec_is(f, "data") && !spec_is(f, "auto"))
			spec_error(spec_path(path, "ticks"), "not \"data\" or \"auto\"");
		a->data_ticks = spec_is(f, "data");
	}
	if ((f = spec_get(o, "format")))
		a->format = spec_format(f, spec_path(path, "format"));
	if ((f = spec_get(o, "color")))
		a->color = spec_color(f, spec_path(path, "color"));
}

/* A marker name */
static char
spec_marker(JsonbValue *v, const char *path)
{
	static const struct
	{
		const char *name;
		char		marker;
	}			names[] = {
		{"circle", 'o'}, {"square", 's'}, {"triangle", '^'}, {"down", 'v'},
		{"diamond", 'd'}, {"cross", 'x'}, {"none", '-'}
	};
	int			i;

	for (i = 0; i < lengthof(names); i++)
		if (spec_is(v, names[i].name))
			return names[i].marker;
	spec_error(path, "not \"circle\", \"square\", \"triangle\", \"down\", \"diamond\", \"cross\" or \"none\"");
	return 0;
}

/* One series */
static void
spec_series(JsonbValue *v, const char *path, RanreadSvgSeries *s, bool bars)
{
	JsonbContainer *o = spec_object(v, path, spec_series_keys);
	JsonbValue *f;
	int			nx = 0;

	if ((f = spec_get(o, "label")))
		s->label = spec_string(f, spec_path(path, "label"));
	if (!(f = spec_get(o, "y")))
		spec_error(spec_path(path, "y"), "missing");
	s->y = spec_numbers(f, spec_path(path, "y"), &s->n);
	if ((f = spec_get(o, "x")))
	{
		if (bars)
			spec_error(spec_path(path, "x"), "given for a bar chart, whose x are the categories");
		s->x = spec_numbers(f, spec_path(path, "x"), &nx);
		if (nx != s->n)
			spec_error(spec_path(path, "x"),
					   psprintf("%d values for %d values of y", nx, s->n));
	}
	else if (!bars)
		spec_error(spec_path(path, "x"), "missing");
	if ((f = spec_get(o, "texts")))
	{
		int			nt;

		s->texts = spec_strings(f, spec_path(path, "texts"), &nt, SPEC_MAX_POINTS);
		if (nt != s->n)
			spec_error(spec_path(path, "texts"),
					   psprintf("%d texts for %d values of y", nt, s->n));
	}
	if ((f = spec_get(o, "axis")))
		s->right = spec_right(f, spec_path(path, "axis"));
	if ((f = spec_get(o, "color")))
		s->color = spec_color(f, spec_path(path, "color"));
	if ((f = spec_get(o, "dash")))
		s->dash = spec_dash(f, spec_path(path, "dash"));
	if ((f = spec_get(o, "marker")))
		s->marker = spec_marker(f, spec_path(path, "marker"));
	if ((f = spec_get(o, "width")))
	{
		s->width = spec_number(f, spec_path(path, "width"));
		if (!(s->width > 0.0 && s->width <= 20.0))
			spec_error(spec_path(path, "width"), "not above 0 and at most 20");
	}
	if ((f = spec_get(o, "line")))
		s->no_line = !spec_bool(f, spec_path(path, "line"));
	if ((f = spec_get(o, "labels")))
		s->labels = spec_bool(f, spec_path(path, "labels"));
	if ((f = spec_get(o, "format")))
		s->format = spec_format(f, spec_path(path, "format"));
}

/* One reference line */
static void
spec_line(JsonbValue *v, const char *path, RanreadSvgLine *l)
{
	JsonbContainer *o = spec_object(v, path, spec_line_keys);
	JsonbValue *f;

	if (!(f = spec_get(o, "value")))
		spec_error(spec_path(path, "value"), "missing");
	l->value = spec_number(f, spec_path(path, "value"));
	if ((f = spec_get(o, "axis")))
		l->right = spec_right(f, spec_path(path, "axis"));
	if ((f = spec_get(o, "label")))
		l->label = spec_string(f, spec_path(path, "label"));
	if ((f = spec_get(o, "legend")))
		l->legend = spec_string(f, spec_path(path, "legend"));
	if ((f = spec_get(o, "color")))
		l->color = spec_color(f, spec_path(path, "color"));
	if ((f = spec_get(o, "dash")))
		l->dash = spec_dash(f, spec_path(path, "dash"));
	if ((f = spec_get(o, "width")))
	{
		l->width = spec_number(f, spec_path(path, "width"));
		if (!(l->width > 0.0 && l->width <= 20.0))
			spec_error(spec_path(path, "width"), "not above 0 and at most 20");
	}
}

/* One highlighted point, which must exist */
static void
spec_highlight(JsonbValue *v, const char *path, RanreadSvgHighlight *h,
			   const RanreadSvgChart *c)
{
	JsonbContainer *o = spec_object(v, path, spec_highlight_keys);
	JsonbValue *f;

	if (!(f = spec_get(o, "series")))
		spec_error(spec_path(path, "series"), "missing");
	h->series = spec_int(f, spec_path(path, "series"), Max(c->nseries, 1));
	if (h->series >= c->nseries)
		spec_error(spec_path(path, "series"), "there is no series");
	if (!(f = spec_get(o, "point")))
		spec_error(spec_path(path, "point"), "missing");
	h->point = spec_int(f, spec_path(path, "point"), Max(c->series[h->series].n, 1));
	if (h->point >= c->series[h->series].n)
		spec_error(spec_path(path, "point"), "the series has no points");
	if ((f = spec_get(o, "label")))
		h->label = spec_string(f, spec_path(path, "label"));
	if ((f = spec_get(o, "color")))
		h->color = spec_color(f, spec_path(path, "color"));
}

/* One note: a string, or {"text", "style"} */
static void
spec_note(JsonbValue *v, const char *path, RanreadSvgNote *n)
{
	JsonbContainer *o;
	JsonbValue *f;

	if (v->type == jbvString)
	{
		n->text = spec_string(v, path);
		return;
	}
	o = spec_object(v, path, spec_note_keys);
	if ((f = spec_get(o, "text")))
		n->text = spec_string(f, spec_path(path, "text"));
	if ((f = spec_get(o, "style")))
	{
		const char *p = spec_path(path, "style");

		if (spec_is(f, "headline") || spec_is(f, "headline-good") || spec_is(f, "headline-bad"))
			n->headline = true;
		if (spec_is(f, "good") || spec_is(f, "headline-good"))
			n->tone = RANREAD_SVG_GOOD;
		else if (spec_is(f, "bad") || spec_is(f, "headline-bad"))
			n->tone = RANREAD_SVG_BAD;
		else if (spec_is(f, "muted"))
			n->tone = RANREAD_SVG_MUTED;
		else if (!spec_is(f, "plain") && !spec_is(f, "headline"))
			spec_error(p, "not \"headline\", \"plain\", \"good\", \"bad\", \"muted\", \"headline-good\" or \"headline-bad\"");
	}
}

/* A table cell: a string, a number, null, or {"text", "tone"} */
static void
spec_cell(JsonbValue *v, const char *path, RanreadSvgCell *cell)
{
	JsonbContainer *o;
	JsonbValue *f;

	if (v->type == jbvNull)
		return;
	if (v->type == jbvString || v->type == jbvNumeric)
	{
		cell->text = spec_string(v, path);
		return;
	}
	o = spec_object(v, path, spec_cell_keys);
	if ((f = spec_get(o, "text")))
		cell->text = spec_string(f, spec_path(path, "text"));
	if ((f = spec_get(o, "tone")))
		cell->tone = spec_tone(f, spec_path(path, "tone"));
}

/* The table under the chart */
static void
spec_table(JsonbValue *v, const char *path, RanreadSvgTable *t)
{
	JsonbContainer *o = spec_object(v, path, spec_table_keys);
	JsonbContainer *rows;
	JsonbValue *f;
	RanreadSvgCell *cells;
	bool	   *left;
	int			r;
	int			c;

	if (!(f = spec_get(o, "header")))
		spec_error(spec_path(path, "header"), "missing");
	t->header = spec_strings(f, spec_path(path, "header"), &t->ncols, RANREAD_SVG_MAX_COLUMNS);
	if (t->ncols == 0)
		spec_error(spec_path(path, "header"), "empty");

	left = palloc0(sizeof(bool) * t->ncols);
	if ((f = spec_get(o, "align")))
	{
		JsonbContainer *arr;
		int			n;

		arr = spec_array(f, spec_path(path, "align"), &n, RANREAD_SVG_MAX_COLUMNS);
		if (n != t->ncols)
			spec_error(spec_path(path, "align"), psprintf("%d entries for %d columns", n, t->ncols));
		for (c = 0; c < n; c++)
			left[c] = !spec_right(spec_elem(arr, c), spec_index(spec_path(path, "align"), c));
	}
	t->left = left;

	if ((f = spec_get(o, "rows")))
	{
		const char *rpath = spec_path(path, "rows");

		rows = spec_array(f, rpath, &t->nrows, SPEC_MAX_TABLE_ROWS);
		cells = palloc0(sizeof(RanreadSvgCell) * Max(t->nrows * t->ncols, 1));
		for (r = 0; r < t->nrows; r++)
		{
			const char *p = spec_index(rpath, r);
			JsonbContainer *row;
			int			n;

			CHECK_FOR_INTERRUPTS();
			row = spec_array(spec_elem(rows, r), p, &n, RANREAD_SVG_MAX_COLUMNS);
			if (n > t->ncols)
				spec_error(p, psprintf("%d cells for %d columns", n, t->ncols));
			for (c = 0; c < n; c++)
				spec_cell(spec_elem(row, c), spec_index(p, c), &cells[r * t->ncols + c]);
		}
		t->cells = cells;
	}
	if ((f = spec_get(o, "highlight")))
	{
		const char *hpath = spec_path(path, "highlight");
		bool	   *hl = palloc0(sizeof(bool) * Max(t->nrows, 1));
		JsonbContainer *arr;
		int			n;
		int			i;

		arr = spec_array(f, hpath, &n, SPEC_MAX_TABLE_ROWS);
		for (i = 0; i < n; i++)
		{
			CHECK_FOR_INTERRUPTS();
			hl[spec_int(spec_elem(arr, i), spec_index(hpath, i), Max(t->nrows, 1))] = true;
		}
		t->highlight = hl;
	}
	if ((f = spec_get(o, "more")))
		t->more = spec_string(f, spec_path(path, "more"));
}

/* A heat table */
static void
spec_heat(JsonbValue *v, const char *path, RanreadSvgHeat *h)
{
	JsonbContainer *o = spec_object(v, path, spec_heat_keys);
	JsonbContainer *rows;
	JsonbValue *f;
	double	   *values;
	const char *vpath = spec_path(path, "values");
	int			n;
	int			r;

	if (!(f = spec_get(o, "rows")))
		spec_error(spec_path(path, "rows"), "missing");
	h->rows = spec_strings(f, spec_path(path, "rows"), &h->nrows, SPEC_MAX_HEAT_ROWS);
	if (!(f = spec_get(o, "columns")))
		spec_error(spec_path(path, "columns"), "missing");
	h->cols = spec_strings(f, spec_path(path, "columns"), &h->ncols, SPEC_MAX_HEAT_COLS);
	if (!(f = spec_get(o, "values")))
		spec_error(vpath, "missing");
	rows = spec_array(f, vpath, &n, SPEC_MAX_HEAT_ROWS);
	if (n != h->nrows)
		spec_error(vpath, psprintf("%d rows of values for %d row labels", n, h->nrows));
	values = palloc(sizeof(double) * Max(h->nrows * h->ncols, 1));
	for (r = 0; r < h->nrows; r++)
	{
		const char *p = spec_index(vpath, r);
		double	   *row = spec_numbers(spec_elem(rows, r), p, &n);

		CHECK_FOR_INTERRUPTS();
		if (n != h->ncols)
			spec_error(p, psprintf("%d values for %d columns", n, h->ncols));
		memcpy(values + r * h->ncols, row, sizeof(double) * n);
	}
	h->values = values;
	if ((f = spec_get(o, "metric")))
		h->metric = spec_string(f, spec_path(path, "metric"));
	if ((f = spec_get(o, "log")))
		h->scale = spec_scale(f, spec_path(path, "log"));
	if ((f = spec_get(o, "format")))
		h->format = spec_format(f, spec_path(path, "format"));
	if ((f = spec_get(o, "colors")))
	{
		const char *cpath = spec_path(path, "colors");
		JsonbContainer *arr = spec_array(f, cpath, &h->ncolors, SPEC_MAX_COLORS);
		const char **colors = palloc(sizeof(char *) * Max(h->ncolors, 1));
		int			i;

		if (h->ncolors < 2)
			spec_error(cpath, "fewer than two colours");
		for (i = 0; i < h->ncolors; i++)
			colors[i] = spec_color(spec_elem(arr, i), spec_index(cpath, i));
		for (i = 0; i < h->ncolors; i++)
			if (colors[i][0] != '#')
				spec_error(spec_index(cpath, i), "a heat scale takes #rgb or #rrggbb colours only");
		h->colors = colors;
	}
}

/* A whole spec, into a chart */
static void
spec_chart(Jsonb *jb, RanreadSvgChart *c)
{
	JsonbValue	root;
	JsonbContainer *o;
	JsonbValue *f;
	RanreadSvgKind kind = RANREAD_SVG_LINE;
	int			n;
	int			i;

	if (!JB_ROOT_IS_OBJECT(jb))
		spec_error("spec", "not an object");
	root.type = jbvBinary;
	root.val.binary.data = &jb->root;
	root.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	o = spec_object(&root, "", spec_top_keys);

	if ((f = spec_get(o, "kind")))
	{
		if (spec_is(f, "bar"))
			kind = RANREAD_SVG_BAR;
		else if (spec_is(f, "heat"))
			kind = RANREAD_SVG_HEAT;
		else if (!spec_is(f, "line"))
			spec_error("kind", "not \"line\", \"bar\" or \"heat\"");
	}
	ranread_svg_init(c, kind);

	if ((f = spec_get(o, "title")))
		c->title = spec_string(f, "title");
	if ((f = spec_get(o, "subtitle")))
		c->subtitle = spec_string(f, "subtitle");
	if ((f = spec_get(o, "empty")))
		c->empty = spec_string(f, "empty");
	if ((f = spec_get(o, "x")))
		spec_axis(f, "x", &c->x);
	if ((f = spec_get(o, "y")))
		spec_axis(f, "y", &c->y);
	if ((f = spec_get(o, "y2")))
		spec_axis(f, "y2", &c->y2);

	if ((f = spec_get(o, "categories")))
		c->categories = spec_strings(f, "categories", &c->ncategories, SPEC_MAX_CATEGORIES);
	if ((f = spec_get(o, "series")))
	{
		JsonbContainer *arr = spec_array(f, "series", &c->nseries, RANREAD_SVG_MAX_SERIES);
		RanreadSvgSeries *series = palloc0(sizeof(RanreadSvgSeries) * Max(c->nseries, 1));

		for (i = 0; i < c->nseries; i++)
		{
			spec_series(spec_elem(arr, i), spec_index("series", i), &series[i],
						kind == RANREAD_SVG_BAR);
			if (kind == RANREAD_SVG_BAR && series[i].n > c->ncategories)
				spec_error(psprintf("series[%d].y", i),
						   psprintf("%d values for %d categories", series[i].n, c->ncategories));
		}
		c->series = series;
	}
	if ((f = spec_get(o, "lines")))
	{
		JsonbContainer *arr = spec_array(f, "lines", &c->nlines, SPEC_MAX_LINES);
		RanreadSvgLine *lines = palloc0(sizeof(RanreadSvgLine) * Max(c->nlines, 1));

		for (i = 0; i < c->nlines; i++)
			spec_line(spec_elem(arr, i), spec_index("lines", i), &lines[i]);
		c->lines = lines;
	}
	if ((f = spec_get(o, "highlights")))
	{
		JsonbContainer *arr = spec_array(f, "highlights", &c->nhighlights, SPEC_MAX_HIGHLIGHTS);
		RanreadSvgHighlight *hl = palloc0(sizeof(RanreadSvgHighlight) * Max(c->nhighlights, 1));

		for (i = 0; i < c->nhighlights; i++)
			spec_highlight(spec_elem(arr, i), spec_index("highlights", i), &hl[i], c);
		c->highlights = hl;
	}
	if ((f = spec_get(o, "notes")))
	{
		JsonbContainer *arr = spec_array(f, "notes", &c->nnotes, SPEC_MAX_NOTES);
		RanreadSvgNote *notes = palloc0(sizeof(RanreadSvgNote) * Max(c->nnotes, 1));

		for (i = 0; i < c->nnotes; i++)
			spec_note(spec_elem(arr, i), spec_index("notes", i), &notes[i]);
		c->notes = notes;
	}
	if ((f = spec_get(o, "table")))
		spec_table(f, "table", &c->table);
	if ((f = spec_get(o, "heat")))
	{
		if (kind != RANREAD_SVG_HEAT)
			spec_error("heat", "given for a chart whose kind is not \"heat\"");
		spec_heat(f, "heat", &c->heat);
	}
	else if (kind == RANREAD_SVG_HEAT)
		spec_error("heat", "missing for a chart of kind \"heat\"");
	n = c->nseries;
	if (kind == RANREAD_SVG_HEAT && n > 0)
		spec_error("series", "given for a heat chart, whose values are in heat.values");
}

/*
 * ranread_svg(spec jsonb) RETURNS text
 *
 * Draw the chart a jsonb spec describes, as a standalone SVG document.
 */
Datum
ranread_svg(PG_FUNCTION_ARGS)
{
	RanreadSvgChart chart;
	StringInfoData buf;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec for ranread_svg must not be null"),
				 errhint("Pass a jsonb object such as '{\"title\": \"...\", \"series\": [...]}'.")));
	spec_chart(PG_GETARG_JSONB_P(0), &chart);
	initStringInfo(&buf);
	ranread_svg_render(&buf, &chart);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(buf.data, buf.len));
}
