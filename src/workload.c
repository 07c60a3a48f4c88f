/*
 * spec.c
 *		A batch described in JSON: the groups of ranread_mix, and the whole
 *		batch that ranread_run_step takes from the functions that run many
 *		(ranread_sweep and the like).  Read into the same BatchParams as
 *		ranread_run's arguments, with the same checks (params.c).
 *
 * A group is an object of options, each optional but processes:
 *	 {"label": "oltp", "processes": 16, "block_size": 8192, "write_pct": 30,
 *	  "queue_depth": 8, "pattern": "random", "region_start": 0,
 *	  "region_end": 100, "rate_iops": null, "distribution": "hotset:95/5",
 *	  "iterations": null, "target": "ranread"}
 * Defaults are ranread_run's; a label defaults to g1, g2, ...  A key that is
 * not an option, a value of the wrong type, a repeated label, and every
 * value ranread_run would refuse are errors naming the group and the key,
 * before anything runs.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "calls.h"
#include "params.h"

#define GROUP_OPTIONS "label, processes, block_size, write_pct, queue_depth, pattern, region_start, region_end, rate_iops, distribution, sync, iterations and target"
#define SPEC_OPTIONS "groups, duration, iterations, warmup, seed, workers, steady_state, start_at, target, sweep, study, point, fleet and caller"

/* Where the value being read belongs, for messages */
static const char *where_fn;
static const char *where_group;

/* The name of a JSON value's type, for messages */
static const char *
json_type_name(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		default:
			return "an array or object";
	}
}

/* Error for a value of the wrong type */
static void
wrong_type(const char *key, const JsonbValue *v, const char *want)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg(where_group ? "%s of group \"%s\" of %s must be %s, not %s" : "%s%s of %s must be %s, not %s",
					key, where_group ? where_group : "", where_fn, want, json_type_name(v))));
}

/* An integer value */
static int64
json_int(const char *key, const JsonbValue *v)
{
	char	   *text;
	char	   *end;
	long long	i;

	if (v->type != jbvNumeric)
		wrong_type(key, v, "an integer");
	text = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	errno = 0;
	i = strtoll(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg(where_group ? "%s of group \"%s\" of %s must be an integer, not %s" : "%s%s of %s must be an integer, not %s",
						key, where_group ? where_group : "", where_fn, text)));
	return (int64) i;
}

/* An int4 value, checked against its range by the caller */
static int
json_int4(const char *key, const JsonbValue *v)
{
	int64		i = json_int(key, v);

	params_range(key, i, PG_INT32_MIN, PG_INT32_MAX, NULL);
	return (int) i;
}

/* A float value */
static double
json_float(const char *key, const JsonbValue *v)
{
	if (v->type != jbvNumeric)
		wrong_type(key, v, "a number");
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

/* A string value, as a C string */
static char *
json_text(const char *key, const JsonbValue *v)
{
	if (v->type != jbvString)
		wrong_type(key, v, "a string");
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/* The CONTEXT line of an input function's error: the key it came from */
static void
json_key_context(void *arg)
{
	if (where_group)
		errcontext("%s of group \"%s\" of %s", (const char *) arg, where_group, where_fn);
	else
		errcontext("%s of %s", (const char *) arg, where_fn);
}

/*
 * A string value read by a type's input function (interval_in,
 * timestamptz_in), whose errors then say which key they are about
 */
static Datum
json_typed(const char *key, const JsonbValue *v, PGFunction in)
{
	char	   *s = json_text(key, v);
	ErrorContextCallback cb;
	Datum		d;

	cb.callback = json_key_context;
	cb.arg = unconstify(char *, key);
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	d = DirectFunctionCall3(in, CStringGetDatum(s), ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	error_context_stack = cb.previous;
	return d;
}

/* An interval value: a string interval_in accepts */
static Interval *
json_interval(const char *key, const JsonbValue *v)
{
	return DatumGetIntervalP(json_typed(key, v, interval_in));
}

/* A timestamptz value: a string timestamptz_in accepts */
static TimestampTz
json_timestamptz(const char *key, const JsonbValue *v)
{
	return DatumGetTimestampTz(json_typed(key, v, timestamptz_in));
}

/*
 * The next key of the object being iterated, with its value in *v (nested
 * objects and arrays as one binary value); NULL after the last
 */
static char *
json_next_key(JsonbIterator **it, JsonbValue *v)
{
	JsonbIteratorToken tok;
	JsonbValue	k;

	while ((tok = JsonbIteratorNext(it, &k, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			(void) JsonbIteratorNext(it, v, true);
			return pnstrdup(k.val.string.val, k.val.string.len);
		}
	return NULL;
}

/*
 * The label of a group object (g1, g2 ... when it has none), into g->label.
 * Refused: a label that is not a string, and an empty one (the history
 * keeps every group by its label).  One too long for a group's label is cut
 * on a character boundary, with a NOTICE.
 */
static void
group_label(GroupParams *g, JsonbContainer *obj, int index)
{
	JsonbValue *v = getKeyJsonValueFromContainer(obj, "label", 5, NULL);
	char	   *label;

	if (v == NULL || v->type == jbvNull)
	{
		snprintf(g->label, NAMEDATALEN, "g%d", index + 1);
		return;
	}
	if (v->type != jbvString)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("label of group %d of %s must be a string, not %s", index + 1, where_fn,
						json_type_name(v)),
				 errhint("A label names the group's rows in the results and the history, such as \"oltp\".")));
	label = pnstrdup(v->val.string.val, v->val.string.len);
	if (label[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("label of group %d of %s must not be empty", index + 1, where_fn),
				 errhint("A label names the group's rows in the results and the history, such as \"oltp\"; leave it out for g%d.",
						 index + 1)));
	if (ranread_strlcpy(g->label, label, NAMEDATALEN))
		ereport(NOTICE,
				(errmsg("label of group %d of %s is cut to %zu bytes: \"%s\"", index + 1, where_fn,
						strlen(g->label), g->label),
				 errdetail("A group's label is at most %d bytes; it was %zu. It is cut between characters.",
						   NAMEDATALEN - 1, strlen(label))));
}

/* Read one group's options */
static void
group_from_json(BatchParams *p, GroupParams *g, JsonbContainer *obj, int index,
				const char *default_target, int64 default_iterations, bool named)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	char	   *key;
	JsonbValue	v;
	char	   *target = pstrdup(default_target);
	double		region_start = 0;
	double		region_end = 100;
	const char *dist = "uniform";
	bool		rate_null = true;
	int			rate = 0;
	bool		processes_given = false;

	where_group = NULL;
	group_label(g, obj, index);
	where_group = named ? g->label : NULL;
	params_owner(where_fn, where_group);
	g->iterations = default_iterations;
	g->block_size = 8192;
	g->queue_depth = 1;
	g->pattern = PATTERN_RANDOM;
	g->processes = 0;

	while ((key = json_next_key(&it, &v)) != NULL)
	{
		if (strcmp(key, "label") == 0)
			continue;
		if (v.type == jbvNull && strcmp(key, "processes") != 0)
			continue;			/* not given: the default */
		if (strcmp(key, "processes") == 0)
		{
			params_require(v.type == jbvNull, "processes");
			g->processes = json_int4(key, &v);
			processes_given = true;
		}
		else if (strcmp(key, "iterations") == 0)
		{
			g->iterations = json_int(key, &v);
			params_range("iterations", g->iterations, 1, PG_INT64_MAX / 2,
						 "iterations is how many I/Os each process does.");
		}
		else if (strcmp(key, "block_size") == 0)
			g->block_size = json_int4(key, &v);
		else if (strcmp(key, "write_pct") == 0)
			g->write_pct = json_int4(key, &v);
		else if (strcmp(key, "queue_depth") == 0)
			g->queue_depth = json_int4(key, &v);
		else if (strcmp(key, "pattern") == 0)
			g->pattern = params_pattern(json_text(key, &v));
		else if (strcmp(key, "region_start") == 0)
			region_start = json_float(key, &v);
		else if (strcmp(key, "region_end") == 0)
			region_end = json_float(key, &v);
		else if (strcmp(key, "rate_iops") == 0)
		{
			rate = json_int4(key, &v);
			rate_null = false;
		}
		else if (strcmp(key, "distribution") == 0)
			dist = json_text(key, &v);
		else if (strcmp(key, "sync") == 0)
			g->sync = params_sync(json_text(key, &v));
		else if (strcmp(key, "target") == 0)
			target = json_text(key, &v);
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\" in group \"%s\" of %s", key, g->label, where_fn),
					 errhint("A group's options are " GROUP_OPTIONS ".")));
	}
	if (!processes_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes of group \"%s\" of %s must be given", g->label, where_fn),
				 errhint("A group is an object such as {\"label\": \"oltp\", \"processes\": 16}.")));
	if (target[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target of group \"%s\" of %s must be a non-empty name", g->label, where_fn)));
	params_region(g, region_start, region_end);
	params_distribution(g, dist);
	params_check_group(g);
	params_rate(g, rate_null, rate, true);
	g->target = params_target(p, target);
}

/*
 * The groups of a batch from a JSON array of group objects.  Every group's
 * iterations default to default_iterations (0: the duration ends them).
 * Errors name the group in a mix, and of several groups.
 */
void
spec_groups(BatchParams *p, Jsonb *groups, const char *fn, const char *default_target,
			int64 default_iterations, bool mix)
{
	int			n;

	where_fn = fn;
	where_group = NULL;
	params_owner(fn, NULL);
	if (groups == NULL || !JB_ROOT_IS_ARRAY(groups) || JB_ROOT_IS_SCALAR(groups))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("groups of %s must be a JSON array of groups", fn),
				 errhint("For example '[{\"label\": \"oltp\", \"processes\": 16}, {\"label\": \"scan\", \"processes\": 1, \"block_size\": 1048576, \"pattern\": \"sequential\"}]'.")));
	n = JsonContainerSize(&groups->root);
	if (n < 1 || n > RANREAD_MAX_GROUPS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("groups of %s must hold 1 to %d groups, not %d", fn, RANREAD_MAX_GROUPS, n),
				 errhint(n < 1 ? "An empty mix runs nothing: give at least one group." : "Merge groups that do the same.")));

	p->ngroups = n;
	for (int i = 0; i < n; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(&groups->root, i);

		if (v->type != jbvBinary || JsonContainerIsArray(v->val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("group %d of %s must be a JSON object of options, not %s", i + 1, fn,
							v->type == jbvBinary ? "an array" : json_type_name(v)),
					 errhint("A group's options are " GROUP_OPTIONS ".")));
		group_from_json(p, &p->groups[i], v->val.binary.data, i, default_target, default_iterations,
						mix || n > 1);
		for (int j = 0; j < i; j++)
			if (strcmp(p->groups[j].label, p->groups[i].label) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("groups %d and %d of %s are both labelled \"%s\"", j + 1, i + 1, fn,
								p->groups[i].label),
						 errhint("Each group needs a label of its own: its rows are told apart by it.")));
		if (strcmp(p->groups[i].label, "total") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("group %d of %s may not be labelled \"total\"", i + 1, fn),
					 errhint("\"total\" labels the row of the whole batch.")));
	}
	where_group = NULL;
	params_check_totals(p, fn);
}

/* Error: a run step names a call this session does not run */
static void
not_my_call(RanreadCallKind kind, int64 id, const char *fn)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s " INT64_FORMAT " of %s is not a %s this session runs",
					ranread_call_kind_name(kind), id, fn,
					kind == CALL_LATENCY_TARGET ? "latency-target search" : ranread_call_kind_name(kind)),
			 errdetail("A batch joins a sweep, a study, a latency-target search or a fleet only from the call that runs it, while it runs."),
			 errhint("Leave the key out to run the batch on its own.")));
}

/*
 * The ids of a run step that put its batch into a sweep, a study, a
 * latency-target search (its point's "latency_target") or a fleet must be
 * those of the call that runs this step: registered by this session in this
 * transaction (calls.c).  A fleet's node runs the steps of a coordinator on
 * another server, which registers there: a node takes a fleet id from the
 * session the coordinator opened for that fleet (its application_name is
 * "ranread_fleet ID"), and only with the fleet's start_at.
 */
static void
spec_check_calls(BatchParams *p, bool have_latency_target, int64 latency_target, const char *fn)
{
	if (p->sweep != 0 && !ranread_call_mine(CALL_SWEEP, p->sweep))
		not_my_call(CALL_SWEEP, p->sweep, fn);
	if (p->study != 0 && !ranread_call_mine(CALL_STUDY, p->study))
		not_my_call(CALL_STUDY, p->study, fn);
	if (have_latency_target && !ranread_call_mine(CALL_LATENCY_TARGET, latency_target))
		not_my_call(CALL_LATENCY_TARGET, latency_target, fn);
	if (p->fleet != 0 && !ranread_call_mine(CALL_FLEET, p->fleet))
	{
		char	   *mine = psprintf("ranread_fleet " INT64_FORMAT, p->fleet);

		if (p->start_at == 0 || application_name == NULL || strcmp(application_name, mine) != 0)
			not_my_call(CALL_FLEET, p->fleet, fn);
	}
}

/*
 * A whole batch from JSON (ranread_run_step): the groups and the batch's
 * options.  Returns the function to name in messages (spec's caller).
 */
const char *
spec_batch(BatchParams *p, Jsonb *spec, int *workers)
{
	JsonbIterator *it;
	char	   *key;
	JsonbValue	v;
	JsonbValue *cv;
	Jsonb	   *groups = NULL;
	char	   *target = "ranread";
	int64		iterations = 0;
	const char *fn = "ranread_run_step";
	bool		have_seed = false;
	int64		latency_target = 0;
	bool		have_latency_target = false;

	if (spec == NULL || !JB_ROOT_IS_OBJECT(spec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the spec of ranread_run_step must be a JSON object"),
				 errhint("Its keys are " SPEC_OPTIONS ".")));
	cv = getKeyJsonValueFromContainer(&spec->root, "caller", 6, NULL);
	if (cv && cv->type == jbvString)
		fn = pnstrdup(cv->val.string.val, cv->val.string.len);
	where_fn = fn;
	where_group = NULL;
	params_owner(fn, NULL);

	it = JsonbIteratorInit(&spec->root);
	while ((key = json_next_key(&it, &v)) != NULL)
	{
		if (strcmp(key, "caller") == 0 || v.type == jbvNull)
			continue;
		if (strcmp(key, "groups") == 0)
		{
			if (v.type != jbvBinary)
				wrong_type(key, &v, "an array of groups");
			groups = JsonbValueToJsonb(&v);
		}
		else if (strcmp(key, "duration") == 0)
		{
			p->duration = *json_interval(key, &v);
			p->duration_ns = params_interval(&p->duration, "duration", false);
		}
		else if (strcmp(key, "warmup") == 0)
		{
			p->warmup = *json_interval(key, &v);
			p->warmup_ns = params_interval(&p->warmup, "warmup", true);
		}
		else if (strcmp(key, "iterations") == 0)
		{
			iterations = json_int(key, &v);
			params_range("iterations", iterations, 1, PG_INT64_MAX / 2,
						 "iterations is how many I/Os each process does.");
		}
		else if (strcmp(key, "seed") == 0)
		{
			p->seed = json_int(key, &v);
			have_seed = true;
		}
		else if (strcmp(key, "workers") == 0)
			*workers = json_int4(key, &v);
		else if (strcmp(key, "steady_state") == 0)
			params_steady(p, json_text(key, &v));
		else if (strcmp(key, "target") == 0)
			target = json_text(key, &v);
		else if (strcmp(key, "sweep") == 0)
			p->sweep = json_int(key, &v);
		else if (strcmp(key, "study") == 0)
			p->study = json_int(key, &v);
		else if (strcmp(key, "fleet") == 0)
			p->fleet = json_int(key, &v);
		else if (strcmp(key, "start_at") == 0)
			params_start_at(p, json_timestamptz(key, &v));
		else if (strcmp(key, "point") == 0)
		{
			char	   *text;
			JsonbValue *lt;

			if (v.type != jbvBinary)
				wrong_type(key, &v, "an object of the point's coordinates");
			if (JsonContainerIsArray(v.val.binary.data))
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("point of %s must be an object of the point's coordinates, not an array", fn),
						 errhint("A point names its coordinates in the study's dimensions, such as {\"write_pct\": 20, \"processes\": 8}.")));
			lt = getKeyJsonValueFromContainer(v.val.binary.data, "latency_target", 14, NULL);
			if (lt != NULL && lt->type != jbvNull)
			{
				latency_target = json_int("latency_target of the point", lt);
				have_latency_target = true;
			}
			text = JsonbToCString(NULL, v.val.binary.data, v.val.binary.len);
			if (strlen(text) >= RANREAD_POINT_LEN)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("the point of the spec of %s is %zu bytes of JSON, more than %d",
								fn, strlen(text), RANREAD_POINT_LEN - 1),
						 errhint("A point names its coordinates in the study's dimensions, such as {\"write_pct\": 20, \"processes\": 8}.")));
			strlcpy(p->point, text, RANREAD_POINT_LEN);
		}
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s\" in the spec of %s", key, fn),
					 errhint("Its keys are " SPEC_OPTIONS ".")));
	}
	if (iterations == 0 && p->duration_ns == 0)
		iterations = RANREAD_DEFAULT_ITERATIONS;
	p->seed = params_seed(!have_seed, p->seed);
	spec_groups(p, groups, fn, target, iterations, false);
	spec_check_calls(p, have_latency_target, latency_target, fn);
	return fn;
}
