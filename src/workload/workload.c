/*
 * workload.c
 *		The one definition of a workload.  Every SQL function that runs
 *		batches hands its workload on as one spec, the jsonb that
 *		ranread_run_step takes, and this file reads it: the option table
 *		(options.c) says for each option where it stands in a spec, its type, its
 *		default, what is allowed and what it means; the parser reads a spec
 *		through that table into the BatchParams the leader runs, with the
 *		checks of params.c.
 *
 * A spec is an object of the batch's options and its groups:
 *	 {"duration": "30 s", "warmup": "0", "seed": 7, "iterations": null,
 *	  "groups": [{"label": "oltp", "processes": 16, "block_size": 8192,
 *				  "write_pct": 30, "queue_depth": 8, "pattern": "random",
 *				  "region_start": 0, "region_end": 100, "rate_iops": null,
 *				  "distribution": "hotset:95/5", "sync": null,
 *				  "target": "ranread"}],
 *	  "caller": "ranread_sweep", "sweep": 12}
 * Every option but a group's processes may be left out (or null) for its
 * default; iterations and target may stand at the top too, as the default
 * of every group.  A label defaults to g1, g2, ...  A key that is not an
 * option, a value of the wrong type, a repeated label, and every value the
 * checks refuse are errors naming the key, the group when there are several
 * (or in a mix) and the function the user called (the spec's "caller"),
 * before anything runs.
 *
 * A new option is one row of the table (options.c) and its case in apply_batch or
 * apply_group (and its field in BatchParams or GroupParams); the SQL
 * functions that take it by name add it to their signature, and hand it on
 * by that name (forward.c).
 *
 * The SQL functions here: ranread_options() lists the table;
 * ranread_internal.ranread_spec builds a spec from options given flat, by
 * name; ranread_internal.ranread_spec_check reads one without running it;
 * ranread_internal.ranread_require is the one null check of the PL/pgSQL
 * functions.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"

#include "calls.h"
#include "leader.h"
#include "params.h"
#include "point.h"
#include "serverpath.h"
#include "workload.h"

PG_FUNCTION_INFO_V1(ranread_options);
PG_FUNCTION_INFO_V1(ranread_spec);
PG_FUNCTION_INFO_V1(ranread_spec_check);
PG_FUNCTION_INFO_V1(ranread_require);
PG_FUNCTION_INFO_V1(ranread_defaults);


/* Where the value being read belongs, for messages */
static const char *where_fn;
static const char *where_group;

/* May the option stand at the top of a spec, or in a group? */
static bool
option_at_top(const WorkloadOption *o)
{
	return o->level == LEVEL_BATCH || o->both;
}

static bool
option_in_group(const WorkloadOption *o)
{
	return o->level == LEVEL_GROUP || o->both;
}

/* The names of the options a spec takes at the top, or in a group */
static char *
option_names(bool in_group)
{
	StringInfoData s;
	int			last = -1;

	for (int i = 0; i < workload_noptions; i++)
		if (in_group ? option_in_group(&workload_options[i]) : option_at_top(&workload_options[i]))
			last = i;
	initStringInfo(&s);
	for (int i = 0; i < workload_noptions; i++)
		if (in_group ? option_in_group(&workload_options[i]) : option_at_top(&workload_options[i]))
			appendStringInfo(&s, "%s%s", s.len == 0 ? "" : i == last ? " and " : ", ", workload_options[i].name);
	return s.data;
}

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
						key, where_group ? where_group : "", where_fn, params_shown(text))));
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

/*
 * A float value: a number, or the strings of float8 that JSON has no number
 * for (NaN, Infinity, -Infinity), as SQL hands a float8 on
 */
static double
json_float(const char *key, const JsonbValue *v)
{
	if (v->type == jbvString)
	{
		char	   *s = pnstrdup(v->val.string.val, v->val.string.len);

		if (pg_strcasecmp(s, "NaN") == 0 || pg_strcasecmp(s, "Infinity") == 0 ||
			pg_strcasecmp(s, "-Infinity") == 0)
			return float8in_internal(s, NULL, "double precision", s);
	}
	if (v->type != jbvNumeric)
		wrong_type(key, v, "a number");
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(v->val.numeric)));
}

/* A boolean value: true or false (JSON's, as SQL hands a boolean on) */
static bool
json_bool(const char *key, const JsonbValue *v)
{
	if (v->type != jbvBool)
		wrong_type(key, v, "a boolean (true or false)");
	return v->val.boolean;
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

/* An option's default as the JSON value a spec would give */
static JsonbValue
default_json(const WorkloadOption *o)
{
	JsonbValue	v;

	if (o->type == WT_BOOL)
	{
		v.type = jbvBool;
		v.val.boolean = strcmp(o->default_value, "true") == 0;
	}
	else if (o->type == WT_INT4 || o->type == WT_INT8 || o->type == WT_FLOAT8)
	{
		v.type = jbvNumeric;
		v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(o->default_value),
															ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	}
	else
	{
		v.type = jbvString;
		v.val.string.val = unconstify(char *, o->default_value);
		v.val.string.len = strlen(o->default_value);
	}
	return v;
}

/* What a group's options add up to while they are read */
typedef struct GroupRead
{
	BatchParams *p;
	GroupParams *g;
	char	   *target;
	double		region_start;
	double		region_end;
	bool		processes_given;
	bool		named;			/* errors name the group */
	bool		prefetch_given; /* its own effective_io_concurrency */
} GroupRead;

/* One option of a group, its value not null */
static void
apply_group(GroupRead *r, const WorkloadOption *o, const JsonbValue *v)
{
	GroupParams *g = r->g;
	const char *key = o->name;

	switch (o->key)
	{
		case OPT_PROCESSES:
			g->processes = json_int4(key, v);
			r->processes_given = true;
			break;
		case OPT_ITERATIONS:
			g->iterations = json_int(key, v);
			params_option_range(o, g->iterations, NULL);
			break;
		case OPT_TARGET:
			r->target = json_text(key, v);
			break;
		case OPT_BLOCK_SIZE:
			g->block_size = json_int4(key, v);
			break;
		case OPT_WRITE_PCT:
			g->write_pct = json_int4(key, v);
			break;
		case OPT_QUEUE_DEPTH:
			g->queue_depth = json_int4(key, v);
			break;
		case OPT_PATTERN:
			g->pattern = params_pattern(json_text(key, v));
			break;
		case OPT_REGION_START:
			r->region_start = json_float(key, v);
			break;
		case OPT_REGION_END:
			r->region_end = json_float(key, v);
			break;
		case OPT_RATE_IOPS:
			params_rate(g, false, json_int4(key, v), r->named);
			break;
		case OPT_DISTRIBUTION:
			params_distribution(g, json_text(key, v));
			break;
		case OPT_SYNC:
			g->sync = params_sync(json_text(key, v));
			break;
		case OPT_VERIFY:
			g->verify = json_bool(key, v);
			break;
		case OPT_PATH:
			g->path = params_path(json_text(key, v));
			break;
		case OPT_EFFECTIVE_IO_CONCURRENCY:
			g->prefetch = json_int4(key, v);
			params_option_range(o, g->prefetch, NULL);
			r->prefetch_given = true;
			break;
		default:
			elog(ERROR, "option %s is not a group's", key);
	}
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
	const char *hint = workload_option_by_key(OPT_LABEL)->help;
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
				 errhint("%s", hint)));
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

/* A target name must not be empty: at the top of a spec, or in a group */
static void
check_target(const char *target, const char *whose)
{
	if (target[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("target of %s must be a non-empty name", whose),
				 errhint("The default target is named \"ranread\".")));
}

/*
 * What the top of a spec gives every group as its default: the options
 * that may stand at either level (the table's "both")
 */
typedef struct GroupDefaults
{
	const char *target;
	int64		iterations;		/* 0: none, the duration ends the run */
	RanreadPath path;
	int			prefetch;		/* -1: none given */
} GroupDefaults;

/* Read one group's options: the table's defaults, then the object's */
static void
group_from_json(BatchParams *p, GroupParams *g, JsonbContainer *obj, int index,
				const GroupDefaults *d, bool named)
{
	JsonbIterator *it = JsonbIteratorInit(obj);
	GroupRead	r = {p, g, pstrdup(d->target), 0, 0, false, named, false};
	char	   *key;
	JsonbValue	v;

	where_group = NULL;
	group_label(g, obj, index);
	where_group = named ? g->label : NULL;
	params_owner(where_fn, where_group);
	g->iterations = d->iterations;
	g->path = d->path;
	g->prefetch = d->prefetch;
	for (int i = 0; i < workload_noptions; i++)
		if (workload_options[i].level == LEVEL_GROUP && !workload_options[i].both && workload_options[i].default_value != NULL)
		{
			JsonbValue	d = default_json(&workload_options[i]);

			apply_group(&r, &workload_options[i], &d);
		}

	while ((key = json_next_key(&it, &v)) != NULL)
	{
		const WorkloadOption *o = workload_option(key);

		if (o != NULL && o->key == OPT_LABEL)
			continue;			/* read first, by group_label */
		if (o == NULL || !option_in_group(o))
		{
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown option \"%s\" in group \"%s\" of %s", params_shown(key), g->label, where_fn),
					 errhint("A group's options are %s.", option_names(true))));
		}
		if (v.type == jbvNull)
		{
			/* not given: the default, but a group has no default processes */
			params_require(o->key == OPT_PROCESSES, key);
			continue;
		}
		apply_group(&r, o, &v);
	}
	if (!r.processes_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes of group \"%s\" of %s must be given", g->label, where_fn),
				 errhint("A group is an object such as {\"label\": \"oltp\", \"processes\": 16}.")));
	check_target(r.target, named ? psprintf("group \"%s\" of %s", g->label, where_fn) : where_fn);
	params_region(g, r.region_start, r.region_end);
	params_check_group(g);
	serverpath_check_prefetch(g, r.prefetch_given, named ? psprintf("group \"%s\" of %s", g->label, where_fn) : where_fn);
	g->target = params_target(p, r.target);
}

/*
 * The groups of a batch from a JSON array of group objects, each with the
 * defaults the top of the spec gives.  Errors name the group in a mix, and
 * of several groups.
 */
static void
read_groups(BatchParams *p, Jsonb *groups, const GroupDefaults *d, bool mix)
{
	const char *fn = where_fn;
	int			n;

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
					 errhint("A group's options are %s.", option_names(true))));
		group_from_json(p, &p->groups[i], v->val.binary.data, i, d, mix || n > 1);
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
check_calls(BatchParams *p, bool have_latency_target, int64 latency_target, const char *fn)
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

/* What the batch's options add up to while they are read */
typedef struct BatchRead
{
	BatchParams *p;
	int		   *workers;
	Jsonb	   *groups;
	char	   *target;			/* every group's default */
	int64		iterations;		/* every group's default; 0: none */
	bool		have_seed;
	bool		have_workers;
	bool		have_latency_target;
	int64		latency_target;
	RanreadPath path;			/* every group's default */
	int			prefetch;		/* every group's default; -1: none */
	Jsonb	   *point;			/* the point, checked once the groups are read */
} BatchRead;

/* A study point's coordinates (or a search's window), kept as JSON */
static void
apply_point(BatchRead *r, const JsonbValue *v)
{
	char	   *text;
	JsonbValue *lt;

	if (v->type != jbvBinary)
		wrong_type("point", v, "an object of the point's coordinates");
	if (JsonContainerIsArray(v->val.binary.data))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("point of %s must be an object of the point's coordinates, not an array", where_fn),
				 errhint("A point names its coordinates in the study's dimensions, such as {\"write_pct\": 20, \"processes\": 8}.")));
	lt = getKeyJsonValueFromContainer(v->val.binary.data, "latency_target", 14, NULL);
	if (lt != NULL && lt->type != jbvNull)
	{
		r->latency_target = json_int("latency_target of the point", lt);
		r->have_latency_target = true;
	}
	text = JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	if (strlen(text) >= RANREAD_POINT_LEN)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the point of the spec of %s is %zu bytes of JSON, more than %d",
						where_fn, strlen(text), RANREAD_POINT_LEN - 1),
				 errhint("A point names its coordinates in the study's dimensions, such as {\"write_pct\": 20, \"processes\": 8}.")));
	strlcpy(r->p->point, text, RANREAD_POINT_LEN);
	r->point = JsonbValueToJsonb(unconstify(JsonbValue *, v));
}

/* One option at the top of a spec, its value not null */
static void
apply_batch(BatchRead *r, const WorkloadOption *o, const JsonbValue *v)
{
	BatchParams *p = r->p;
	const char *key = o->name;

	switch (o->key)
	{
		case OPT_GROUPS:
			if (v->type != jbvBinary)
				wrong_type(key, v, "an array of groups");
			r->groups = JsonbValueToJsonb(unconstify(JsonbValue *, v));
			break;
		case OPT_DURATION:
			p->duration = *DatumGetIntervalP(json_typed(key, v, interval_in));
			p->duration_ns = params_interval_hint(&p->duration, key, false, o->help);
			break;
		case OPT_WARMUP:
			p->warmup = *DatumGetIntervalP(json_typed(key, v, interval_in));
			p->warmup_ns = params_interval_hint(&p->warmup, key, true, o->help);
			break;
		case OPT_ITERATIONS:
			r->iterations = json_int(key, v);
			params_option_range(o, r->iterations, NULL);
			break;
		case OPT_SEED:
			p->seed = json_int(key, v);
			r->have_seed = true;
			break;
		case OPT_WORKERS:
			*r->workers = json_int4(key, v);
			r->have_workers = true;
			break;
		case OPT_STEADY_STATE:
			params_steady(p, json_text(key, v));
			break;
		case OPT_TARGET:
			r->target = json_text(key, v);
			check_target(r->target, where_fn);
			break;
		case OPT_START_AT:
			params_start_at(p, DatumGetTimestampTz(json_typed(key, v, timestamptz_in)));
			break;
		case OPT_IO_PRIORITY:
			params_io_priority(p, json_text(key, v));
			break;
		case OPT_SWEEP:
			p->sweep = json_int(key, v);
			break;
		case OPT_STUDY:
			p->study = json_int(key, v);
			break;
		case OPT_FLEET:
			p->fleet = json_int(key, v);
			break;
		case OPT_POINT:
			apply_point(r, v);
			break;
		case OPT_PATH:
			r->path = params_path(json_text(key, v));
			break;
		case OPT_EFFECTIVE_IO_CONCURRENCY:
			r->prefetch = json_int4(key, v);
			params_option_range(o, r->prefetch, NULL);
			break;
		default:
			elog(ERROR, "option %s is not a batch's", key);
	}
}

/*
 * A whole batch from its spec: the groups and the batch's options, every
 * check that needs no target made.  flags: WORKLOAD_MIX for ranread_mix's
 * groups (named in errors, a duration or iterations needed);
 * WORKLOAD_TRUST_SWEEP for 1.0's sweep, whose ids are not registered;
 * WORKLOAD_CHECK for a spec read to be checked, not run.
 * *workers gets the workers asked for (0: choose).  Returns the function to
 * name in messages (the spec's caller).
 */
const char *
workload_batch(BatchParams *p, Jsonb *spec, int *workers, int flags)
{
	BatchRead	r = {p, workers, NULL, NULL, 0, false, false, false, 0, PATH_DEVICE, -1, NULL};
	GroupDefaults d;
	JsonbIterator *it;
	char	   *key;
	JsonbValue	v;
	JsonbValue *cv;
	const char *fn = workload_option_by_key(OPT_CALLER)->default_value;

	if (spec == NULL || !JB_ROOT_IS_OBJECT(spec))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the spec of ranread_run_step must be a JSON object"),
				 errhint("Its keys are %s.", option_names(false))));
	cv = getKeyJsonValueFromContainer(&spec->root, "caller", 6, NULL);
	if (cv && cv->type == jbvString)
		fn = pnstrdup(cv->val.string.val, cv->val.string.len);
	where_fn = fn;
	where_group = NULL;
	params_owner(fn, NULL);
	*workers = 0;
	p->mix = (flags & WORKLOAD_MIX) != 0;
	for (int i = 0; i < workload_noptions; i++)
		if (option_at_top(&workload_options[i]) && workload_options[i].default_value != NULL &&
			workload_options[i].key != OPT_CALLER)
		{
			JsonbValue	d = default_json(&workload_options[i]);

			apply_batch(&r, &workload_options[i], &d);
		}

	it = JsonbIteratorInit(&spec->root);
	while ((key = json_next_key(&it, &v)) != NULL)
	{
		const WorkloadOption *o = workload_option(key);

		if (o == NULL || !option_at_top(o))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown key \"%s\" in the spec of %s", params_shown(key), fn),
					 errhint("Its keys are %s.", option_names(false))));
		if (o->key == OPT_CALLER || v.type == jbvNull)
			continue;
		apply_batch(&r, o, &v);
	}
	if (p->mix && r.iterations == 0 && p->duration_ns == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s needs a duration or iterations", fn),
				 errhint("The groups of a mix share the batch's duration, such as '30s'.")));
	if (r.iterations == 0 && p->duration_ns == 0)
		r.iterations = RANREAD_DEFAULT_ITERATIONS;
	p->seed = params_seed(!r.have_seed, p->seed);
	d.target = r.target;
	d.iterations = r.iterations;
	d.path = r.path;
	d.prefetch = r.prefetch;
	read_groups(p, r.groups, &d, p->mix);
	if (r.prefetch >= 0)
		serverpath_check_prefetch_default(p, fn);
	if ((flags & WORKLOAD_TRUST_SWEEP) == 0)
		check_calls(p, r.have_latency_target, r.latency_target, fn);
	point_check(p, r.point, p->study, fn, (flags & WORKLOAD_CHECK) != 0);
	params_check_batch(p, fn);
	if (r.have_workers)
		params_range("workers", *workers, 1, p->processes,
					 p->mix || p->ngroups > 1 ?
					 "workers is how many background workers share the processes (of all groups); NULL chooses." :
					 workload_option_by_key(OPT_WORKERS)->help);
	return fn;
}

/* Add key: value to the object being built */
static void
push_pair(JsonbParseState **st, const char *key, JsonbValue *v)
{
	JsonbValue	k;

	k.type = jbvString;
	k.val.string.val = unconstify(char *, key);
	k.val.string.len = strlen(key);
	(void) pushJsonbValue(st, WJB_KEY, &k);
	(void) pushJsonbValue(st, WJB_VALUE, v);
}

/* Does the object have the key, not null? */
static bool
has_key(JsonbContainer *c, const char *key)
{
	JsonbValue *v = c ? getKeyJsonValueFromContainer(c, key, strlen(key), NULL) : NULL;

	return v != NULL && v->type != jbvNull;
}

/*
 * Where an option given flat goes: its level, but beside groups given (a
 * mix) one that may stand at the top goes there, as every group's default
 */
static WorkloadLevel
level_of(const WorkloadOption *o, bool groups_given)
{
	return groups_given && o->both ? LEVEL_BATCH : o->level;
}

/* Which keys of an object push_keys copies */
typedef enum PushWhat
{
	PUSH_SPEC,					/* every key of a spec, but its one group */
	PUSH_ALL,					/* every key */
	PUSH_FLAT_BATCH,			/* options that stand at the top */
	PUSH_FLAT_GROUP				/* options that stand in the group */
} PushWhat;

/*
 * Copy the keys of src that what says into the object being built, but
 * nulls and the keys that except has; returns how many it copied
 */
static int
push_keys(JsonbParseState **st, JsonbContainer *src, JsonbContainer *except, PushWhat what,
		  bool groups_given)
{
	JsonbIterator *it = JsonbIteratorInit(src);
	JsonbValue	v;
	char	   *key;
	int			n = 0;

	while ((key = json_next_key(&it, &v)) != NULL)
	{
		const WorkloadOption *o = workload_option(key);
		JsonbValue *x = except ? getKeyJsonValueFromContainer(except, key, strlen(key), NULL) : NULL;

		/* a key the other object gives (not null) is that object's */
		if (v.type == jbvNull || (x != NULL && x->type != jbvNull))
			continue;
		if ((what == PUSH_SPEC && o != NULL && o->key == OPT_GROUPS) ||
			(what == PUSH_FLAT_BATCH && (o == NULL || level_of(o, groups_given) != LEVEL_BATCH)) ||
			(what == PUSH_FLAT_GROUP && (o == NULL || level_of(o, groups_given) != LEVEL_GROUP)))
			continue;
		push_pair(st, key, &v);
		n++;
	}
	return n;
}

/*
 * The spec of a batch whose options are given flat, by name (as the SQL
 * functions take them): each option goes where a spec has it (a group's in
 * the one group; "groups" as it is), keys that are no option are left out,
 * and so are nulls, which mean the defaults.  base, when given, is a spec
 * the options change (a sweep's next step): its keys and its one group's
 * stay unless the options give them again (not null).  fn becomes the caller unless
 * base or the options name one.
 */
Jsonb *
workload_spec(JsonbContainer *flat, JsonbContainer *base, const char *fn)
{
	JsonbParseState *top = NULL;
	JsonbParseState *grp = NULL;
	JsonbContainer *base_group = NULL;
	JsonbValue *group;
	JsonbValue *bg;
	JsonbValue	v;
	bool		flat_groups = has_key(flat, "groups");
	bool		groups_given;
	int			in_group = 0;

	if ((base != NULL && !JsonContainerIsObject(base)) || (flat != NULL && !JsonContainerIsObject(flat)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the options and the spec of ranread_spec must be JSON objects")));
	/* the base's one group, which the options change (groups given replace it) */
	bg = base && !flat_groups ? getKeyJsonValueFromContainer(base, "groups", 6, NULL) : NULL;
	if (bg != NULL && bg->type == jbvBinary && JsonContainerIsArray(bg->val.binary.data) &&
		JsonContainerSize(bg->val.binary.data) == 1)
	{
		JsonbValue *e = getIthJsonbValueFromContainer(bg->val.binary.data, 0);

		if (e->type == jbvBinary && JsonContainerIsObject(e->val.binary.data))
			base_group = e->val.binary.data;
	}

	groups_given = flat_groups || (base_group == NULL && has_key(base, "groups"));
	(void) pushJsonbValue(&grp, WJB_BEGIN_OBJECT, NULL);
	if (base_group)
		in_group += push_keys(&grp, base_group, flat, PUSH_ALL, false);
	if (flat)
		in_group += push_keys(&grp, flat, NULL, PUSH_FLAT_GROUP, groups_given);
	group = pushJsonbValue(&grp, WJB_END_OBJECT, NULL);
	if (in_group > 0 && base_group == NULL && groups_given)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the options of a group cannot stand beside the groups of %s", fn ? fn : "a spec"),
				 errhint("Give each group's options in its object of groups.")));

	(void) pushJsonbValue(&top, WJB_BEGIN_OBJECT, NULL);
	if (base)
		(void) push_keys(&top, base, flat, base_group ? PUSH_SPEC : PUSH_ALL, false);
	if (flat)
		(void) push_keys(&top, flat, NULL, PUSH_FLAT_BATCH, groups_given);
	if (fn != NULL && !has_key(base, "caller") && !has_key(flat, "caller"))
	{
		v.type = jbvString;
		v.val.string.val = unconstify(char *, fn);
		v.val.string.len = strlen(fn);
		push_pair(&top, "caller", &v);
	}
	if (in_group > 0 || base_group != NULL)
	{
		Jsonb	   *g = JsonbValueToJsonb(group);

		v.type = jbvString;
		v.val.string.val = "groups";
		v.val.string.len = 6;
		(void) pushJsonbValue(&top, WJB_KEY, &v);
		(void) pushJsonbValue(&top, WJB_BEGIN_ARRAY, NULL);
		(void) pushJsonbValue(&top, WJB_ELEM, &(JsonbValue) {.type = jbvBinary,
					  .val.binary = {.len = VARSIZE(g) - VARHDRSZ, .data = &g->root}});
		(void) pushJsonbValue(&top, WJB_END_ARRAY, NULL);
	}
	return JsonbValueToJsonb(pushJsonbValue(&top, WJB_END_OBJECT, NULL));
}

/*
 * ranread_options(): the option table, one row per option, for the docs
 * and the help
 */
Datum
ranread_options(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < workload_noptions; i++)
	{
		const WorkloadOption *o = &workload_options[i];
		Datum		values[11];
		bool		nulls[11] = {false};
		bool		ranged = o->min < o->max;

		values[0] = CStringGetTextDatum(o->name);
		values[1] = CStringGetTextDatum(o->both ? "batch or group" : o->level == LEVEL_GROUP ? "group" : "batch");
		values[2] = ObjectIdGetDatum(workload_type_oid(o->type));
		values[3] = o->default_value ? CStringGetTextDatum(o->default_value) : (Datum) 0;
		nulls[3] = o->default_value == NULL || o->internal;
		values[4] = Int64GetDatum(o->min);
		values[5] = Int64GetDatum(o->max);
		nulls[4] = nulls[5] = !ranged;
		values[6] = CStringGetTextDatum(o->allowed ? o->allowed :
										psprintf(INT64_FORMAT " to " INT64_FORMAT, o->min, o->max));
		values[7] = o->unit ? CStringGetTextDatum(o->unit) : (Datum) 0;
		nulls[7] = o->unit == NULL;
		values[8] = o->null_means ? CStringGetTextDatum(o->null_means) : (Datum) 0;
		nulls[8] = o->null_means == NULL;
		values[9] = CStringGetTextDatum(o->help);
		values[10] = BoolGetDatum(o->internal);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * ranread_internal.ranread_spec(options jsonb, base jsonb): the spec of the
 * options given flat, by name, changing base (see workload_spec)
 */
Datum
ranread_spec(PG_FUNCTION_ARGS)
{
	Jsonb	   *flat = PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0);
	Jsonb	   *base = PG_ARGISNULL(1) ? NULL : PG_GETARG_JSONB_P(1);

	if (flat != NULL && !JB_ROOT_IS_OBJECT(flat))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the options given to ranread_spec must be a JSON object")));
	PG_RETURN_JSONB_P(workload_spec(flat ? &flat->root : NULL, base ? &base->root : NULL, NULL));
}

/*
 * ranread_internal.ranread_spec_check(spec jsonb, resolve boolean): read a
 * spec as ranread_run_step would, and with resolve its targets too, running
 * nothing: its errors are the step's, before any step runs
 */
Datum
ranread_spec_check(PG_FUNCTION_ARGS)
{
	BatchParams *p = palloc0(sizeof(BatchParams));
	int			workers;
	const char *fn;

	fn = workload_batch(p, PG_ARGISNULL(0) ? NULL : PG_GETARG_JSONB_P(0), &workers, WORKLOAD_CHECK);
	if (PG_ARGISNULL(1) || PG_GETARG_BOOL(1))
		params_resolve(p, fn);
	PG_RETURN_VOID();
}

/*
 * ranread_internal.ranread_defaults(level text): the defaults of the
 * options of that level ('batch' or 'group'), as a spec spells them
 */
Datum
ranread_defaults(PG_FUNCTION_ARGS)
{
	const char *level = PG_ARGISNULL(0) ? "" : text_to_cstring(PG_GETARG_TEXT_PP(0));
	bool		group = strcmp(level, "group") == 0;
	JsonbParseState *st = NULL;

	if (!group && strcmp(level, "batch") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid level %s for ranread_defaults", PG_ARGISNULL(0) ? "NULL" : quote_literal_cstr(level)),
				 errhint("A level is 'batch' or 'group'.")));
	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < workload_noptions; i++)
		if (workload_options[i].default_value != NULL && !workload_options[i].internal &&
			(group ? option_in_group(&workload_options[i]) : option_at_top(&workload_options[i])))
		{
			JsonbValue	d = default_json(&workload_options[i]);

			push_pair(&st, workload_options[i].name, &d);
		}
	PG_RETURN_JSONB_P(JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL)));
}

/*
 * ranread_internal.ranread_require(fn text, arg text, value anyelement,
 * hint text): the null check of the PL/pgSQL functions' own arguments
 */
Datum
ranread_require(PG_FUNCTION_ARGS)
{
	workload_require(PG_ARGISNULL(2), PG_ARGISNULL(1) ? "?" : text_to_cstring(PG_GETARG_TEXT_PP(1)),
					 PG_ARGISNULL(0) ? "?" : text_to_cstring(PG_GETARG_TEXT_PP(0)),
					 PG_ARGISNULL(3) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(3)));
	PG_RETURN_VOID();
}
