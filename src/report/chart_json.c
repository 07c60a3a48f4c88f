/*
 * chart_json.c
 *		A chart spec read from jsonb into a RanreadSvgChart and drawn by the
 *		renderer (svg.c): ranread_svg(spec jsonb) for plpgsql functions, and
 *		ranread_chart_json_draw for the charts of the history (charts.c),
 *		whose specs SQL builds too.  Every chart of ranread is drawn
 *		through here.
 *
 * The keys are documented atop svg.c and in docs/charts-and-reports.md.
 * Reading is strict: an unknown key, a value of the wrong type, arrays of
 * unequal length or a highlight of a point that does not exist is an error
 * that names the key by its path ("series[2].marker"), because a typo that
 * silently drew a different chart would be worse.  Colours and dashes go into attributes,
 * so they are checked against what SVG accepts (#rgb, #rrggbb, a colour
 * name; numbers, spaces and commas) as well as escaped.  Text is converted
 * from the server encoding to UTF-8, as the renderer expects.
 *
 * A text may also be an array of parts: strings, numbers printed in one of
 * the renderer's formats ({"count": 12345.6} is "12,346", {"ms": 6.1} is
 * "6.10"), and characters by their code point ({"char": 8220}, a left
 * quotation mark in any server encoding).  So SQL that builds a spec
 * prints its figures as the axes and labels print theirs, and writes the
 * same document in a LATIN1 or SQL_ASCII database as in a UTF8 one.
 *
 * pg_monitor may call ranread_svg, so a spec is untrusted input: the work
 * must stay about linear in it and bounded.  Every array has a limit (the
 * SPEC_MAX_* below and the renderer's 12 series, 16 columns and 4 panels,
 * each panel's heat within the heat table's limits), every text
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
 * ranread_svg is IMMUTABLE: the SVG depends on the spec alone.
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

#include "chart_json.h"
#include "sqlfunc.h"
#include "svg.h"

PG_FUNCTION_INFO_V1(ranread_svg);

/*
 * The limits of a spec (docs/charts-and-reports.md, "Charts from SQL"): rows
 * and columns of a heat table, rows of a table, points of a series,
 * categories, reference lines, highlights, notes, colours of a heat scale,
 * characters of a text, parts of a text, characters of all texts
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
#define SPEC_MAX_PARTS 100
/* Characters of all the texts of one spec together */
#define SPEC_MAX_TEXT_TOTAL 1000000

#define SPEC_HINT "The keys of a ranread_svg spec are listed in docs/charts-and-reports.md, \"Charts from SQL\"."

static const char *const spec_top_keys[] = {
	"kind", "title", "subtitle", "empty", "x", "y", "y2", "series", "categories",
	"lines", "highlights", "notes", "table", "heat", "panels", NULL
};
/* A panel under a line chart: a heat chart on the chart's x axis */
static const char *const spec_panel_keys[] = {"kind", "title", "y", "heat", NULL};
static const char *const spec_axis_keys[] = {
	"label", "log", "base", "min", "max", "integer", "ticks", "format", "color", "time",
	"utc_offset", NULL
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
	"rows", "columns", "values", "metric", "log", "colors", "format", "edges", NULL
};

/* A word of a spec and what it stands for */
typedef struct SpecWord
{
	const char *word;
	int			value;
} SpecWord;

/* A note's style is a tone, with NOTE_HEADLINE for a headline */
#define NOTE_HEADLINE 0x100

static const SpecWord spec_kinds[] = {
	{"line", RANREAD_SVG_LINE}, {"bar", RANREAD_SVG_BAR}, {"heat", RANREAD_SVG_HEAT}, {NULL, 0}
};
static const SpecWord spec_scales[] = {
	{"auto", RANREAD_SVG_AUTO}, {"log", RANREAD_SVG_LOG}, {"linear", RANREAD_SVG_LINEAR}, {NULL, 0}
};
static const SpecWord spec_formats[] = {
	{"number", RANREAD_SVG_NUMBER}, {"count", RANREAD_SVG_COUNT}, {NULL, 0}
};
static const SpecWord spec_times[] = {
	{"duration", RANREAD_SVG_TIME_DURATION}, {"clock", RANREAD_SVG_TIME_CLOCK}, {NULL, 0}
};
static const SpecWord spec_sides[] = {{"left", false}, {"right", true}, {NULL, 0}};
static const SpecWord spec_ticks[] = {{"auto", false}, {"data", true}, {NULL, 0}};
static const SpecWord spec_tones[] = {
	{"plain", RANREAD_SVG_PLAIN}, {"good", RANREAD_SVG_GOOD}, {"bad", RANREAD_SVG_BAD},
	{"muted", RANREAD_SVG_MUTED}, {NULL, 0}
};
static const SpecWord spec_styles[] = {
	{"headline", RANREAD_SVG_PLAIN | NOTE_HEADLINE}, {"plain", RANREAD_SVG_PLAIN},
	{"good", RANREAD_SVG_GOOD}, {"bad", RANREAD_SVG_BAD}, {"muted", RANREAD_SVG_MUTED},
	{"headline-good", RANREAD_SVG_GOOD | NOTE_HEADLINE},
	{"headline-bad", RANREAD_SVG_BAD | NOTE_HEADLINE}, {NULL, 0}
};
static const SpecWord spec_markers[] = {
	{"circle", 'o'}, {"square", 's'}, {"triangle", '^'}, {"down", 'v'},
	{"diamond", 'd'}, {"cross", 'x'}, {"none", '-'}, {NULL, 0}
};

/*
 * The formats of a text's parts (docs/charts-and-reports.md, "Charts from
 * SQL"): each prints a number as the renderer's function of that name does,
 * "char" a character by its code point; "decimals" goes with "fixed"
 */
typedef enum SpecPart
{
	PART_COUNT, PART_NUMBER, PART_MS, PART_FIXED, PART_SETTING, PART_BLOCK, PART_CHAR
} SpecPart;

static const SpecWord spec_parts[] = {
	{"count", PART_COUNT}, {"number", PART_NUMBER}, {"ms", PART_MS}, {"fixed", PART_FIXED},
	{"setting", PART_SETTING}, {"block", PART_BLOCK}, {"char", PART_CHAR}, {NULL, 0}
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

/* Whether a string value equals s */
static bool
spec_is(JsonbValue *v, const char *s)
{
	return v->type == jbvString && strlen(s) == v->val.string.len &&
		strncmp(s, v->val.string.val, v->val.string.len) == 0;
}

/* The path of part k of element i of path (i < 0: of path), for an error */
static char *
spec_part_path(const char *path, int i, int k)
{
	return psprintf("%s[%d]", spec_where(path, i), k);
}

/*
 * Characters of the texts read so far from the spec being read (spec_chart
 * sets it to 0): one text is at most SPEC_MAX_TEXT characters, all of them
 * SPEC_MAX_TEXT_TOTAL, so that a spec of many long texts (every cell of a
 * table, every point's) cannot make a document of gigabytes
 */
static int64 spec_text_chars;

/* Count a text of chars characters (element i of path) among the spec's */
static void
spec_text_counted(const char *path, int i, int chars)
{
	spec_text_chars += chars;
	if (spec_text_chars > SPEC_MAX_TEXT_TOTAL)
		spec_error(spec_where(path, i),
				   psprintf("a text that brings the spec's texts to " INT64_FORMAT " characters, at most %d in all",
							spec_text_chars, SPEC_MAX_TEXT_TOTAL));
}

/* A string value as UTF-8, or NULL when it has more than SPEC_MAX_TEXT characters */
static char *
spec_utf8(JsonbValue *v, int *chars)
{
	*chars = pg_mbstrlen_with_len(v->val.string.val, v->val.string.len);
	if (*chars > SPEC_MAX_TEXT)
		return NULL;
	return pg_server_to_any(pnstrdup(v->val.string.val, v->val.string.len),
							v->val.string.len, PG_UTF8);
}

/*
 * The number a formatted part prints: a number of any size (beyond a
 * double it is +-Infinity), null or "NaN" for none (n/a), "Infinity" or
 * "-Infinity": what to_jsonb makes of a float8
 */
static double
spec_part_number(JsonbValue *v, const char *path, int i, int k)
{
	bool		huge;

	if (v->type == jbvNull || spec_is(v, "NaN"))
		return get_float8_nan();
	if (spec_is(v, "Infinity"))
		return get_float8_infinity();
	if (spec_is(v, "-Infinity"))
		return -get_float8_infinity();
	if (v->type != jbvNumeric)
		spec_error(spec_part_path(path, i, k),
				   psprintf("%s is not a number, null, \"NaN\", \"Infinity\" or \"-Infinity\"",
							spec_show(v)));
	return spec_numeric_double(v->val.numeric, &huge);
}

/* The whole number a part gives for key, from lo to hi */
static double
spec_part_whole(JsonbValue *v, const char *path, int i, int k, double lo, double hi,
				const char *what)
{
	double		d = spec_part_number(v, path, i, k);

	if (!(d >= lo && d <= hi && d == floor(d)))
		spec_error(spec_part_path(path, i, k), psprintf("%s is not %s", spec_show(v), what));
	return d;
}

/*
 * Append part k of a text (element i of path) that is an object: one
 * number in a format of the renderer's ({"count": 12345}, {"fixed": 2.5,
 * "decimals": 1} ...), or {"char": code point}
 */
static void
spec_part(JsonbValue *v, const char *path, int i, int k, StringInfo out)
{
	JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
	JsonbIteratorToken tok;
	JsonbValue	x;
	JsonbValue	key = {0};
	JsonbValue	value = {0};
	JsonbValue	decimals = {0};
	bool		has_decimals = false;
	int			format = -1;
	double		d;
	char		utf8[8];

	while ((tok = JsonbIteratorNext(&it, &x, true)) != WJB_DONE)
	{
		int			w;

		if (tok == WJB_KEY)
			key = x;
		if (tok != WJB_VALUE)
			continue;
		if (spec_is(&key, "decimals"))
		{
			decimals = x;
			has_decimals = true;
			continue;
		}
		for (w = 0; spec_parts[w].word && !spec_is(&key, spec_parts[w].word); w++)
			;
		if (spec_parts[w].word == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%.*s\" in %s of the spec for ranread_svg",
							pg_mbcliplen(key.val.string.val, key.val.string.len, 64),
							key.val.string.val, spec_part_path(path, i, k)),
					 errhint(SPEC_HINT)));
		if (format >= 0)
			spec_error(spec_part_path(path, i, k), "more than one format in a part");
		format = spec_parts[w].value;
		value = x;
	}
	if (format < 0)
		spec_error(spec_part_path(path, i, k),
				   "a part without a format (count, number, ms, fixed, setting, block or char)");
	if (has_decimals != (format == PART_FIXED))
		spec_error(spec_part_path(path, i, k),
				   format == PART_FIXED ? "fixed without its decimals" : "decimals go with fixed only");

	switch ((SpecPart) format)
	{
		case PART_COUNT:
			appendStringInfoString(out, ranread_fmt_count(spec_part_number(&value, path, i, k)));
			break;
		case PART_NUMBER:
			appendStringInfoString(out, ranread_fmt_number(spec_part_number(&value, path, i, k)));
			break;
		case PART_MS:
			appendStringInfoString(out, ranread_fmt_ms(spec_part_number(&value, path, i, k)));
			break;
		case PART_FIXED:
			d = spec_part_number(&value, path, i, k);
			appendStringInfoString(out, ranread_fmt_fixed(d, (int) spec_part_whole(&decimals, path, i, k, 0, 20,
																					 "a number of decimals from 0 to 20")));
			break;
		case PART_SETTING:
			appendStringInfoString(out, ranread_fmt_setting(spec_part_number(&value, path, i, k)));
			break;
		case PART_BLOCK:
			d = spec_part_number(&value, path, i, k);
			appendStringInfoString(out, isnan(d) ? "n/a" :
								   ranread_fmt_block((int64) spec_part_whole(&value, path, i, k, -9e18, 9e18,
																			 "a whole number of bytes")));
			break;
		case PART_CHAR:
			d = spec_part_whole(&value, path, i, k, 1, 0x10FFFF,
								"a Unicode code point (1 to 1114111, not a surrogate)");
			if (d >= 0xD800 && d <= 0xDFFF)
				spec_error(spec_part_path(path, i, k),
						   psprintf("%s is not a Unicode code point (1 to 1114111, not a surrogate)",
									spec_show(&value)));
			unicode_to_utf8((pg_wchar) d, (unsigned char *) utf8);
			appendBinaryStringInfo(out, utf8, pg_utf_mblen((unsigned char *) utf8));
			break;
	}
}

/* Characters of a UTF-8 text: its bytes that do not continue a character */
static int
spec_utf8_chars(const char *s, int len)
{
	int			chars = 0;
	int			b;

	for (b = 0; b < len; b++)
		chars += ((s[b] & 0xC0) != 0x80);
	return chars;
}

/* A text given as an array of parts (element i of path), as UTF-8 */
static char *
spec_text_parts(JsonbContainer *arr, const char *path, int i)
{
	JsonbIterator *it;
	JsonbIteratorToken tok;
	JsonbValue	e;
	StringInfoData out;
	int			n = JsonContainerSize(arr);
	int			k = 0;
	int			chars;

	if (n > SPEC_MAX_PARTS)
		spec_error(spec_where(path, i), psprintf("a text of %d parts, at most %d", n, SPEC_MAX_PARTS));
	initStringInfo(&out);
	it = JsonbIteratorInit(arr);
	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		char	   *t;

		if (tok != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (e.type == jbvString)
		{
			if ((t = spec_utf8(&e, &chars)) == NULL)
				spec_error(spec_part_path(path, i, k),
						   psprintf("a text of %d characters, at most %d", chars, SPEC_MAX_TEXT));
			appendStringInfoString(&out, t);
		}
		else if (e.type == jbvNumeric)
			appendStringInfoString(&out, spec_numeric_text(e.val.numeric));
		else if (e.type == jbvBinary && JsonContainerIsObject(e.val.binary.data))
			spec_part(&e, path, i, k, &out);
		else
			spec_error(spec_part_path(path, i, k),
					   psprintf("%s is not a string, a number or a part such as {\"count\": 12345}",
								spec_show(&e)));
		k++;
	}
	chars = spec_utf8_chars(out.data, out.len);
	if (chars > SPEC_MAX_TEXT)
		spec_error(spec_where(path, i), psprintf("a text of %d characters, at most %d", chars, SPEC_MAX_TEXT));
	return out.data;
}

/*
 * A text value (element i of path, or path itself for i < 0), as UTF-8: a
 * string, a number (its text) or an array of parts.  At most SPEC_MAX_TEXT
 * characters.
 */
static char *
spec_string_at(JsonbValue *v, const char *path, int i)
{
	char	   *t;
	int			chars;

	if (v->type == jbvString)
	{
		if ((t = spec_utf8(v, &chars)) == NULL)
			spec_error(spec_where(path, i),
					   psprintf("a text of %d characters, at most %d", chars, SPEC_MAX_TEXT));
		spec_text_counted(path, i, chars);
		return t;
	}
	if (v->type == jbvNumeric)
	{
		t = spec_numeric_text(v->val.numeric);
		spec_text_counted(path, i, strlen(t));
		return t;
	}
	if (v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data))
	{
		t = spec_text_parts(v->val.binary.data, path, i);
		spec_text_counted(path, i, spec_utf8_chars(t, strlen(t)));
		return t;
	}
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

/*
 * The elements of an array value, and their number, in one pass of an
 * iterator: no lookup per element
 */
static JsonbValue *
spec_elements(JsonbValue *v, const char *path, int *n, int max)
{
	JsonbContainer *arr = spec_array(v, path, n, max);
	JsonbValue *out = palloc(sizeof(JsonbValue) * Max(*n, 1));
	JsonbIterator *it = JsonbIteratorInit(arr);
	JsonbIteratorToken tok;
	JsonbValue	e;
	int			i = 0;

	while ((tok = JsonbIteratorNext(&it, &e, true)) != WJB_DONE)
	{
		if (tok != WJB_ELEM || i >= *n)
			continue;
		CHECK_FOR_INTERRUPTS();
		out[i++] = e;
	}
	return out;
}

/* An array of numbers (or nulls), and its length */
static double *
spec_numbers(JsonbValue *v, const char *path, int *n)
{
	JsonbValue *e = spec_elements(v, path, n, SPEC_MAX_POINTS);
	double	   *out = palloc(sizeof(double) * Max(*n, 1));
	int			i;

	for (i = 0; i < *n; i++)
		out[i] = spec_number_at(&e[i], path, i);
	pfree(e);
	return out;
}

/* An array of strings (null elements stay NULL), and its length */
static const char **
spec_strings(JsonbValue *v, const char *path, int *n, int max)
{
	JsonbValue *e = spec_elements(v, path, n, max);
	const char **out = palloc0(sizeof(char *) * Max(*n, 1));
	int			i;

	for (i = 0; i < *n; i++)
		out[i] = e[i].type == jbvNull ? NULL : spec_string_at(&e[i], path, i);
	pfree(e);
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

/*
 * The value of a word of words, such as "count" for a format; the error
 * lists them all, after also (other values allowed) when not NULL
 */
static int
spec_word(JsonbValue *v, const char *path, const SpecWord *words, const char *also)
{
	StringInfoData allowed;
	int			i;

	for (i = 0; words[i].word; i++)
		if (spec_is(v, words[i].word))
			return words[i].value;
	initStringInfo(&allowed);
	if (also)
		appendStringInfoString(&allowed, also);
	for (i = 0; words[i].word; i++)
		appendStringInfo(&allowed, "%s\"%s\"",
						 i == 0 ? "" : words[i + 1].word ? ", " : " or ", words[i].word);
	spec_error(path, psprintf("%s is not %s", spec_show(v), allowed.data));
	return 0;
}

/* A scale: false or "linear", true or "log", "auto" */
static RanreadSvgScale
spec_scale(JsonbValue *v, const char *path)
{
	if (v->type == jbvBool)
		return v->val.boolean ? RANREAD_SVG_LOG : RANREAD_SVG_LINEAR;
	return (RanreadSvgScale) spec_word(v, path, spec_scales, "true, false, ");
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

/* The text at key of an object, or NULL when it is absent or null */
static const char *
spec_opt_text(JsonbContainer *o, const char *path, const char *key)
{
	JsonbValue *f = spec_get(o, key);

	return f ? spec_string(f, spec_path(path, key)) : NULL;
}

/* The colour at key of an object, or NULL */
static const char *
spec_opt_color(JsonbContainer *o, const char *path, const char *key)
{
	JsonbValue *f = spec_get(o, key);

	return f ? spec_color(f, spec_path(path, key)) : NULL;
}

/* The dash pattern at key "dash" of an object, or NULL */
static const char *
spec_opt_dash(JsonbContainer *o, const char *path)
{
	JsonbValue *f = spec_get(o, "dash");

	return f ? spec_dash(f, spec_path(path, "dash")) : NULL;
}

/* The stroke width at key "width" of an object, above 0 and at most 20; 0 when absent */
static double
spec_opt_width(JsonbContainer *o, const char *path)
{
	JsonbValue *f = spec_get(o, "width");
	double		width;

	if (f == NULL)
		return 0.0;
	width = spec_number(f, spec_path(path, "width"));
	if (!(width > 0.0 && width <= 20.0))
		spec_error(spec_path(path, "width"), "not above 0 and at most 20");
	return width;
}

/* The word at key of an object, as words give it, or dflt when absent */
static int
spec_opt_word(JsonbContainer *o, const char *path, const char *key, const SpecWord *words,
			  int dflt)
{
	JsonbValue *f = spec_get(o, key);

	return f ? spec_word(f, spec_path(path, key), words, NULL) : dflt;
}

/* An axis object */
static void
spec_axis(JsonbValue *v, const char *path, RanreadSvgAxis *a)
{
	JsonbContainer *o = spec_object(v, path, spec_axis_keys);
	JsonbValue *f;

	a->label = spec_opt_text(o, path, "label");
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
	a->data_ticks = spec_opt_word(o, path, "ticks", spec_ticks, false);
	a->format = spec_opt_word(o, path, "format", spec_formats, RANREAD_SVG_NUMBER);
	a->color = spec_opt_color(o, path, "color");
	a->time = spec_opt_word(o, path, "time", spec_times, RANREAD_SVG_TIME_NONE);
	if (a->time != RANREAD_SVG_TIME_NONE && strcmp(path, "x") != 0)
		spec_error(spec_path(path, "time"), "only the x axis of a line chart is a time axis");
	if (a->time != RANREAD_SVG_TIME_NONE && (a->data_ticks || a->scale != RANREAD_SVG_LINEAR))
		spec_error(spec_path(path, "time"), "a time axis is linear, with ticks of its own (no log, no data ticks)");
	if ((f = spec_get(o, "utc_offset")))
	{
		a->utc_offset = spec_number(f, spec_path(path, "utc_offset"));
		if (a->time != RANREAD_SVG_TIME_CLOCK)
			spec_error(spec_path(path, "utc_offset"), "goes with \"time\": \"clock\" only");
		if (!(fabs(a->utc_offset) <= 86400.0))
			spec_error(spec_path(path, "utc_offset"),
					   psprintf("%s seconds, at most 86400 either way", spec_show(f)));
	}
}

/* One series */
static void
spec_series(JsonbValue *v, const char *path, RanreadSvgSeries *s, bool bars)
{
	JsonbContainer *o = spec_object(v, path, spec_series_keys);
	JsonbValue *f;
	int			nx = 0;

	s->label = spec_opt_text(o, path, "label");
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
	s->right = spec_opt_word(o, path, "axis", spec_sides, false);
	s->color = spec_opt_color(o, path, "color");
	s->dash = spec_opt_dash(o, path);
	s->marker = (char) spec_opt_word(o, path, "marker", spec_markers, 0);
	s->width = spec_opt_width(o, path);
	if ((f = spec_get(o, "line")))
		s->no_line = !spec_bool(f, spec_path(path, "line"));
	if ((f = spec_get(o, "labels")))
		s->labels = spec_bool(f, spec_path(path, "labels"));
	s->format = spec_opt_word(o, path, "format", spec_formats, RANREAD_SVG_NUMBER);
}

/*
 * One reference line.  Its value is required; null is no value (a bound
 * not known, or beyond what a chart places): the legend shows it, the
 * plot draws no line.
 */
static void
spec_line(JsonbValue *v, const char *path, RanreadSvgLine *l)
{
	JsonbContainer *o = spec_object(v, path, spec_line_keys);
	JsonbValue *f = getKeyJsonValueFromContainer(o, "value", strlen("value"), NULL);

	if (f == NULL)
		spec_error(spec_path(path, "value"), "missing");
	l->value = spec_number(f, spec_path(path, "value"));
	l->right = spec_opt_word(o, path, "axis", spec_sides, false);
	l->label = spec_opt_text(o, path, "label");
	l->legend = spec_opt_text(o, path, "legend");
	l->color = spec_opt_color(o, path, "color");
	l->dash = spec_opt_dash(o, path);
	l->width = spec_opt_width(o, path);
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
	h->label = spec_opt_text(o, path, "label");
	h->color = spec_opt_color(o, path, "color");
}

/* Whether a value is an array (of parts, where a text is expected) */
static bool
spec_is_array(JsonbValue *v)
{
	return v->type == jbvBinary && JsonContainerIsArray(v->val.binary.data);
}

/* One note: a text, or {"text", "style"} */
static void
spec_note(JsonbValue *v, const char *path, RanreadSvgNote *n)
{
	JsonbContainer *o;
	int			style;

	if (v->type == jbvString || spec_is_array(v))
	{
		n->text = spec_string(v, path);
		return;
	}
	o = spec_object(v, path, spec_note_keys);
	n->text = spec_opt_text(o, path, "text");
	style = spec_opt_word(o, path, "style", spec_styles, RANREAD_SVG_PLAIN);
	n->headline = (style & NOTE_HEADLINE) != 0;
	n->tone = (RanreadSvgTone) (style & ~NOTE_HEADLINE);
}

/* A table cell: a text (a string, a number, parts), null, or {"text", "tone"} */
static void
spec_cell(JsonbValue *v, const char *path, RanreadSvgCell *cell)
{
	JsonbContainer *o;

	if (v->type == jbvNull)
		return;
	if (v->type == jbvString || v->type == jbvNumeric || spec_is_array(v))
	{
		cell->text = spec_string(v, path);
		return;
	}
	o = spec_object(v, path, spec_cell_keys);
	cell->text = spec_opt_text(o, path, "text");
	cell->tone = spec_opt_word(o, path, "tone", spec_tones, RANREAD_SVG_PLAIN);
}

/* The rows of a table of ncols columns */
static RanreadSvgCell *
spec_table_rows(JsonbValue *v, const char *rpath, int ncols, int *nrows)
{
	JsonbContainer *rows = spec_array(v, rpath, nrows, SPEC_MAX_TABLE_ROWS);
	RanreadSvgCell *cells = palloc0(sizeof(RanreadSvgCell) * Max(*nrows * ncols, 1));
	int			r;
	int			c;

	for (r = 0; r < *nrows; r++)
	{
		const char *p = spec_index(rpath, r);
		JsonbContainer *row;
		int			n;

		CHECK_FOR_INTERRUPTS();
		row = spec_array(spec_elem(rows, r), p, &n, RANREAD_SVG_MAX_COLUMNS);
		if (n > ncols)
			spec_error(p, psprintf("%d cells for %d columns", n, ncols));
		for (c = 0; c < n; c++)
			spec_cell(spec_elem(row, c), spec_index(p, c), &cells[r * ncols + c]);
	}
	return cells;
}

/* The table under the chart */
static void
spec_table(JsonbValue *v, const char *path, RanreadSvgTable *t)
{
	JsonbContainer *o = spec_object(v, path, spec_table_keys);
	JsonbValue *f;
	bool	   *left;
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
			left[c] = !spec_word(spec_elem(arr, c), spec_index(spec_path(path, "align"), c),
								 spec_sides, NULL);
	}
	t->left = left;

	if ((f = spec_get(o, "rows")))
		t->cells = spec_table_rows(f, spec_path(path, "rows"), t->ncols, &t->nrows);
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
	t->more = spec_opt_text(o, path, "more");
}

/* The colours of a heat scale, low -> high: at least two, #rgb or #rrggbb */
static const char **
spec_heat_colors(JsonbValue *v, const char *cpath, int *n)
{
	JsonbContainer *arr = spec_array(v, cpath, n, SPEC_MAX_COLORS);
	const char **colors = palloc(sizeof(char *) * Max(*n, 1));
	int			i;

	if (*n < 2)
		spec_error(cpath, "fewer than two colours");
	for (i = 0; i < *n; i++)
	{
		colors[i] = spec_color(spec_elem(arr, i), spec_index(cpath, i));
		if (colors[i][0] != '#')
			spec_error(spec_index(cpath, i), "a heat scale takes #rgb or #rrggbb colours only");
	}
	return colors;
}

/*
 * A heat table, or a panel's heat (panel): its columns placed on the chart's
 * x axis by their edges
 */
static void
spec_heat(JsonbValue *v, const char *path, RanreadSvgHeat *h, bool panel)
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
	h->metric = spec_opt_text(o, path, "metric");
	if ((f = spec_get(o, "log")))
		h->scale = spec_scale(f, spec_path(path, "log"));
	h->format = spec_opt_word(o, path, "format", spec_formats, RANREAD_SVG_NUMBER);
	if ((f = spec_get(o, "colors")))
		h->colors = spec_heat_colors(f, spec_path(path, "colors"), &h->ncolors);
	if ((f = spec_get(o, "edges")))
	{
		const char *epath = spec_path(path, "edges");
		double	   *edges;

		if (!panel)
			spec_error(epath, "given for a heat table; only a panel's heat has edges on the x axis of the chart above it");
		edges = spec_numbers(f, epath, &n);
		if (n != h->ncols + 1)
			spec_error(epath, psprintf("%d edges for %d columns (a column lies between two edges: %d are needed)",
									   n, h->ncols, h->ncols + 1));
		for (r = 0; r < n; r++)
		{
			if (isnan(edges[r]))
				spec_error(spec_index(epath, r), "null (every edge is a number)");
			if (r > 0 && !(edges[r] > edges[r - 1]))
				spec_error(spec_index(epath, r), "not above the edge before it (edges increase)");
		}
		h->edges = edges;
	}
	else if (panel)
		spec_error(spec_path(path, "edges"),
				   "missing (a panel's columns lie on the chart's x axis, between edges[j] and edges[j + 1])");
}

/* A panel under a line chart: a heat chart on the chart's x axis */
static void
spec_panel(JsonbValue *v, const char *path, RanreadSvgChart *p)
{
	JsonbContainer *o = spec_object(v, path, spec_panel_keys);
	JsonbValue *f;

	ranread_svg_init(p, RANREAD_SVG_HEAT);
	if ((f = spec_get(o, "kind")) && !spec_is(f, "heat"))
		spec_error(spec_path(path, "kind"),
				   psprintf("%s is not \"heat\" (a panel is a heat chart)", spec_show(f)));
	p->title = spec_opt_text(o, path, "title");
	if ((f = spec_get(o, "y")))
		spec_axis(f, spec_path(path, "y"), &p->y);
	if (!(f = spec_get(o, "heat")))
		spec_error(spec_path(path, "heat"), "missing (a panel is a heat chart)");
	spec_heat(f, spec_path(path, "heat"), &p->heat, true);
}

/* The series, lines, highlights and notes of a spec (o, its top level) */
static void
spec_lists(JsonbContainer *o, RanreadSvgChart *c)
{
	JsonbContainer *arr;
	JsonbValue *f;
	int			i;

	if ((f = spec_get(o, "series")))
	{
		RanreadSvgSeries *series;

		arr = spec_array(f, "series", &c->nseries, RANREAD_SVG_MAX_SERIES);
		series = palloc0(sizeof(RanreadSvgSeries) * Max(c->nseries, 1));
		for (i = 0; i < c->nseries; i++)
		{
			spec_series(spec_elem(arr, i), spec_index("series", i), &series[i],
						c->kind == RANREAD_SVG_BAR);
			if (c->kind == RANREAD_SVG_BAR && series[i].n > c->ncategories)
				spec_error(psprintf("series[%d].y", i),
						   psprintf("%d values for %d categories", series[i].n, c->ncategories));
		}
		c->series = series;
	}
	if ((f = spec_get(o, "lines")))
	{
		RanreadSvgLine *lines;

		arr = spec_array(f, "lines", &c->nlines, SPEC_MAX_LINES);
		lines = palloc0(sizeof(RanreadSvgLine) * Max(c->nlines, 1));
		for (i = 0; i < c->nlines; i++)
			spec_line(spec_elem(arr, i), spec_index("lines", i), &lines[i]);
		c->lines = lines;
	}
	if ((f = spec_get(o, "highlights")))
	{
		RanreadSvgHighlight *hl;

		arr = spec_array(f, "highlights", &c->nhighlights, SPEC_MAX_HIGHLIGHTS);
		hl = palloc0(sizeof(RanreadSvgHighlight) * Max(c->nhighlights, 1));
		for (i = 0; i < c->nhighlights; i++)
			spec_highlight(spec_elem(arr, i), spec_index("highlights", i), &hl[i], c);
		c->highlights = hl;
	}
	if ((f = spec_get(o, "notes")))
	{
		RanreadSvgNote *notes;

		arr = spec_array(f, "notes", &c->nnotes, SPEC_MAX_NOTES);
		notes = palloc0(sizeof(RanreadSvgNote) * Max(c->nnotes, 1));
		for (i = 0; i < c->nnotes; i++)
			spec_note(spec_elem(arr, i), spec_index("notes", i), &notes[i]);
		c->notes = notes;
	}
}

/* A whole spec, into a chart */
static void
spec_chart(Jsonb *jb, RanreadSvgChart *c)
{
	JsonbValue	root;
	JsonbContainer *o;
	JsonbValue *f;

	spec_text_chars = 0;
	if (!JB_ROOT_IS_OBJECT(jb))
		spec_error("spec", "not an object");
	root.type = jbvBinary;
	root.val.binary.data = &jb->root;
	root.val.binary.len = VARSIZE(jb) - VARHDRSZ;
	o = spec_object(&root, "", spec_top_keys);

	ranread_svg_init(c, (RanreadSvgKind) spec_opt_word(o, "", "kind", spec_kinds, RANREAD_SVG_LINE));
	c->title = spec_opt_text(o, "", "title");
	c->subtitle = spec_opt_text(o, "", "subtitle");
	c->empty = spec_opt_text(o, "", "empty");
	if ((f = spec_get(o, "x")))
		spec_axis(f, "x", &c->x);
	if (c->x.time != RANREAD_SVG_TIME_NONE && c->kind != RANREAD_SVG_LINE)
		spec_error("x.time", "only the x axis of a line chart is a time axis");
	if ((f = spec_get(o, "y")))
		spec_axis(f, "y", &c->y);
	if ((f = spec_get(o, "y2")))
		spec_axis(f, "y2", &c->y2);
	if ((f = spec_get(o, "categories")))
		c->categories = spec_strings(f, "categories", &c->ncategories, SPEC_MAX_CATEGORIES);
	spec_lists(o, c);
	if ((f = spec_get(o, "table")))
		spec_table(f, "table", &c->table);
	if ((f = spec_get(o, "heat")))
	{
		if (c->kind != RANREAD_SVG_HEAT)
			spec_error("heat", "given for a chart whose kind is not \"heat\"");
		spec_heat(f, "heat", &c->heat, false);
	}
	else if (c->kind == RANREAD_SVG_HEAT)
		spec_error("heat", "missing for a chart of kind \"heat\"");
	if (c->kind == RANREAD_SVG_HEAT && c->nseries > 0)
		spec_error("series", "given for a heat chart, whose values are in heat.values");
	if ((f = spec_get(o, "panels")))
	{
		JsonbContainer *arr;
		RanreadSvgChart *panels;
		int			i;

		if (c->kind != RANREAD_SVG_LINE)
			spec_error("panels", "given for a chart whose kind is not \"line\" (panels share a line chart's x axis)");
		arr = spec_array(f, "panels", &c->npanels, RANREAD_SVG_MAX_PANELS);
		panels = palloc0(sizeof(RanreadSvgChart) * Max(c->npanels, 1));
		for (i = 0; i < c->npanels; i++)
			spec_panel(spec_elem(arr, i), spec_index("panels", i), &panels[i]);
		c->panels = panels;
	}
}

/*
 * The SVG document of a spec: for ranread_svg, and for the charts of the
 * history (charts.c), whose specs SQL builds too
 */
text *
ranread_chart_json_draw(Jsonb *spec)
{
	RanreadSvgChart chart;
	StringInfoData buf;

	spec_chart(spec, &chart);
	initStringInfo(&buf);
	ranread_svg_render(&buf, &chart);
	return cstring_to_text_with_len(buf.data, buf.len);
}

/*
 * ranread_svg(spec jsonb) RETURNS text
 *
 * Draw the chart a jsonb spec describes, as a standalone SVG document.
 */
Datum
ranread_svg(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("spec for ranread_svg must not be null"),
				 errhint("Pass a jsonb object such as '{\"title\": \"...\", \"series\": [...]}'.")));
	PG_RETURN_TEXT_P(ranread_chart_json_draw(PG_GETARG_JSONB_P(0)));
}
