/*
 * options.c
 *		The table of a workload's options: for each, its name, where it
 *		stands in a spec, its type, its default, its bounds, what is allowed
 *		and one line of help.  The parser (workload.c) reads specs through
 *		it, the checks (params.c) take their bounds and hints from it, and
 *		ranread_options() lists it.  It depends on nothing but the limits in
 *		ranread.h, so both can include it.
 *
 * The table itself is src/workload/options.tsv, from which the build makes its rows
 * (options_table.h, scripts/options-c) and the SQL arguments of the
 * functions that take an option (scripts/expand-options).  A new option is
 * a row there, its case where workload.c applies it and its check in
 * params.c.
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "options.h"

/*
 * The options, in the order of src/workload/options.tsv (ranread_run's arguments,
 * then what only a spec has).  default_value is the default every function
 * uses unless its signature says otherwise; null_means says what NULL means
 * where NULL is allowed.
 */
const WorkloadOption workload_options[] = {
	WORKLOAD_OPTION_ROWS
};

const int	workload_noptions = lengthof(workload_options);

/* An option by name; NULL when there is none */
const WorkloadOption *
workload_option(const char *name)
{
	for (int i = 0; i < workload_noptions; i++)
		if (strcmp(workload_options[i].name, name) == 0)
			return &workload_options[i];
	return NULL;
}

/* An option by key */
const WorkloadOption *
workload_option_by_key(WorkloadKey key)
{
	for (int i = 0; i < workload_noptions; i++)
		if (workload_options[i].key == key)
			return &workload_options[i];
	elog(ERROR, "no workload option %d", (int) key);
	return NULL;					/* keep compiler quiet */
}

/* The SQL type of an option's values */
Oid
workload_type_oid(WorkloadType type)
{
	static const Oid oids[] = {INT4OID, INT8OID, FLOAT8OID, TEXTOID, NAMEOID, INTERVALOID,
	TIMESTAMPTZOID, JSONBOID, BOOLOID};

	return oids[type];
}

/*
 * The one null check: arg of fn must be given, with the hint (what is
 * allowed) the caller has for it
 */
void
workload_require(bool isnull, const char *arg, const char *fn, const char *hint)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of %s must not be null", arg, fn),
				 hint ? errhint("%s", hint) : 0));
}
