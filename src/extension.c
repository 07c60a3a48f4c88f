/*
 * extension.c
 *		Where the extension lives: its schema, its owner and the version of
 *		its SQL objects installed in this database; acting as its owner; and
 *		the one refusal every writing function shares on a hot standby.
 *
 * History tables and targets belong to the extension's owner, and nobody
 * else has privileges on them.  Functions granted to other roles therefore
 * read and write them as the owner (ranread_become_owner), with search_path
 * pinned to pg_catalog so that the caller's schemas cannot choose our
 * operators and functions; the switch is undone by ranread_restore_user or
 * by the transaction's abort.
 *
 * The library serves every installed version of the SQL script: a database
 * still at 1.0 after the package was upgraded keeps running batches, and
 * history.c writes only the columns that version has (ranread_sql_version).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/indexing.h"
#include "catalog/pg_extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/resowner.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_primary_only);

/* The extension's row in pg_extension: schema, owner, version */
static void
extension_info(Oid *nsp, Oid *owner, int *version)
{
	Relation	rel;
	SysScanDesc scan;
	ScanKeyData key;
	HeapTuple	tup;

	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_extname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum("ranread"));
	scan = systable_beginscan(rel, ExtensionNameIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("extension \"ranread\" is not installed in this database")));
	if (nsp)
		*nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	if (owner)
		*owner = ((Form_pg_extension) GETSTRUCT(tup))->extowner;
	if (version)
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);
		char	   *v = isnull ? "1.0" : TextDatumGetCString(d);
		int			major = 1,
					minor = 0;

		(void) sscanf(v, "%d.%d", &major, &minor);
		*version = major * 10 + minor;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
}

/* The extension's schema, unquoted */
char *
ranread_schema_name_raw(void)
{
	Oid			nsp;

	extension_info(&nsp, NULL, NULL);
	return get_namespace_name(nsp);
}

/* The extension's schema, quoted for SQL text */
char *
ranread_schema_name(void)
{
	return pstrdup(quote_identifier(ranread_schema_name_raw()));
}

/* The role that owns the extension */
Oid
ranread_ext_owner(void)
{
	Oid			owner;

	extension_info(NULL, &owner, NULL);
	return owner;
}

/* The installed SQL version: 10 for 1.0, 11 for 1.1 */
int
ranread_sql_version(void)
{
	int			version;

	extension_info(NULL, NULL, &version);
	return version;
}

/*
 * Act as the extension's owner (for SPI on the extension's tables and for
 * creating targets), so that roles granted only EXECUTE need nothing more.
 * Undone by ranread_restore_user, or by the transaction's abort.
 */
void
ranread_become_owner(RanreadOwnerState *st)
{
	GetUserIdAndSecContext(&st->save_user, &st->save_sec);
	SetUserIdAndSecContext(ranread_ext_owner(), st->save_sec | SECURITY_LOCAL_USERID_CHANGE);
	/* the caller's search_path must not choose our operators and functions */
	st->guc_level = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

/* Back to the caller's role and search_path */
void
ranread_restore_user(RanreadOwnerState *st)
{
	AtEOXact_GUC(true, st->guc_level);
	SetUserIdAndSecContext(st->save_user, st->save_sec);
}

/*
 * Refuse, with one clear error, what a hot standby cannot do: write history,
 * make or drop targets, run batches.  Reading history works there.
 */
void
ranread_refuse_on_standby(const char *fn)
{
	if (RecoveryInProgress())
		ereport(ERROR,
				(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
				 errmsg("ranread cannot run on a standby: %s needs a primary server", fn),
				 errdetail("This server is in recovery: it replays the primary's WAL, so it can neither write history nor keep targets (targets are unlogged and exist only on the primary)."),
				 errhint("Run %s on the primary.  Its history replicates here, and ranread_summary and ranread_targets can be read on this server.", fn)));
}

/* ranread_primary_only(fn): the standby refusal, for PL/pgSQL callers */
Datum
ranread_primary_only(PG_FUNCTION_ARGS)
{
	ranread_refuse_on_standby(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	PG_RETURN_VOID();
}

/*
 * Run fn(arg) in a subtransaction that is rolled back afterwards, so that
 * the locks its reads take are released at once instead of at the end of
 * the caller's transaction.  fn must only read, and must put what it found
 * in memory that outlives the subtransaction (arg, allocated by the caller).
 * An error in fn rolls the subtransaction back and is raised again.
 */
void
ranread_without_locks(void (*fn) (void *), void *arg)
{
	MemoryContext oldcontext = CurrentMemoryContext;
	ResourceOwner oldowner = CurrentResourceOwner;

	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(oldcontext);
	PG_TRY();
	{
		fn(arg);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(oldcontext);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(oldcontext);
		CurrentResourceOwner = oldowner;
		ReThrowError(edata);
	}
	PG_END_TRY();
	RollbackAndReleaseCurrentSubTransaction();
	MemoryContextSwitchTo(oldcontext);
	CurrentResourceOwner = oldowner;
}

/* Run a read-only query under SPI, failing on anything but SELECT */
void
ranread_spi_select(const char *sql)
{
	int			rc = SPI_execute(sql, true, 0);

	if (rc != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute failed: %s", SPI_result_code_string(rc));
}
