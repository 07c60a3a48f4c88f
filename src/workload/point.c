/*
 * point.c
 *		What a batch's point may say: the coordinates of a study's point, or
 *		the window of a latency-target search (docs/design.md, "What any
 *		role may call").
 *
 * A batch of a study carries its point, and a window of a latency-target
 * search carries its search, in ranread_batches.point (a run step's
 * "point").  Everything that reads studies and searches back reads those
 * keys: the study views, grids, charts and the report (n, the
 * coordinates), ranread_latency_target_verdict (the window's number, load,
 * bound).  Any role granted 'run' may call ranread_run_step, so its point
 * is checked before the batch runs, for its shape and for its facts:
 *
 *	 - a point belongs to a study (the spec's "study") or to a search (the
 *	   point's "latency_target"), not to both, and a study's batch has one;
 *	 - a study's point is {"n": its number, and coordinates among processes,
 *	   queue_depth, block_size, write_pct, region, pattern, distribution,
 *	   small, large (a matrix's loads), test, mode, pass (a profile's)}; a
 *	   window is {"latency_target", "step", "phase", "dimension", "load",
 *	   "target_ms", "percentile", "max_load"}, every key given; each value
 *	   of its type and within its range (an integer is a JSON number without
 *	   a fraction, as the readers cast it);
 *	 - a coordinate that is an option is the batch's own (rule 8, labels
 *	   are facts): processes the batch's, queue_depth, block_size,
 *	   write_pct, pattern, distribution and region every group's, small and
 *	   large the processes of the groups so labelled (0: none), mode 'read'
 *	   a batch without writes and 'write' one of writes only; a window's
 *	   load is its dimension's value.
 *
 * The readers do not count on it: a row of 1.1, whose points nothing
 * checked, is skipped by them and said so (sql/code/41_study_views.sql,
 * 21_latency_target.sql).
 */
#include "postgres.h"

#include <math.h>

#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "blocks.h"
#include "options.h"
#include "params.h"
#include "point.h"

/* a study's points and a search's windows are numbered from 1, at most */
#define POINT_MAX_NUMBER	1000000
#define POINT_MAX_TEXT		64

typedef enum PointType
{
	PT_INT,						/* a JSON number without a fraction */
	PT_NUMBER,					/* a finite JSON number */
	PT_TEXT						/* a JSON string of at most POINT_MAX_TEXT bytes */
} PointType;

typedef struct PointKey
{
	const char *key;
	PointType	type;
	int64		lo;				/* PT_INT: the range; 0, 0: an option's */
	int64		hi;
	const char *allowed;		/* in words, for the errors */
} PointKey;

static const PointKey study_keys[] = {
	{"n", PT_INT, 1, POINT_MAX_NUMBER, "the point's number, 1 or more"},
	{"processes", PT_INT, 0, 0, NULL},
	{"queue_depth", PT_INT, 0, 0, NULL},
	{"block_size", PT_INT, 0, 0, NULL},
	{"write_pct", PT_INT, 0, 0, NULL},
	{"region", PT_TEXT, 0, 0, "a region as START-END, in percent of the target, such as '0-40'"},
	{"pattern", PT_TEXT, 0, 0, "'random' or 'sequential'"},
	{"distribution", PT_TEXT, 0, 0, "a distribution, such as 'uniform' or 'zipf:1.2'"},
	{"small", PT_INT, 0, RANREAD_MAX_PROCESSES, "a matrix's small load, 0 or more processes"},
	{"large", PT_INT, 0, RANREAD_MAX_PROCESSES, "a matrix's large load, 0 or more streams"},
	{"test", PT_TEXT, 0, 0, "the name of a profile's test"},
	{"mode", PT_TEXT, 0, 0, "'read' or 'write'"},
	{"pass", PT_INT, 1, POINT_MAX_NUMBER, "a profile's pass, 1 or more"},
};

static const PointKey window_keys[] = {
	{"latency_target", PT_INT, 1, PG_INT64_MAX, "the search's id"},
	{"step", PT_INT, 1, POINT_MAX_NUMBER, "the window's number, 1 or more"},
	{"phase", PT_TEXT, 0, 0, "'search' or 'confirm'"},
	{"dimension", PT_TEXT, 0, 0, "'queue_depth' or 'processes'"},
	{"load", PT_INT, 1, RANREAD_MAX_INFLIGHT, "the window's load, 1 or more"},
	{"target_ms", PT_NUMBER, 0, 0, "the bound in milliseconds, a finite number greater than 0"},
	{"percentile", PT_NUMBER, 0, 0, "a percentile greater than 0 and less than 100"},
	{"max_load", PT_INT, 1, RANREAD_MAX_INFLIGHT, "the search's highest load, 1 or more"},
};

/* One key of a point as read: its value as text, and as a number */
typedef struct PointValue
{
	bool		given;
	char	   *text;
	int64		i;
	double		d;
} PointValue;

#define MAX_POINT_KEYS	lengthof(study_keys)

static const char *point_fn;
static bool point_checking;		/* a check before the search has its id */

/* Error: a value of the point that is not what its key takes */
static void
bad_value(const PointKey *k, const char *value)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s %s in the point of %s", k->key, params_shown(value), point_fn),
			 errhint("%s of a point is %s.", k->key, k->allowed)));
}

/* The range and words of an integer key that an option bounds */
static void
key_range(const PointKey *k, int64 *lo, int64 *hi, const char **allowed)
{
	const WorkloadOption *o;

	*lo = k->lo;
	*hi = k->hi;
	*allowed = k->allowed;
	if (k->lo != 0 || k->hi != 0)
		return;
	o = workload_option(k->key);
	*lo = o->min;
	*hi = o->max;
	*allowed = psprintf("%s from " INT64_FORMAT " to " INT64_FORMAT, o->name, o->min, o->max);
}

/* One value of a point, read and checked against its key */
static void
read_value(const PointKey *k, const JsonbValue *v, PointValue *out)
{
	char	   *end;

	out->given = true;
	if (v->type == jbvString)
		out->text = pnstrdup(v->val.string.val, v->val.string.len);
	else if (v->type == jbvNumeric)
		out->text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	else
		out->text = pstrdup(v->type == jbvNull ? "null" : v->type == jbvBool ? (v->val.boolean ? "true" : "false") :
							"(an array or object)");
	switch (k->type)
	{
		case PT_INT:
			{
				int64		lo;
				int64		hi;
				const char *allowed;
				PointKey	ranged = *k;

				key_range(k, &lo, &hi, &allowed);
				ranged.allowed = allowed;
				errno = 0;
				out->i = v->type == jbvNumeric ? strtoll(out->text, &end, 10) : 0;
				if (v->type != jbvNumeric || errno != 0 || end == out->text || *end != '\0' ||
					out->i < lo || out->i > hi)
					bad_value(&ranged, out->text);
				break;
			}
		case PT_NUMBER:
			out->d = v->type == jbvNumeric ? strtod(out->text, &end) : NAN;
			if (v->type != jbvNumeric || *end != '\0' || !isfinite(out->d))
				bad_value(k, out->text);
			break;
		case PT_TEXT:
			if (v->type != jbvString || strlen(out->text) > POINT_MAX_TEXT || out->text[0] == '\0')
				bad_value(k, out->text);
			break;
	}
}

/*
 * Read a point's keys against a table of them: every key known, each value
 * checked; vals[i] is keys[i]'s value
 */
static void
read_point(Jsonb *point, const PointKey *keys, int nkeys, PointValue *vals, const char *kind)
{
	JsonbIterator *it = JsonbIteratorInit(&point->root);
	JsonbIteratorToken tok;
	JsonbValue	k;
	JsonbValue	v;
	StringInfoData names;

	memset(vals, 0, sizeof(PointValue) * nkeys);
	while ((tok = JsonbIteratorNext(&it, &k, true)) != WJB_DONE)
	{
		char	   *key;
		int			i;

		if (tok != WJB_KEY)
			continue;
		key = pnstrdup(k.val.string.val, k.val.string.len);
		(void) JsonbIteratorNext(&it, &v, true);
		for (i = 0; i < nkeys; i++)
			if (strcmp(keys[i].key, key) == 0)
				break;
		/* a search checks its windows' spec before it takes its id */
		if (point_checking && i < nkeys && strcmp(key, "latency_target") == 0 && v.type == jbvNull)
		{
			vals[i].given = true;
			vals[i].text = "null";
			continue;
		}
		if (i == nkeys)
		{
			initStringInfo(&names);
			for (int j = 0; j < nkeys; j++)
				appendStringInfo(&names, "%s%s", j == 0 ? "" : j == nkeys - 1 ? " and " : ", ", keys[j].key);
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s\" in the point of %s", params_shown(key), point_fn),
					 errhint("The point of %s takes %s.", kind, names.data)));
		}
		read_value(&keys[i], &v, &vals[i]);
	}
}

/* A key of a table by name */
static const PointKey *
key_named(const PointKey *keys, int nkeys, const char *key)
{
	for (int i = 0; i < nkeys; i++)
		if (strcmp(keys[i].key, key) == 0)
			return &keys[i];
	elog(ERROR, "no key %s in a point's table", key);
	return NULL;				/* keep compiler quiet */
}

#define STUDY_KEY(name)		key_named(study_keys, lengthof(study_keys), name)
#define WINDOW_KEY(name)	key_named(window_keys, lengthof(window_keys), name)

/* The value of a key by name, or NULL when the point has none */
static const PointValue *
value_of(const PointKey *keys, int nkeys, const PointValue *vals, const char *key)
{
	for (int i = 0; i < nkeys; i++)
		if (strcmp(keys[i].key, key) == 0)
			return vals[i].given ? &vals[i] : NULL;
	return NULL;
}

/* Error: a coordinate that is not what the batch runs */
static void
not_the_batch(const char *key, const char *said, const char *runs)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s %s of the point of %s is not its batch's: %s", key, params_shown(said), point_fn, runs),
			 errdetail("A point says what its batch runs: its readers show the batch's figures under it."),
			 errhint("Give the batch the point's %s in its groups, or leave the coordinate out.", key)));
}

/* Every group's value of an integer option, compared with a coordinate */
static void
every_group_int(const BatchParams *p, const char *key, const PointValue *v, size_t offset)
{
	if (v == NULL)
		return;
	for (int g = 0; g < p->ngroups; g++)
	{
		int			have = *(const int *) ((const char *) &p->groups[g] + offset);

		if (have != v->i)
			not_the_batch(key, v->text, psprintf("group \"%s\" runs %d", p->groups[g].label, have));
	}
}

/* The processes of the group so labelled, 0 when there is none */
static int
labelled_processes(const BatchParams *p, const char *label)
{
	for (int g = 0; g < p->ngroups; g++)
		if (strcmp(p->groups[g].label, label) == 0)
			return p->groups[g].processes;
	return 0;
}

/* A study's coordinates that are options, against the batch */
static void
study_facts(const BatchParams *p, const PointValue *vals)
{
	const PointKey *keys = study_keys;
	int			n = lengthof(study_keys);
	const PointValue *v;

	if ((v = value_of(keys, n, vals, "processes")) != NULL && v->i != p->processes)
		not_the_batch("processes", v->text, psprintf("it runs %d", p->processes));
	every_group_int(p, "queue_depth", value_of(keys, n, vals, "queue_depth"), offsetof(GroupParams, queue_depth));
	every_group_int(p, "block_size", value_of(keys, n, vals, "block_size"), offsetof(GroupParams, block_size));
	every_group_int(p, "write_pct", value_of(keys, n, vals, "write_pct"), offsetof(GroupParams, write_pct));
	if ((v = value_of(keys, n, vals, "pattern")) != NULL)
	{
		if (strcmp(v->text, "random") != 0 && strcmp(v->text, "sequential") != 0)
			bad_value(STUDY_KEY("pattern"), v->text);
		for (int g = 0; g < p->ngroups; g++)
			if ((p->groups[g].pattern == PATTERN_RANDOM) != (strcmp(v->text, "random") == 0))
				not_the_batch("pattern", v->text, psprintf("group \"%s\" runs %s", p->groups[g].label,
														   p->groups[g].pattern == PATTERN_RANDOM ? "random" : "sequential"));
	}
	if ((v = value_of(keys, n, vals, "distribution")) != NULL)
	{
		BlockChoice b;
		char		why[256];

		if (!blocks_parse(v->text, &b, why, sizeof(why)))
			bad_value(STUDY_KEY("distribution"), v->text);
		for (int g = 0; g < p->ngroups; g++)
			if (strcmp(p->groups[g].blocks.text, b.text) != 0)
				not_the_batch("distribution", v->text, psprintf("group \"%s\" runs %s", p->groups[g].label,
																p->groups[g].blocks.text));
	}
	if ((v = value_of(keys, n, vals, "region")) != NULL)
	{
		double		lo;
		double		hi;
		int			used = 0;

		/* plain decimals only (no exponent, inf or nan), as the readers take them */
		if (strspn(v->text, "0123456789.-% ") != strlen(v->text) ||
			sscanf(v->text, " %lf - %lf %n", &lo, &hi, &used) < 2 ||
			(v->text[used] != '\0' && strcmp(v->text + used, "%") != 0) ||
			!(lo >= 0 && lo < hi && hi <= 100))
			bad_value(STUDY_KEY("region"), v->text);
		for (int g = 0; g < p->ngroups; g++)
			if (fabs(p->groups[g].region_start - lo) > 1e-9 || fabs(p->groups[g].region_end - hi) > 1e-9)
				not_the_batch("region", v->text, psprintf("group \"%s\" runs %g-%g", p->groups[g].label,
														  p->groups[g].region_start, p->groups[g].region_end));
	}
	if ((v = value_of(keys, n, vals, "small")) != NULL && v->i != labelled_processes(p, "small"))
		not_the_batch("small", v->text, psprintf("its group \"small\" runs %d process%s", labelled_processes(p, "small"), labelled_processes(p, "small") == 1 ? "" : "es"));
	if ((v = value_of(keys, n, vals, "large")) != NULL && v->i != labelled_processes(p, "large"))
		not_the_batch("large", v->text, psprintf("its group \"large\" runs %d process%s", labelled_processes(p, "large"), labelled_processes(p, "large") == 1 ? "" : "es"));
	if ((v = value_of(keys, n, vals, "mode")) != NULL)
	{
		int			want = strcmp(v->text, "read") == 0 ? 0 : strcmp(v->text, "write") == 0 ? 100 : -1;

		if (want < 0)
			bad_value(STUDY_KEY("mode"), v->text);
		for (int g = 0; g < p->ngroups; g++)
			if (p->groups[g].write_pct != want)
				not_the_batch("mode", v->text, psprintf("group \"%s\" writes %d%%", p->groups[g].label,
														p->groups[g].write_pct));
	}
}

/* A window's keys, all given, and its load the batch's */
static void
window_facts(const BatchParams *p, const PointValue *vals)
{
	const PointKey *keys = window_keys;
	int			n = lengthof(window_keys);
	const PointValue *dim = value_of(keys, n, vals, "dimension");
	const PointValue *load = value_of(keys, n, vals, "load");
	const PointValue *max_load = value_of(keys, n, vals, "max_load");
	const PointValue *v;

	for (int i = 0; i < n; i++)
		if (!vals[i].given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the point of %s lacks %s, which a window of a latency-target search has", point_fn,
							keys[i].key),
					 errhint("%s of a window is %s.", keys[i].key, keys[i].allowed)));
	if ((v = value_of(keys, n, vals, "phase")) != NULL &&
		strcmp(v->text, "search") != 0 && strcmp(v->text, "confirm") != 0)
		bad_value(WINDOW_KEY("phase"), v->text);
	if (strcmp(dim->text, "queue_depth") != 0 && strcmp(dim->text, "processes") != 0)
		bad_value(WINDOW_KEY("dimension"), dim->text);
	v = value_of(keys, n, vals, "target_ms");
	if (!(v->d > 0))
		bad_value(WINDOW_KEY("target_ms"), v->text);
	v = value_of(keys, n, vals, "percentile");
	if (!(v->d > 0 && v->d < 100))
		bad_value(WINDOW_KEY("percentile"), v->text);
	if (load->i > max_load->i)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid load %s in the point of %s: above its max_load %s", load->text, point_fn,
						max_load->text),
				 errhint("A window's load is from 1 to the search's max_load.")));
	if (strcmp(dim->text, "processes") == 0 && load->i != p->processes)
		not_the_batch("load", load->text, psprintf("it runs %d process%s", p->processes, p->processes == 1 ? "" : "es"));
	if (strcmp(dim->text, "queue_depth") == 0)
		every_group_int(p, "load", load, offsetof(GroupParams, queue_depth));
}

/*
 * The point of a batch (NULL: none), checked against the batch whose
 * groups p holds; study is the spec's study id (0: none), fn the function
 * to name.  checking: the spec is read to be checked, not run, and a
 * window's latency_target may be null (its search checks the spec of its
 * windows before it takes its id).
 */
void
point_check(const BatchParams *p, Jsonb *point, int64 study, const char *fn, bool checking)
{
	PointValue	vals[MAX_POINT_KEYS];
	bool		window;

	point_fn = fn;
	point_checking = checking;
	if (point == NULL)
	{
		if (study != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("a batch of study " INT64_FORMAT " of %s needs its point", study, fn),
					 errhint("A study's point is {\"n\": its number, and its coordinates}, such as {\"n\": 1, \"processes\": 8}.")));
		return;
	}
	window = getKeyJsonValueFromContainer(&point->root, "latency_target", 14, NULL) != NULL;
	if (window && study != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the point of %s names a latency-target search, and the batch is of study " INT64_FORMAT, fn, study),
				 errhint("A batch is a point of a study or a window of a search, not both.")));
	if (!window && study == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the point of %s belongs to no study or latency-target search", fn),
				 errhint("A study's batch carries \"study\" beside its point, a search's window \"latency_target\" in it; leave the point out to run the batch on its own.")));
	if (window)
	{
		read_point(point, window_keys, lengthof(window_keys), vals, "a latency-target search's window");
		window_facts(p, vals);
	}
	else
	{
		read_point(point, study_keys, lengthof(study_keys), vals, "a study");
		if (!vals[0].given)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the point of %s lacks n, the point's number in its study", fn),
					 errhint("A study's point is {\"n\": its number, and its coordinates}, such as {\"n\": 1, \"processes\": 8}.")));
		study_facts(p, vals);
	}
}
