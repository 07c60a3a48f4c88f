/*
 * forward.c
 *		The user-facing SQL functions that take a workload, read by name.
 *
 * ranread_run, ranread_mix, ranread_sweep, ranread_latency_target,
 * ranread_study, ranread_probe, ranread_fleet and ranread_fleet_sweep
 * name the workload's options in their signatures, as a named-argument
 * interface must, and hand them on as one spec (workload.c).  None of them lists the options again:
 * the called function's own pg_proc entry (fcinfo->flinfo->fn_oid) names
 * its arguments, and every argument whose name and type are an option's is
 * packed into the spec by that name.  A new option added to a signature
 * therefore reaches the parser with no other edit, and 1.0's signatures
 * (14 or 15 arguments, bound to the C symbol ranread_run) pack the same way
 * as 1.1's.
 *
 * Here, once for all of them:
 *	 - the null check of the options: an option argument may be NULL when
 *	   the option table says what NULL means, or when the signature's own
 *	   default is NULL; any other NULL is refused naming the argument, with
 *	   the option's help;
 *	 - the privileges a call needs besides EXECUTE on the function, checked
 *	   before anything runs, in one error that lists what the role lacks and
 *	   says what to grant (forward_check_privileges; SQL:
 *	   ranread_internal.ranread_check_privileges);
 *	 - ranread_forward, the C function that sweeps, searches, studies and
 *	   fleets are: it calls ranread_internal.<its name>, the PL/pgSQL that
 *	   implements it, binding that function's arguments by name: an argument
 *	   of the caller's (the same name and type), or spec (the workload as a
 *	   spec, jsonb), args (every argument by name, jsonb), fn (the caller's
 *	   name), call (the exact call, as SQL text), caller (the role that
 *	   called, regrole: a SECURITY DEFINER implementation runs as its
 *	   owner).  The implementation is
 *	   called through fmgr, on the caller's ReturnSetInfo, so its rows are the
 *	   caller's rows; errors from inside keep what helps the user (the
 *	   message names the function they called and the argument; the CONTEXT
 *	   lines of the options' keys stay) but not the implementation's own
 *	   PL/pgSQL frames.
 * The batch runners (ranread_run, ranread_mix, ranread_run_step,
 * ranread_blocks: run.c) use the same packing and null check.
 */
#include "postgres.h"

#include <math.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/primnodes.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "calls.h"
#include "forward.h"

PG_FUNCTION_INFO_V1(ranread_forward);
PG_FUNCTION_INFO_V1(ranread_check_privileges);
PG_FUNCTION_INFO_V1(ranread_needs);
PG_FUNCTION_INFO_V1(ranread_needs_expand);

#define INTERNAL_SCHEMA "ranread_internal"

/*
 * What the implementations of the forwarded functions use besides
 * themselves, as "PRIVILEGE on KIND OBJECT"; @extschema@ is the extension's
 * schema, "functions SCHEMA.PREFIX*" every function of that schema whose
 * name starts so (an implementation's steps and rules).  Checked before the
 * call, so that a role granted only the function learns at once all it
 * lacks.  A sweep's row in ranread_sweeps and a study's in ranread_studies
 * are the extension owner's to write (their recorders are SECURITY
 * DEFINER), so no INSERT on those tables is here.
 */
/*
 * how a call says its step for ranread_progress (progress.c): by prefix, as
 * a 1.1 database, which this library also serves, has no such function
 */
#define PROGRESS_CALL_NEED \
	"EXECUTE on functions ranread_internal.ranread_progress_call*"

static const char *const sweep_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on functions ranread_internal.ranread_sweep_*",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)",
	"EXECUTE on function @extschema@.ranread_limits()",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_spec_check(jsonb, boolean)",
	"EXECUTE on function @extschema@.ranread_run_step(jsonb)",
	"EXECUTE on function ranread_internal.ranread_call_register(text, bigint)",
	PROGRESS_CALL_NEED,
	"USAGE on sequence @extschema@.ranread_sweep_seq",
};

static const char *const latency_target_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on functions ranread_internal.ranread_latency_target_*",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_require(text, text, anyelement, text)",
	"EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)",
	"EXECUTE on function @extschema@.ranread_limits()",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_spec_check(jsonb, boolean)",
	"EXECUTE on function @extschema@.ranread_run_step(jsonb)",
	"EXECUTE on function ranread_internal.ranread_call_register(text, bigint)",
	PROGRESS_CALL_NEED,
	"EXECUTE on function ranread_internal.ranread_latency_window(bytea, float8, float8)",
	"EXECUTE on function @extschema@.ranread_hist_within(bytea, float8)",
	"EXECUTE on function @extschema@.ranread_hist_buckets(bytea)",
	"EXECUTE on function @extschema@.ranread_hist_percentile(bytea, float8)",
	"EXECUTE on function @extschema@.ranread_latency_target_next(@extschema@.ranread_latency_step[], float8, float8, integer)",
	"USAGE on sequence @extschema@.ranread_latency_target_seq",
	"SELECT on table @extschema@.ranread_batches",
};

static const char *const study_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on functions ranread_internal.ranread_study_*",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_require(text, text, anyelement, text)",
	"EXECUTE on function ranread_internal.ranread_require_read_committed(text, text)",
	"EXECUTE on function @extschema@.ranread_options()",
	"EXECUTE on function ranread_internal.ranread_defaults(text)",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_spec_check(jsonb, boolean)",
	"EXECUTE on function ranread_internal.ranread_check_privileges(text, text, text[])",
	"EXECUTE on function @extschema@.ranread_limits()",
	"EXECUTE on function @extschema@.ranread_blocks(integer, integer, name, integer, text, float8, float8, bigint, text)",
	"EXECUTE on function @extschema@.ranread_run_step(jsonb)",
	"EXECUTE on function ranread_internal.ranread_call_register(text, bigint)",
	PROGRESS_CALL_NEED,
	"USAGE on sequence @extschema@.ranread_study_seq",
};

/*
 * the probe (sql/code/61_probe.sql): its cap and target, and what its
 * setup and schedule use besides (ranread_grant 'probe' and 'run').  Its
 * batch and its row in ranread_probes are the extension owner's (the
 * implementation is SECURITY DEFINER), so neither ranread_run_step, which
 * has no cap, nor INSERT on ranread_probes is here.
 */
static const char *const probe_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on functions ranread_internal.ranread_probe_*",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_require(text, text, anyelement, text)",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_spec_check(jsonb, boolean)",
	"EXECUTE on function ranread_internal.ranread_round(float8, integer)",
	"SELECT on table @extschema@.ranread_targets",
};

/* the fleets: what they use of ranread_internal (their own steps are theirs) */
static const char *const fleet_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_call_register(text, bigint)",
	PROGRESS_CALL_NEED,
};

static const char *const fleet_sweep_needs[] = {
	"USAGE on schema ranread_internal",
	"EXECUTE on function ranread_internal.ranread_primary_only(text)",
	"EXECUTE on function ranread_internal.ranread_spec(jsonb, jsonb)",
	"EXECUTE on function ranread_internal.ranread_call_register(text, bigint)",
	PROGRESS_CALL_NEED,
	"EXECUTE on function ranread_internal.ranread_sweep_next(@extschema@.ranread_sweep_step[], integer, integer, float8)",
	"EXECUTE on function ranread_internal.ranread_sweep_judge(@extschema@.ranread_sweep_step[], float8)",
	"EXECUTE on function ranread_internal.ranread_sweep_say_step(text, bigint, @extschema@.ranread_sweep_step)",
	"EXECUTE on function ranread_internal.ranread_sweep_say_end(text, bigint, @extschema@.ranread_sweep_step[], text, float8, record)",
};

typedef struct Forwarded
{
	const char *fn;				/* the user-facing function */
	const char *const *needs;
	int			nneeds;
	bool		conninfos;		/* nodes and loopback are connection strings,
								 * whose passwords leave the statement's text
								 * before anything can fail (fleet/conninfo.c) */
} Forwarded;

#define NEEDS(a) a, lengthof(a)

static const Forwarded forwarded[] = {
	{"ranread_sweep", NEEDS(sweep_needs), false},
	{"ranread_latency_target", NEEDS(latency_target_needs), false},
	{"ranread_study", NEEDS(study_needs), false},
	{"ranread_probe", NEEDS(probe_needs), false},
	{"ranread_fleet", NEEDS(fleet_needs), true},
	{"ranread_fleet_sweep", NEEDS(fleet_sweep_needs), true},
};

/* fleet/conninfo.c: the passwords of connection strings out of the statement's text */
extern PGDLLEXPORT Datum ranread_conninfo_hide(PG_FUNCTION_ARGS);

/* What an argument of an implementation is bound to */
#define BIND_SPEC	-2			/* the workload as a spec */
#define BIND_ARGS	-3			/* every argument by name */
#define BIND_FN		-4			/* the caller's name */
#define BIND_CALL	-5			/* the exact call, as SQL text */
#define BIND_CALLER	-6			/* the role that called (before a SECURITY DEFINER
								 * implementation runs as its owner) */

typedef struct ForwardImpl
{
	const Forwarded *entry;
	FmgrInfo	flinfo;
	int			nargs;
	int		   *bind;			/* per argument: the caller's, or BIND_* */
} ForwardImpl;

/* Is the default expression the NULL constant? */
static bool
expr_is_null(Node *n)
{
	return n != NULL && IsA(n, Const) && ((Const *) n)->constisnull;
}

/*
 * The called function's input arguments, by name and type, and which are
 * workload options; read once per query from its pg_proc entry
 */
ForwardInfo *
forward_info(FunctionCallInfo fcinfo)
{
	ForwardInfo *fi = (ForwardInfo *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	HeapTuple	tup;
	Form_pg_proc proc;
	Oid		   *types;
	char	  **names;
	char	   *modes;
	int			nall;
	List	   *defaults = NIL;
	bool		isnull;
	Datum		d;

	if (fi != NULL && fi->fn_oid == fcinfo->flinfo->fn_oid)
		return fi;
	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fcinfo->flinfo->fn_oid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fcinfo->flinfo->fn_oid);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	fi = palloc0(sizeof(ForwardInfo));
	fi->fn_oid = fcinfo->flinfo->fn_oid;
	fi->fn = pstrdup(NameStr(proc->proname));
	nall = get_func_arg_info(tup, &types, &names, &modes);
	d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_proargdefaults, &isnull);
	if (!isnull)
		defaults = castNode(List, stringToNode(TextDatumGetCString(d)));
	fi->args = palloc0(sizeof(ForwardArg) * nall);
	for (int i = 0; i < nall; i++)
	{
		ForwardArg *a;

		if (modes && modes[i] != PROARGMODE_IN && modes[i] != PROARGMODE_INOUT &&
			modes[i] != PROARGMODE_VARIADIC)
			continue;
		a = &fi->args[fi->nargs++];
		a->name = names && names[i] ? pstrdup(names[i]) : psprintf("$%d", fi->nargs);
		a->type = types[i];
		a->option = workload_option(a->name);
		if (a->option && workload_type_oid(a->option->type) != a->type)
			a->option = NULL;	/* a study's dimension: an array of them */
	}
	/* the defaults are the last arguments' */
	for (int i = 0; i < list_length(defaults); i++)
		fi->args[fi->nargs - list_length(defaults) + i].default_null =
			expr_is_null(list_nth(defaults, i));
	ReleaseSysCache(tup);
	fcinfo->flinfo->fn_extra = fi;
	MemoryContextSwitchTo(old);
	return fi;
}

/* The index of the argument of that name; -1 when there is none */
int
forward_arg(const ForwardInfo *fi, const char *name)
{
	for (int i = 0; i < fi->nargs; i++)
		if (strcmp(fi->args[i].name, name) == 0)
			return i;
	return -1;
}

/*
 * The null check of the workload's options: an option may be NULL when NULL
 * means something for it (the option table) or when the function's own
 * default is NULL; the functions' own arguments are their own to check.
 */
void
forward_require_options(FunctionCallInfo fcinfo, const ForwardInfo *fi, const char *fn)
{
	for (int i = 0; i < fi->nargs && i < PG_NARGS(); i++)
	{
		const ForwardArg *a = &fi->args[i];

		if (a->option == NULL || !PG_ARGISNULL(i) || a->option->null_means != NULL || a->default_null)
			continue;
		/* the help says what is allowed; and the default, unless it does */
		workload_require(true, a->name, fn,
						 a->option->default_value && strstr(a->option->help, "default") == NULL ?
						 psprintf("%s Leave it out for its default, %s.", a->option->help,
								  a->option->type == WT_TEXT || a->option->type == WT_NAME ||
								  a->option->type == WT_INTERVAL ?
								  quote_literal_cstr(a->option->default_value) : a->option->default_value) :
						 a->option->help);
	}
}

static void push_datum(JsonbParseState **st, JsonbIteratorToken tok, Datum d, bool isnull, Oid type);

/* The elements of an array from dimension dim on, as nested JSON arrays */
static void
push_array_dim(JsonbParseState **st, int ndim, const int *dims, int dim, Datum *elems,
			   bool *nulls, int *k, Oid elemtype)
{
	(void) pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
	for (int i = 0; i < dims[dim]; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (dim + 1 < ndim)
			push_array_dim(st, ndim, dims, dim + 1, elems, nulls, k, elemtype);
		else
		{
			push_datum(st, WJB_ELEM, elems[*k], nulls[*k], elemtype);
			(*k)++;
		}
	}
	(void) pushJsonbValue(st, WJB_END_ARRAY, NULL);
}

/* An array as JSON arrays (one per dimension) of its elements */
static void
push_array(JsonbParseState **st, JsonbIteratorToken tok, ArrayType *arr)
{
	Oid			elemtype = ARR_ELEMTYPE(arr);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	int			k = 0;

	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	deconstruct_array(arr, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
	if (ARR_NDIM(arr) > 0)
		push_array_dim(st, ARR_NDIM(arr), ARR_DIMS(arr), 0, elems, nulls, &k, elemtype);
	else
	{
		(void) pushJsonbValue(st, WJB_BEGIN_ARRAY, NULL);
		(void) pushJsonbValue(st, WJB_END_ARRAY, NULL);
	}
}

/* A string as a JSON string */
static void
push_string(JsonbParseState **st, JsonbIteratorToken tok, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = unconstify(char *, s);
	v.val.string.len = strlen(s);
	(void) pushJsonbValue(st, tok, &v);
}

/* A number written as text, as a JSON number */
static void
push_number(JsonbParseState **st, JsonbIteratorToken tok, const char *text)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
														ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	(void) pushJsonbValue(st, tok, &v);
}

/*
 * An SQL value as JSON, as to_jsonb spells it: numbers as numbers (a float
 * exactly, its NaN and infinities as strings), booleans, jsonb as it is,
 * arrays as arrays, timestamps in ISO 8601, anything else as its text
 */
static void
push_datum(JsonbParseState **st, JsonbIteratorToken tok, Datum d, bool isnull, Oid type)
{
	JsonbValue	v;

	if (isnull)
	{
		v.type = jbvNull;
		(void) pushJsonbValue(st, tok, &v);
		return;
	}
	switch (type)
	{
		case INT2OID:
			push_number(st, tok, psprintf("%d", (int) DatumGetInt16(d)));
			return;
		case INT4OID:
			push_number(st, tok, psprintf("%d", DatumGetInt32(d)));
			return;
		case INT8OID:
			push_number(st, tok, psprintf(INT64_FORMAT, DatumGetInt64(d)));
			return;
		case FLOAT4OID:
		case FLOAT8OID:
			{
				double		f = type == FLOAT4OID ? (double) DatumGetFloat4(d) : DatumGetFloat8(d);

				if (isnan(f) || isinf(f))
					push_string(st, tok, isnan(f) ? "NaN" : f > 0 ? "Infinity" : "-Infinity");
				else
					push_number(st, tok, type == FLOAT4OID ?
								DatumGetCString(DirectFunctionCall1(float4out, d)) : float8out_internal(f));
				return;
			}
		case NUMERICOID:
			if (numeric_is_nan(DatumGetNumeric(d)) || numeric_is_inf(DatumGetNumeric(d)))
				push_string(st, tok, DatumGetCString(DirectFunctionCall1(numeric_out, d)));
			else
			{
				v.type = jbvNumeric;
				v.val.numeric = DatumGetNumeric(d);
				(void) pushJsonbValue(st, tok, &v);
			}
			return;
		case BOOLOID:
			v.type = jbvBool;
			v.val.boolean = DatumGetBool(d);
			(void) pushJsonbValue(st, tok, &v);
			return;
		case JSONBOID:
			{
				Jsonb	   *jb = DatumGetJsonbP(d);

				v.type = jbvBinary;
				v.val.binary.data = &jb->root;
				v.val.binary.len = VARSIZE(jb) - VARHDRSZ;
				(void) pushJsonbValue(st, tok, &v);
				return;
			}
		case TIMESTAMPTZOID:
		case TIMESTAMPOID:
		case DATEOID:
			push_string(st, tok, JsonEncodeDateTime(NULL, d, type, NULL));
			return;
		default:
			if (type_is_array(type))
			{
				push_array(st, tok, DatumGetArrayTypeP(d));
				return;
			}
			else
			{
				Oid			out;
				bool		varlena;

				getTypeOutputInfo(type, &out, &varlena);
				push_string(st, tok, OidOutputFunctionCall(out, d));
				return;
			}
	}
}

/*
 * The call's arguments as one object, by name (nulls left out): every one,
 * or only the workload's options; label, when given, as the one group's
 */
Jsonb *
forward_args(FunctionCallInfo fcinfo, const ForwardInfo *fi, bool options_only, const char *label)
{
	JsonbParseState *st = NULL;
	JsonbValue	k;

	(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < fi->nargs && i < PG_NARGS(); i++)
	{
		const ForwardArg *a = &fi->args[i];

		if (PG_ARGISNULL(i) || (options_only && a->option == NULL))
			continue;
		k.type = jbvString;
		k.val.string.val = a->name;
		k.val.string.len = strlen(a->name);
		(void) pushJsonbValue(&st, WJB_KEY, &k);
		push_datum(&st, WJB_VALUE, PG_GETARG_DATUM(i), false, a->type);
	}
	if (label)
	{
		k.type = jbvString;
		k.val.string.val = "label";
		k.val.string.len = 5;
		(void) pushJsonbValue(&st, WJB_KEY, &k);
		push_string(&st, WJB_VALUE, label);
	}
	return JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

/*
 * The call's workload as a spec, caller naming the function errors name:
 * a function of one argument spec (ranread_run_step) gives it whole; the
 * others' options go where a spec has them
 */
Jsonb *
forward_spec(FunctionCallInfo fcinfo, const ForwardInfo *fi, const char *caller, const char *label)
{
	int			s = forward_arg(fi, "spec");

	if (s >= 0 && fi->args[s].type == JSONBOID)
		return PG_ARGISNULL(s) ? NULL : PG_GETARG_JSONB_P(s);
	return workload_spec(&forward_args(fcinfo, fi, true, label)->root, NULL, caller ? caller : fi->fn);
}

/*
 * The exact call, as SQL text: every argument, by name, in order, the
 * defaults spelled out too; a NULL is left out only where the signature's
 * default is NULL, so that the text runs the same call again
 */
static char *
forward_call_text(FunctionCallInfo fcinfo, const ForwardInfo *fi)
{
	StringInfoData s;
	bool		first = true;

	initStringInfo(&s);
	appendStringInfo(&s, "SELECT * FROM %s(", quote_identifier(fi->fn));
	for (int i = 0; i < fi->nargs && i < PG_NARGS(); i++)
	{
		Oid			out;
		bool		varlena;

		if (PG_ARGISNULL(i) && fi->args[i].default_null)
			continue;
		appendStringInfo(&s, "%s%s => ", first ? "" : ", ", quote_identifier(fi->args[i].name));
		first = false;
		if (PG_ARGISNULL(i))
		{
			appendStringInfoString(&s, "NULL");
			continue;
		}
		getTypeOutputInfo(fi->args[i].type, &out, &varlena);
		appendStringInfoString(&s, quote_literal_cstr(fi->args[i].type == BOOLOID ?
													  (PG_GETARG_BOOL(i) ? "true" : "false") :
													  OidOutputFunctionCall(out, PG_GETARG_DATUM(i))));
	}
	appendStringInfoString(&s, ");");
	return s.data;
}

/* @extschema@ in a privilege's text replaced by the extension's schema */
static char *
with_schema(const char *text)
{
	StringInfoData s;
	const char *p = text;
	const char *at;
	char	   *schema = ranread_schema_name();

	initStringInfo(&s);
	while ((at = strstr(p, "@extschema@")) != NULL)
	{
		appendBinaryStringInfo(&s, p, at - p);
		appendStringInfoString(&s, schema);
		p = at + strlen("@extschema@");
	}
	appendStringInfoString(&s, p);
	return s.data;
}

/*
 * One privilege missing: what the role lacks, and the GRANT that gives it;
 * with every set (ranread_needs_expand), each privilege of the list is
 * "missing", and kept in rows as (privilege, kind, object)
 */
typedef struct Missing
{
	StringInfoData lacks;
	StringInfoData grants;
	const char *role;
	bool		every;
	ReturnSetInfo *rows;
} Missing;

static void
missing(Missing *m, const char *priv, const char *kind, const char *object)
{
	if (m->rows)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};

		values[0] = CStringGetTextDatum(priv);
		values[1] = CStringGetTextDatum(kind);
		values[2] = CStringGetTextDatum(object);
		tuplestore_putvalues(m->rows->setResult, m->rows->setDesc, values, nulls);
		return;
	}
	appendStringInfo(&m->lacks, "%s%s on %s %s", m->lacks.len ? ", " : "", priv, kind, object);
	appendStringInfo(&m->grants, "%sGRANT %s ON %s %s TO %s;", m->grants.len ? " " : "", priv,
					 strcmp(kind, "function") == 0 ? "FUNCTION" : strcmp(kind, "sequence") == 0 ? "SEQUENCE" :
					 strcmp(kind, "schema") == 0 ? "SCHEMA" : "TABLE", object, m->role);
}

/* Functions by their qualified names with arguments */
static int
proc_name_cmp(const ListCell *a, const ListCell *b)
{
	return strcmp(format_procedure_qualified(lfirst_oid(a)), format_procedure_qualified(lfirst_oid(b)));
}

/* Every function of a schema whose name starts with prefix, checked */
static void
check_functions(Missing *m, Oid nsp, const char *prefix, Oid role)
{
	Relation	rel = table_open(ProcedureRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tup;
	List	   *oids = NIL;
	ListCell   *lc;

	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(tup);

		if (proc->pronamespace == nsp && strncmp(NameStr(proc->proname), prefix, strlen(prefix)) == 0)
			oids = lappend_oid(oids, proc->oid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	/* in the order of their names, so that the error reads the same each time */
	list_sort(oids, proc_name_cmp);
	foreach(lc, oids)
		if (m->every || pg_proc_aclcheck(lfirst_oid(lc), role, ACL_EXECUTE) != ACLCHECK_OK)
			missing(m, "EXECUTE", "function", format_procedure_qualified(lfirst_oid(lc)));
}

/* Error: a needs list's entry that says no privilege */
static void
invalid_need(const char *need)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid privilege \"%s\" for ranread_check_privileges", need),
			 errhint("A privilege reads as 'EXECUTE on function ranread_limits()', 'EXECUTE on functions ranread_internal.ranread_sweep_*', 'USAGE on sequence S', 'INSERT on table T' or 'USAGE on schema S'.")));
}

/* One privilege of a needs list, checked */
static void
check_need(Missing *m, const char *need, Oid role)
{
	char	   *text = with_schema(need);
	char		priv[32];
	char		kind[32];
	int			off = 0;
	const char *object;

	if (sscanf(text, "%31s on %31s %n", priv, kind, &off) < 2 || off == 0)
		invalid_need(need);
	object = text + off;
	if (strcmp(kind, "functions") == 0)
	{
		char	   *dot = strchr(object, '.');
		char	   *star = strchr(object, '*');

		if (dot == NULL || star == NULL || star < dot || strcmp(priv, "EXECUTE") != 0)
			invalid_need(need);
		check_functions(m, get_namespace_oid(pnstrdup(object, dot - object), false),
						pnstrdup(dot + 1, star - dot - 1), role);
	}
	else if (strcmp(kind, "function") == 0)
	{
		Oid			fn;

		if (strcmp(priv, "EXECUTE") != 0)
			invalid_need(need);
		fn = DatumGetObjectId(DirectFunctionCall1(regprocedurein, CStringGetDatum(object)));

		if (m->every || pg_proc_aclcheck(fn, role, ACL_EXECUTE) != ACLCHECK_OK)
			missing(m, "EXECUTE", "function", format_procedure_qualified(fn));
	}
	else if (strcmp(kind, "schema") == 0)
	{
		if (strcmp(priv, "USAGE") != 0)
			invalid_need(need);
		if (m->every || pg_namespace_aclcheck(get_namespace_oid(object, false), role, ACL_USAGE) != ACLCHECK_OK)
			missing(m, "USAGE", "schema", quote_identifier(object));
	}
	else
	{
		Oid			rel = DatumGetObjectId(DirectFunctionCall1(regclassin, CStringGetDatum(object)));
		AclMode		mode = strcmp(priv, "USAGE") == 0 ? ACL_USAGE : strcmp(priv, "INSERT") == 0 ? ACL_INSERT :
			strcmp(priv, "SELECT") == 0 ? ACL_SELECT : strcmp(priv, "UPDATE") == 0 ? ACL_UPDATE : 0;

		if (mode == 0 || (strcmp(kind, "table") != 0 && strcmp(kind, "sequence") != 0))
			invalid_need(need);
		if (m->every || pg_class_aclcheck(rel, role, mode) != ACLCHECK_OK)
			missing(m, priv, kind, quote_qualified_identifier(get_namespace_name(get_rel_namespace(rel)),
															  get_rel_name(rel)));
	}
}

/*
 * Check the privileges a call needs besides EXECUTE on fn: one error that
 * lists every one the current role lacks and the GRANTs that give them.
 * doing says what is refused ("run ranread_sweep").
 */
void
forward_check_privileges(const char *doing, const char *fn, const char *const *needs, int nneeds)
{
	Oid			role = GetUserId();
	RanreadOwnerState owner;
	Missing		m;

	memset(&m, 0, sizeof(m));
	initStringInfo(&m.lacks);
	initStringInfo(&m.grants);
	m.role = quote_identifier(GetUserNameFromId(role, false));
	/* the objects are found as the extension's owner, who may look everywhere */
	ranread_become_owner(&owner);
	for (int i = 0; i < nneeds; i++)
		check_need(&m, needs[i], role);
	ranread_restore_user(&owner);
	if (m.lacks.len > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to %s", doing),
				 errdetail("The role %s lacks %s.", m.role, m.lacks.data),
				 errhint("SELECT ranread_grant(%s, 'run') grants what running ranread needs; or grant these along with EXECUTE on %s, or run it as a superuser: %s",
						 quote_literal_cstr(GetUserNameFromId(role, false)), fn, m.grants.data)));
}

/* The needs list of a forwarded function; NULL when fn is none */
static const Forwarded *
forwarded_entry(const char *fn)
{
	for (int i = 0; i < lengthof(forwarded); i++)
		if (strcmp(forwarded[i].fn, fn) == 0)
			return &forwarded[i];
	return NULL;
}

/*
 * ranread_internal.ranread_needs(fn text) RETURNS text[]: what the
 * implementation of a forwarded function uses besides EXECUTE on fn, as
 * forward_check_privileges checks it (ranread_grant grants these)
 */
Datum
ranread_needs(PG_FUNCTION_ARGS)
{
	const Forwarded *f;
	Datum	   *elems;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	f = forwarded_entry(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	if (f == NULL)
		PG_RETURN_NULL();
	elems = palloc(sizeof(Datum) * f->nneeds);
	for (int i = 0; i < f->nneeds; i++)
		elems[i] = CStringGetTextDatum(f->needs[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, f->nneeds, TEXTOID, -1, false, TYPALIGN_INT));
}

/*
 * ranread_internal.ranread_needs_expand(needs text[]) RETURNS TABLE
 * (privilege text, kind text, object text): every privilege of a needs list
 * (as forward.c writes them), "functions S.P*" made one row per function,
 * objects qualified; what forward_check_privileges would list for a role
 * that has none of them
 */
Datum
ranread_needs_expand(PG_FUNCTION_ARGS)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	Missing		m;
	RanreadOwnerState owner;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0))
		return (Datum) 0;
	arr = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	memset(&m, 0, sizeof(m));
	initStringInfo(&m.lacks);
	initStringInfo(&m.grants);
	m.role = "";
	m.every = true;
	m.rows = (ReturnSetInfo *) fcinfo->resultinfo;
	ranread_become_owner(&owner);
	for (int i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("needs of ranread_needs_expand must not hold a null")));
		check_need(&m, TextDatumGetCString(elems[i]), GetUserId());
	}
	ranread_restore_user(&owner);
	return (Datum) 0;
}

/*
 * ranread_internal.ranread_check_privileges(doing text, fn text, needs
 * text[]): the same, for PL/pgSQL (a needs list as in forward.c)
 */
Datum
ranread_check_privileges(PG_FUNCTION_ARGS)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	const char **needs;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("doing, fn and needs of ranread_check_privileges must not be null")));
	arr = PG_GETARG_ARRAYTYPE_P(2);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	needs = palloc(sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("needs of ranread_check_privileges must not hold a null")));
		needs[i] = TextDatumGetCString(elems[i]);
	}
	forward_check_privileges(text_to_cstring(PG_GETARG_TEXT_PP(0)), text_to_cstring(PG_GETARG_TEXT_PP(1)),
							 needs, n);
	PG_RETURN_VOID();
}

/* The implementation of a forwarded function, and what its arguments bind */
static ForwardImpl *
forward_impl(ForwardInfo *fi, MemoryContext cxt)
{
	MemoryContext old;
	ForwardImpl *im;
	Oid			nsp = get_namespace_oid(INTERNAL_SCHEMA, false);
	CatCList   *list;
	HeapTuple	tup = NULL;
	Oid		   *types;
	char	  **names;
	char	   *modes;
	int			nall;

	if (fi->impl != NULL)
		return fi->impl;
	old = MemoryContextSwitchTo(cxt);
	im = palloc0(sizeof(ForwardImpl));
	im->entry = forwarded_entry(fi->fn);
	if (im->entry == NULL)
		elog(ERROR, "%s is not a function ranread_forward implements", fi->fn);

	list = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum(fi->fn));
	for (int i = 0; i < list->n_members; i++)
		if (((Form_pg_proc) GETSTRUCT(&list->members[i]->tuple))->pronamespace == nsp)
			tup = &list->members[i]->tuple;
	if (tup == NULL)
		elog(ERROR, "the implementation %s.%s of %s does not exist", INTERNAL_SCHEMA, fi->fn, fi->fn);
	fmgr_info_cxt(((Form_pg_proc) GETSTRUCT(tup))->oid, &im->flinfo, cxt);
	nall = get_func_arg_info(tup, &types, &names, &modes);
	im->bind = palloc0(sizeof(int) * nall);
	for (int i = 0; i < nall; i++)
	{
		int			b;

		if (modes && modes[i] != PROARGMODE_IN && modes[i] != PROARGMODE_INOUT)
			continue;
		if (names == NULL || names[i] == NULL)
			elog(ERROR, "the arguments of %s.%s have no names", INTERNAL_SCHEMA, fi->fn);
		b = strcmp(names[i], "spec") == 0 && types[i] == JSONBOID ? BIND_SPEC :
			strcmp(names[i], "args") == 0 && types[i] == JSONBOID ? BIND_ARGS :
			strcmp(names[i], "fn") == 0 && types[i] == TEXTOID ? BIND_FN :
			strcmp(names[i], "call") == 0 && types[i] == TEXTOID ? BIND_CALL :
			strcmp(names[i], "caller") == 0 && types[i] == REGROLEOID ? BIND_CALLER :
			forward_arg(fi, names[i]);
		if (b == -1 || (b >= 0 && fi->args[b].type != types[i]))
			elog(ERROR, "argument %s of %s.%s is none of %s", names[i], INTERNAL_SCHEMA, fi->fn, fi->fn);
		im->bind[im->nargs++] = b;
	}
	ReleaseSysCacheList(list);
	fi->impl = im;
	MemoryContextSwitchTo(old);
	return im;
}

/*
 * The error context while the implementation runs: the line that marks
 * where its frames end, so that they can be told from the caller's
 */
static void
forward_context(void *arg)
{
	errcontext("%s", (const char *) arg);
}

/*
 * An error from inside the implementation, without the implementation's
 * frames: its message names the function the user called and the argument,
 * which is what the user needs; CONTEXT keeps the frames around the call.
 * An internal error (XX000) keeps its whole stack, for whoever reads it.
 */
static void
forward_clean_context(ErrorData *ed, const char *marker)
{
	char	   *at;
	char	   *outer;

	if (ed->context == NULL || ERRCODE_TO_CATEGORY(ed->sqlerrcode) == ERRCODE_INTERNAL_ERROR)
		return;
	at = strstr(ed->context, marker);
	while (at != NULL && !(at == ed->context || at[-1] == '\n'))
		at = strstr(at + 1, marker);
	if (at == NULL)
		return;
	outer = at + strlen(marker);
	while (*outer == '\n')
		outer++;
	ed->context = *outer ? pstrdup(outer) : NULL;
}

/* The passwords in the nodes and loopback arguments, out of the statement's text */
static void
hide_conninfos(FunctionCallInfo fcinfo, const ForwardInfo *fi)
{
	for (int i = 0; i < fi->nargs && i < PG_NARGS(); i++)
	{
		Datum		one;

		if (PG_ARGISNULL(i))
			continue;
		if (strcmp(fi->args[i].name, "nodes") == 0 && fi->args[i].type == TEXTARRAYOID)
			(void) DirectFunctionCall1(ranread_conninfo_hide, PG_GETARG_DATUM(i));
		else if (strcmp(fi->args[i].name, "loopback") == 0 && fi->args[i].type == TEXTOID)
		{
			one = PG_GETARG_DATUM(i);
			(void) DirectFunctionCall1(ranread_conninfo_hide,
									   PointerGetDatum(construct_array(&one, 1, TEXTOID, -1, false, TYPALIGN_INT)));
		}
	}
}

/*
 * ranread_forward: a sweep, a latency-target search, a study or a fleet.
 * The privileges its implementation needs are checked first, then the
 * workload's nulls; then ranread_internal.<its name> runs on this call's
 * ReturnSetInfo.
 */
Datum
ranread_forward(PG_FUNCTION_ARGS)
{
	ForwardInfo *fi = forward_info(fcinfo);
	ForwardImpl *im = forward_impl(fi, fcinfo->flinfo->fn_mcxt);
	FunctionCallInfo call = palloc0(SizeForFunctionCallInfo(im->nargs));
	MemoryContext cxt = CurrentMemoryContext;
	ErrorContextCallback cb;
	char	   *marker = psprintf("%s, as called", fi->fn);
	uint64		mark;
	Datum		result;

	if (im->entry->conninfos)
		hide_conninfos(fcinfo, fi);
	forward_check_privileges(psprintf("run %s", fi->fn), fi->fn, im->entry->needs, im->entry->nneeds);
	forward_require_options(fcinfo, fi, fi->fn);
	InitFunctionCallInfoData(*call, &im->flinfo, im->nargs, InvalidOid, NULL, fcinfo->resultinfo);
	for (int i = 0; i < im->nargs; i++)
	{
		int			b = im->bind[i];

		call->args[i].isnull = false;
		if (b >= 0)
		{
			call->args[i].value = PG_GETARG_DATUM(b);
			call->args[i].isnull = PG_ARGISNULL(b);
		}
		else if (b == BIND_SPEC)
			call->args[i].value = JsonbPGetDatum(forward_spec(fcinfo, fi, NULL, NULL));
		else if (b == BIND_ARGS)
			call->args[i].value = JsonbPGetDatum(forward_args(fcinfo, fi, false, NULL));
		else if (b == BIND_FN)
			call->args[i].value = CStringGetTextDatum(fi->fn);
		else if (b == BIND_CALLER)
			call->args[i].value = ObjectIdGetDatum(GetUserId());
		else
			call->args[i].value = CStringGetTextDatum(forward_call_text(fcinfo, fi));
	}

	cb.callback = forward_context;
	cb.arg = marker;
	cb.previous = error_context_stack;
	error_context_stack = &cb;
	mark = ranread_calls_mark();
	PG_TRY();
	{
		result = FunctionCallInvoke(call);
	}
	PG_CATCH();
	{
		ErrorData  *ed;

		/* the calls it registered are over: they count no more (calls.c) */
		ranread_calls_end_since(mark);
		error_context_stack = cb.previous;
		MemoryContextSwitchTo(cxt);
		ed = CopyErrorData();
		FlushErrorState();
		forward_clean_context(ed, marker);
		ReThrowError(ed);
	}
	PG_END_TRY();
	ranread_calls_end_since(mark);
	error_context_stack = cb.previous;
	fcinfo->isnull = call->isnull;
	return result;
}
