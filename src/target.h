/*
 * target.h
 *		Targets (target.c), their access method (target_am.c) and the facts
 *		about the filesystem under them (fsinfo.c); their fill is fill.h.
 */
#ifndef RANREAD_TARGET_H
#define RANREAD_TARGET_H

#include "ranread.h"

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

/* The filesystem under a path */
typedef struct FsInfo
{
	dev_t		dev;
	char		type[RANREAD_FS_LEN];	/* ext4, xfs, tmpfs, fuse.x ... */
	char		mount_point[MAXPGPATH];
	char		source[MAXPGPATH];	/* the device, as mountinfo names it */
	uint64		size_bytes;
	uint64		avail_bytes;	/* free to unprivileged users */
	bool		memory;			/* tmpfs or ramfs: no real O_DIRECT */
	int			dio_align;		/* direct I/O alignment of a file there */
} FsInfo;

/* The room ranread_setup leaves free on a filesystem */
typedef struct FsReserve
{
	uint64		bytes;
	bool		automatic;		/* computed, not ranread.reserve */
	bool		holds_wal;		/* pg_wal is on this filesystem */
	bool		holds_data;		/* the data directory is on this filesystem */
	uint64		base_bytes;		/* the part for everything else there */
	uint64		wal_bytes;		/* the part for WAL to grow to its limits */
} FsReserve;

/* target.c */
extern const char *target_arg(FunctionCallInfo fcinfo, int argno, const char *fn);
extern const char *name_arg(FunctionCallInfo fcinfo, int argno, const char *what,
							const char *fn, const char *hint);
extern bool target_lookup(const char *name, RanreadTarget *t);
extern void target_check_usable(const RanreadTarget *t, const char *fn);
extern char *target_relname(const char *target);

/* target_am.c */
extern void target_am_allow_create(const char *relname, Oid nsp);
extern void target_am_end_create(void);

/* fsinfo.c */
extern void fsinfo_read(const char *path, FsInfo *fi);
extern void fsinfo_reserve(const FsInfo *fi, FsReserve *r);
extern bool fsinfo_same_device(const char *path, dev_t dev);
extern char *fsinfo_pretty(uint64 bytes);

#endif							/* RANREAD_TARGET_H */
