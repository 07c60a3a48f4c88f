/*
 * fsinfo.h
 *		Facts about the filesystem under a path (fsinfo.c): type, device,
 *		free space, direct I/O alignment, the reserve setup leaves, and the
 *		block device's busy time.
 */
#ifndef RANREAD_FSINFO_H
#define RANREAD_FSINFO_H

#include "ranread.h"
#include "batch.h"

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

/*
 * The block device under a path, as the kernel counts its I/O: for the
 * device utilisation of a batch (busy time from its /sys stat, io_ticks)
 */
#define RANREAD_DEV_LEN	32
typedef struct FsDevice
{
	bool		known;			/* false: no block device has a stat for it */
	char		name[RANREAD_DEV_LEN];	/* vda, sda2, dm-0, loop3, nvme0n1p1 */
	char		stat_path[MAXPGPATH];	/* its /sys/.../stat */
	bool		uncounted;		/* its queue keeps no statistics (iostats 0) */
} FsDevice;

/*
 * A block device's counters (its stat, Documentation/block/stat.rst): the
 * bytes it read (sectors read, in 512-byte units whatever its block size)
 * and its busy time in ms (io_ticks)
 */
typedef struct FsCounters
{
	uint64		read_bytes;
	uint64		io_ticks_ms;
} FsCounters;

/*
 * Atomic writes under a path, as statx (STATX_WRITE_ATOMIC, Linux 6.11+)
 * reports them for a file there: the sizes a single RWF_ATOMIC write with
 * O_DIRECT may have and be written whole or not at all.
 */
typedef struct FsAtomic
{
	bool		reported;		/* statx answered STATX_WRITE_ATOMIC */
	bool		attribute;		/* STATX_ATTR_WRITE_ATOMIC set on the file */
	uint32		unit_min;		/* bytes; 0 when none */
	uint32		unit_max;
	uint32		segments_max;
	bool		atomic_8k;		/* an 8 kB write is one of them */
	char		asked[MAXPGPATH];	/* the file (or directory) asked */
	/* why statx did not answer (reported false) */
	int			statx_errno;	/* the call failed (ENOSYS: no statx); 0 it answered */
	bool		old_kernel;		/* the kernel is older than 6.11 */
	bool		not_file;		/* what was asked is no regular file */
} FsAtomic;

extern void fsinfo_read(const char *path, FsInfo *fi);
extern void fsinfo_atomic(const char *path, FsAtomic *a);
extern char *fsinfo_atomic_note(const FsAtomic *a);
extern void fsinfo_device(const char *path, FsDevice *d);
extern bool fsinfo_counters(const FsDevice *d, FsCounters *c);
extern void fsinfo_reserve(const FsInfo *fi, FsReserve *r);
extern bool fsinfo_same_device(const char *path, dev_t dev);
extern char *fsinfo_pretty(uint64 bytes);

#endif							/* RANREAD_FSINFO_H */
