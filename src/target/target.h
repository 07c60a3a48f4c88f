/*
 * target.h
 *		Targets (target.c) and their access method (target_am.c); the
 *		filesystem under them is fsinfo.h, their fill fill.h.
 */
#ifndef RANREAD_TARGET_H
#define RANREAD_TARGET_H

#include "ranread.h"
#include "fsinfo.h"

#include "storage/block.h"

/* A target as the catalog and pg_class describe it now */
typedef struct RanreadTarget
{
	Oid			relid;
	char		name[NAMEDATALEN];
	Oid			spcoid;			/* where its files are now (never 0) */
	char		tablespace[NAMEDATALEN];
	uint64		size_bytes;		/* as made */
	int64		nblocks;		/* on disk now */
	bool		rewritten;		/* its relfilenode is not its first one */
	bool		protected;		/* made with the ranread_target access method */
	char		relpath[MAXPGPATH]; /* segment 0, from the data directory */
	bool		missing;		/* segment 0 is gone (stat failed: file_errno) */
	int			file_errno;
	char		made_in[NAMEDATALEN];	/* the tablespace setup made it in */
} RanreadTarget;

/* target.c */
extern const char *target_arg(FunctionCallInfo fcinfo, int argno, const char *fn);
extern const char *name_arg(FunctionCallInfo fcinfo, int argno, const char *what,
							const char *fn, const char *hint);
extern bool target_lookup(const char *name, RanreadTarget *t);
extern void target_check_usable(const RanreadTarget *t, const char *fn);
extern char *target_relname(const char *target);

/* durability.c: the durability files a purge leaves (docs/writes-and-durability.md, "Does the storage keep what it flushes?") */
extern char *durability_files_on(Oid spcoid);

/* target_am.c */
extern void target_am_allow_create(const char *relname, Oid nsp);
extern void target_am_allow_create_logged(const char *relname, Oid nsp);
extern void target_am_end_create(void);

#endif							/* RANREAD_TARGET_H */
