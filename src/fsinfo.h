/*
 * fsinfo.h
 *		Facts about the filesystem under a path (fsinfo.c): type, device,
 *		free space, direct I/O alignment, and the reserve setup leaves.
 */
#ifndef RANREAD_FSINFO_H
#define RANREAD_FSINFO_H

#include "ranread.h"

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

extern void fsinfo_read(const char *path, FsInfo *fi);
extern void fsinfo_reserve(const FsInfo *fi, FsReserve *r);
extern bool fsinfo_same_device(const char *path, dev_t dev);
extern char *fsinfo_pretty(uint64 bytes);

#endif							/* RANREAD_FSINFO_H */
