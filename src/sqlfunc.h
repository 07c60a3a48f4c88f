/*
 * sqlfunc.h
 *		PG_FUNCTION_INFO_V1 that exports the SQL function itself too.
 *
 * The library is built with -fvisibility=hidden (see the Makefile), so that
 * none of its helpers can clash with another library's in the server's
 * global symbol namespace.  PostgreSQL 15's PG_FUNCTION_INFO_V1 exports only
 * the pg_finfo_ record, not the function it describes; PostgreSQL 16 exports
 * both, as this does.  Include after fmgr.h, in every file that defines SQL
 * functions.
 */
#ifndef RANREAD_SQLFUNC_H
#define RANREAD_SQLFUNC_H

#include "fmgr.h"

#undef PG_FUNCTION_INFO_V1
#define PG_FUNCTION_INFO_V1(funcname) \
extern PGDLLEXPORT Datum funcname(PG_FUNCTION_ARGS); \
extern PGDLLEXPORT const Pg_finfo_record * CppConcat(pg_finfo_,funcname)(void); \
const Pg_finfo_record * \
CppConcat(pg_finfo_,funcname) (void) \
{ \
	static const Pg_finfo_record my_finfo = { 1 }; \
	return &my_finfo; \
} \
extern int no_such_variable

#endif							/* RANREAD_SQLFUNC_H */
