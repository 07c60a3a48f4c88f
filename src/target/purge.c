/*
 * purge.c
 *		Who may purge a target (README, "Privileges"; docs/design.md,
 *		"What any role may call").
 *
 * ranread_purge drops a target and frees its space (target.c).  A role
 * granted 'run' may call it, so before it runs this file asks what
 * PostgreSQL would ask of the role for the relation's tablespace, and
 * keeps the probe targets out of its reach:
 *
 *	 - a role that is not a superuser purges a target only in the
 *	   database's default tablespace or one where it holds CREATE (the rule
 *	   ranread_setup follows to make one there);
 *	 - a probe target (ranread_probe_<tablespace>, which
 *	   ranread_probe_setup makes and every probe of that tablespace reads)
 *	   goes only through ranread_probe_purge(tablespace), which names the
 *	   tablespace whose probes then stop, or by a superuser's ranread_purge.
 *
 * Both then hand the target to target.c's ranread_purge as it is.
 */
#include "postgres.h"

#include "catalog/pg_tablespace_d.h"
#include "commands/tablespace.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/regproc.h"

#include "ranread.h"
#include "target.h"

PG_FUNCTION_INFO_V1(ranread_purge_checked);
PG_FUNCTION_INFO_V1(ranread_probe_purge);

/* target.c: the purge itself */
extern PGDLLEXPORT Datum ranread_purge(PG_FUNCTION_ARGS);

#define PROBE_PREFIX "ranread_probe_"

/* Error unless the role may drop a relation in that tablespace */
static void
may_purge_in(Oid spcoid, const char *target, const char *fn)
{
	if (superuser() || spcoid == MyDatabaseTableSpace || !OidIsValid(spcoid))
		return;
	if (pg_tablespace_aclcheck(spcoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to purge target \"%s\" in tablespace \"%s\"", target,
						get_tablespace_name(spcoid) ? get_tablespace_name(spcoid) : "?"),
				 errdetail("%s drops a target only where the role may create one: the database's default tablespace (\"%s\"), or a tablespace it holds CREATE on.",
						   fn, get_tablespace_name(MyDatabaseTableSpace)),
				 errhint("GRANT CREATE ON TABLESPACE %s TO the role that purges, or purge as a superuser.",
						 quote_identifier(get_tablespace_name(spcoid)))));
}

/*
 * ranread_purge(target), as users call it: the checks above, then the
 * purge
 */
Datum
ranread_purge_checked(PG_FUNCTION_ARGS)
{
	RanreadTarget t;
	const char *target = target_arg(fcinfo, 0, "ranread_purge");

	memset(&t, 0, sizeof(t));
	if (!superuser() && strncmp(target, PROBE_PREFIX, strlen(PROBE_PREFIX)) == 0)
	{
		bool		found = target_lookup(target, &t);

		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to purge the probe target \"%s\" with ranread_purge", target),
				 errdetail("Every probe of its tablespace reads it; a probe without it fails."),
				 found ? errhint("SELECT ranread_probe_purge(%s); drops it, naming the tablespace whose probes stop.",
								 quote_literal_cstr(t.tablespace)) :
				 errhint("ranread_probe_purge(tablespace) drops a tablespace's probe target.")));
	}
	if (target_lookup(target, &t))
		may_purge_in(t.spcoid, target, "ranread_purge");
	return ranread_purge(fcinfo);
}

/*
 * ranread_probe_purge(tablespace): drop that tablespace's probe target
 * (ranread_internal.ranread_probe_target names it), with the same
 * tablespace rule; its probes fail until ranread_probe_setup makes it again
 */
Datum
ranread_probe_purge(PG_FUNCTION_ARGS)
{
	const char *tablespace = name_arg(fcinfo, 0, "tablespace", "ranread_probe_purge",
									  "Name the tablespace whose probe target to drop, such as 'pg_default'.");
	Oid			spcoid = get_tablespace_oid(tablespace, true);
	Oid			namer;
	Name		target;
	RanreadTarget t;

	if (!OidIsValid(spcoid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("tablespace \"%s\" of ranread_probe_purge does not exist", tablespace),
				 errhint("ranread_targets lists the probe targets and their tablespaces.")));
	namer = DatumGetObjectId(DirectFunctionCall1(regprocedurein,
												 CStringGetDatum("ranread_internal.ranread_probe_target(name)")));
	target = DatumGetName(OidFunctionCall1(namer, PG_GETARG_DATUM(0)));
	memset(&t, 0, sizeof(t));
	if (target_lookup(NameStr(*target), &t))
		may_purge_in(t.spcoid, NameStr(*target), "ranread_probe_purge");
	else
		may_purge_in(spcoid, NameStr(*target), "ranread_probe_purge");
	return DirectFunctionCall1(ranread_purge, NameGetDatum(target));
}
