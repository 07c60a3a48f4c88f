/*
 * fsinfo.c
 *		Facts about the filesystem under a path, read where the files really
 *		are (a tablespace may have moved, been renamed, or sit on a
 *		different mount than its name suggests): its type and device from
 *		/proc/self/mountinfo, its size and free space, whether it is memory,
 *		the direct I/O alignment; and the reserve ranread_setup leaves free.
 *
 * The reserve exists because a full filesystem takes a PostgreSQL server
 * down: when pg_wal cannot grow, the server PANICs and every session dies.
 * Setup is the only thing in ranread that allocates space (runs overwrite
 * blocks in place), so it checks that the target leaves the reserve free:
 *	 base		room for everything else on the filesystem: 5% of it, at
 *				least 1 MB and at most 10 GB;
 *	 + WAL		when pg_wal is on the filesystem, twice max_wal_size plus
 *				wal_keep_size: max_wal_size is only where a checkpoint starts,
 *				and WAL keeps growing until that checkpoint has finished and
 *				recycled the old segments (under load, or with segments
 *				switched often, that is close to twice as much).
 * The data directory's filesystem gets the same as any other when pg_wal is
 * elsewhere: tables and temporary files live there, but running out of room
 * there fails statements, not the server.  ranread.reserve (superuser) sets
 * a fixed reserve instead of this rule, 0 none.
 *
 * Device utilisation (what fio calls "util"): the share of a window the
 * block device under a target had I/O in flight, from field 10 of its stat
 * in /sys (io_ticks, milliseconds busy).  The device is the one whose
 * number the target's files carry (st_dev), found as /sys/dev/block/MAJ:MIN:
 * a partition has a stat of its own there, and so do device-mapper, md and
 * loop devices (each counts its own busy time, not that of the disks under
 * it).  A filesystem whose st_dev is no block device (btrfs, overlay, NFS,
 * FUSE: an anonymous device number) has no such stat, and its batches
 * record no utilisation.  Nor does a device whose queue keeps no
 * statistics (queue/iostats 0, a partition's in its disk's queue): its
 * counters stand still.
 *
 * Atomic writes (fsinfo_atomic): Linux 6.11 and later say through statx
 * (STATX_WRITE_ATOMIC) which write sizes a file takes whole or not at all:
 * stx_atomic_write_unit_min and _max, and how many segments one such write
 * may have.  The filesystem answers for its files, from what the device
 * under it guarantees (its queue's atomic_write_unit_max_bytes) and its own
 * block size; a device that guarantees nothing reports 0 and 0.  The
 * guarantee holds for a write issued with RWF_ATOMIC and O_DIRECT, which
 * PostgreSQL 15 does not issue: ranread_advise says what that means for
 * full_page_writes.  Debian 12's headers predate the fields, so the struct
 * is laid out here as the kernel's uapi has it, and the syscall made raw;
 * an older kernel leaves the mask bit unset, which reads as "not reported".
 * A filesystem answers for regular files only, so a directory is asked
 * through a file in it; where nothing answers, the note says why, from
 * what is known (no statx, the call failed, a kernel before 6.11 by uname,
 * no regular file to ask, or else a filesystem that does not report), so
 * that two paths on one filesystem get the same answer.
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "access/xlog.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/tablespace.h"
#include "common/relpath.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "fsinfo.h"

#define TMPFS_MAGIC_NUMBER	0x01021994
#define RAMFS_MAGIC_NUMBER	0x858458f6
#define RESERVE_MIN_BYTES	((uint64) 1024 * 1024)
#define RESERVE_MAX_BYTES	((uint64) 10 * 1024 * 1024 * 1024)
#define RESERVE_SHARE		0.05

/*
 * The mount that holds path: the mountinfo line with the path's device
 * whose mount point is the longest prefix of the path's real location.
 */
static void
read_mountinfo(const char *path, dev_t dev, FsInfo *fi)
{
	char	   *resolved = realpath(path, NULL);
	char	   *real = pstrdup(resolved ? resolved : path);
	FILE	   *f;
	char		line[4096];
	size_t		best = 0;

	free(resolved);
	f = fopen("/proc/self/mountinfo", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f))
	{
		unsigned int maj,
					min;
		char		mnt[MAXPGPATH];
		char	   *dash;
		char		type[RANREAD_FS_LEN];
		char		source[MAXPGPATH];
		size_t		len;

		/* id parent major:minor root mount-point options ... - type source opts */
		if (sscanf(line, "%*d %*d %u:%u %*s %1023s", &maj, &min, mnt) != 3)
			continue;
		if (makedev(maj, min) != dev)
			continue;
		dash = strstr(line, " - ");
		if (dash == NULL || sscanf(dash + 3, "%31s %1023s", type, source) != 2)
			continue;
		len = strlen(mnt);
		if (strncmp(real, mnt, len) != 0 ||
			(len > 1 && real[len] != '/' && real[len] != '\0') || len < best)
			continue;
		best = len;
		ranread_strlcpy(fi->mount_point, mnt, sizeof(fi->mount_point));
		ranread_strlcpy(fi->type, type, sizeof(fi->type));
		ranread_strlcpy(fi->source, source, sizeof(fi->source));
	}
	fclose(f);
}

/*
 * Read the facts about the filesystem of path (a file or a directory,
 * relative to the data directory or absolute).
 */
void
fsinfo_read(const char *path, FsInfo *fi)
{
	struct stat st;
	struct statfs sfs;
	struct statvfs svfs;

	memset(fi, 0, sizeof(*fi));
	if (stat(path, &st) != 0 || statfs(path, &sfs) != 0 || statvfs(path, &svfs) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not inspect the filesystem of \"%s\": %m", path)));
	fi->dev = st.st_dev;
	fi->size_bytes = (uint64) svfs.f_blocks * svfs.f_frsize;
	fi->avail_bytes = (uint64) svfs.f_bavail * svfs.f_frsize;
	fi->memory = (uint64) sfs.f_type == TMPFS_MAGIC_NUMBER ||
		(uint64) sfs.f_type == RAMFS_MAGIC_NUMBER;
	snprintf(fi->type, sizeof(fi->type), "0x%lx", (unsigned long) sfs.f_type);
	read_mountinfo(path, st.st_dev, fi);

	fi->dio_align = 4096;
#ifdef STATX_DIOALIGN
	{
		struct statx stx;

		if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &stx) == 0 &&
			(stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0)
			fi->dio_align = Max(stx.stx_dio_offset_align, stx.stx_dio_mem_align);
	}
#endif
}

/* struct statx as Linux 6.11+ lays it out (include/uapi/linux/stat.h) */
typedef struct RanreadStatx
{
	uint32		stx_mask;
	uint32		stx_blksize;
	uint64		stx_attributes;
	uint32		stx_nlink;
	uint32		stx_uid;
	uint32		stx_gid;
	uint16		stx_mode;
	uint16		spare0;
	uint64		stx_ino;
	uint64		stx_size;
	uint64		stx_blocks;
	uint64		stx_attributes_mask;
	uint64		stx_times[8];	/* atime, btime, ctime, mtime: 16 bytes each */
	uint32		stx_rdev_major;
	uint32		stx_rdev_minor;
	uint32		stx_dev_major;
	uint32		stx_dev_minor;
	uint64		stx_mnt_id;
	uint32		stx_dio_mem_align;
	uint32		stx_dio_offset_align;
	uint64		stx_subvol;
	uint32		stx_atomic_write_unit_min;	/* at 0xa8 */
	uint32		stx_atomic_write_unit_max;
	uint32		stx_atomic_write_segments_max;
	uint32		stx_dio_read_offset_align;
	uint32		stx_atomic_write_unit_max_opt;
	uint32		spare2;
	uint64		spare3[8];
} RanreadStatx;

StaticAssertDecl(sizeof(RanreadStatx) == 0x100, "struct statx is 256 bytes");
StaticAssertDecl(offsetof(RanreadStatx, stx_atomic_write_unit_min) == 0xa8,
				 "stx_atomic_write_unit_min is at 0xa8");

#define RR_STATX_WRITE_ATOMIC		0x00010000U
#define RR_STATX_ATTR_WRITE_ATOMIC	UINT64CONST(0x00400000)

/*
 * The file to ask about atomic writes under path: path itself, or for a
 * directory a regular file in it, since filesystems answer for regular
 * files only (a directory gets no answer, whatever the kernel): a
 * relation's segment (a name of digits) where there is one, else any (the
 * data directory's PG_VERSION); the directory itself when it has none.
 */
static void
atomic_probe_path(const char *path, char *out)
{
	struct stat st;
	DIR		   *d;
	struct dirent *de;
	bool		found = false;

	ranread_strlcpy(out, path, MAXPGPATH);
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode) || (d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
	{
		char		f[MAXPGPATH];
		bool		relation = de->d_name[0] >= '0' && de->d_name[0] <= '9';

		if (de->d_name[0] == '.' || (found && !relation))
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, de->d_name);
		if (stat(f, &st) == 0 && S_ISREG(st.st_mode))
		{
			ranread_strlcpy(out, f, MAXPGPATH);
			found = true;
			if (relation)
				break;
		}
	}
	closedir(d);
}

/* Is the running kernel older than major.minor (false when it cannot tell)? */
static bool
kernel_before(int major, int minor)
{
	struct utsname un;
	int			ma,
				mi;

	if (uname(&un) != 0 || sscanf(un.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/*
 * What statx says of atomic writes under path (see the top).  Never fails:
 * a->reported false when the kernel or filesystem says nothing.
 */
void
fsinfo_atomic(const char *path, FsAtomic *a)
{
	struct stat st;

	memset(a, 0, sizeof(*a));
	atomic_probe_path(path, a->asked);
	a->old_kernel = kernel_before(6, 11);
	a->not_file = stat(a->asked, &st) == 0 && !S_ISREG(st.st_mode);
	a->statx_errno = ENOSYS;
#ifdef SYS_statx
	{
		RanreadStatx stx;

		memset(&stx, 0, sizeof(stx));
		if (syscall(SYS_statx, AT_FDCWD, a->asked, 0, RR_STATX_WRITE_ATOMIC, &stx) != 0)
		{
			a->statx_errno = errno;
			return;
		}
		a->statx_errno = 0;
		if (!(stx.stx_mask & RR_STATX_WRITE_ATOMIC))
			return;
		a->reported = true;
		a->attribute = (stx.stx_attributes & RR_STATX_ATTR_WRITE_ATOMIC) != 0;
		a->unit_min = stx.stx_atomic_write_unit_min;
		a->unit_max = stx.stx_atomic_write_unit_max;
		a->segments_max = stx.stx_atomic_write_segments_max;
		a->atomic_8k = a->unit_min > 0 && a->unit_min <= BLCKSZ && a->unit_max >= BLCKSZ &&
			a->segments_max >= 1;
	}
#endif
}

/* One phrase: "atomic 8 kB writes guaranteed (...)" or not, and why */
char *
fsinfo_atomic_note(const FsAtomic *a)
{
	if (!a->reported)
		return psprintf("atomic 8 kB writes not guaranteed (%s)",
						a->statx_errno == ENOSYS ? "no statx on this kernel" :
						a->statx_errno != 0 ? psprintf("statx failed: %s", strerror(a->statx_errno)) :
						a->old_kernel ? "statx reports no atomic writes: a kernel before 6.11" :
						a->not_file ? "statx reports atomic writes of regular files only, and there is none here" :
						"statx: the filesystem does not report atomic write units");
	if (a->atomic_8k)
		return psprintf("atomic 8 kB writes guaranteed (statx: writes of %u to %u bytes, %u segment%s, whole or not at all with RWF_ATOMIC and O_DIRECT)",
						a->unit_min, a->unit_max, a->segments_max, a->segments_max == 1 ? "" : "s");
	if (a->unit_max == 0)
		return pstrdup("atomic 8 kB writes not guaranteed (statx: no atomic write unit, the device or filesystem guarantees none)");
	return psprintf("atomic 8 kB writes not guaranteed (statx: atomic writes of %u to %u bytes only)",
					a->unit_min, a->unit_max);
}

/*
 * Does the queue of the device in /sys directory dir keep no statistics
 * (queue/iostats is 0)?  A partition's queue is its disk's, one directory
 * up.  Unknown (no such file) is taken as counting.
 */
static bool
iostats_off(const char *dir)
{
	char		path[MAXPGPATH];
	char		c = '1';
	int			fd;

	snprintf(path, sizeof(path), "%s/queue/iostats", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
	{
		snprintf(path, sizeof(path), "%s/../queue/iostats", dir);
		fd = open(path, O_RDONLY);
	}
	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '0';
}

/*
 * The block device under path, if /sys/dev/block has a stat for it: its
 * name (the directory's) and where its stat is.  Never fails: d->known says
 * whether there is one.
 */
void
fsinfo_device(const char *path, FsDevice *d)
{
	struct stat st;
	char		link[64];
	char	   *dir;
	const char *slash;

	memset(d, 0, sizeof(*d));
	if (stat(path, &st) != 0)
		return;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	dir = realpath(link, NULL);
	if (dir == NULL)
		return;
	slash = strrchr(dir, '/');
	ranread_strlcpy(d->name, slash ? slash + 1 : dir, sizeof(d->name));
	snprintf(d->stat_path, sizeof(d->stat_path), "%s/stat", dir);
	d->uncounted = iostats_off(dir);
	free(dir);
	d->known = access(d->stat_path, R_OK) == 0 && d->name[0] != '\0';
}

/*
 * The device's counters so far: sectors read (field 3 of its stat) and busy
 * time (io_ticks, field 10).  No allocation, no error: false when they
 * cannot be read.
 */
bool
fsinfo_counters(const FsDevice *d, FsCounters *c)
{
	char		buf[512];
	char	   *p = buf;
	ssize_t		n;
	int			fd;

	if (!d->known || d->uncounted)
		return false;
	fd = open(d->stat_path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	for (int field = 1; field <= 10; field++)
	{
		char	   *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			return false;
		if (field == 3)
			c->read_bytes = (uint64) v * 512;
		else if (field == 10)
		{
			c->io_ticks_ms = (uint64) v;
			return true;
		}
		p = end;
	}
	return false;
}

/* Is path on the filesystem with device dev? */
bool
fsinfo_same_device(const char *path, dev_t dev)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_dev == dev;
}

/* The reserve ranread_setup leaves free on a filesystem (see the top) */
void
fsinfo_reserve(const FsInfo *fi, FsReserve *r)
{
	memset(r, 0, sizeof(*r));
	r->holds_wal = fsinfo_same_device("pg_wal", fi->dev);	/* follows a symlinked pg_wal */
	r->holds_data = fsinfo_same_device(".", fi->dev);
	if (ranread_reserve_guc >= 0)
	{
		r->bytes = (uint64) ranread_reserve_guc * 1024 * 1024;
		return;
	}
	r->automatic = true;
	r->base_bytes = (uint64) (fi->size_bytes * RESERVE_SHARE);
	r->base_bytes = Max(r->base_bytes, RESERVE_MIN_BYTES);
	r->base_bytes = Min(r->base_bytes, RESERVE_MAX_BYTES);
	if (r->holds_wal)
		r->wal_bytes = (2 * (uint64) max_wal_size_mb + (uint64) wal_keep_size_mb) * 1024 * 1024;
	r->bytes = r->base_bytes + r->wal_bytes;
}

/* pg_size_pretty of a byte count, as a C string */
char *
fsinfo_pretty(uint64 bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) bytes))));
}

PG_FUNCTION_INFO_V1(ranread_atomic_writes);

/*
 * ranread_internal.ranread_atomic_writes(tablespace name) returns (asked,
 * reported, unit_min, unit_max, segments_max, atomic_8k, note): what statx
 * says of atomic writes on the tablespace (NULL: the database's own), asked
 * of a relation's file in the database's directory there (fsinfo_atomic).
 * It names a path: superusers and pg_monitor, as ranread_server_info.
 */
Datum
ranread_atomic_writes(PG_FUNCTION_ARGS)
{
	Oid			spcoid = MyDatabaseTableSpace;
	char	   *dir;
	struct stat st;
	FsAtomic	a;
	TupleDesc	tupdesc;
	Datum		values[7];
	bool		nulls[7] = {false};

	if (!PG_ARGISNULL(0))
	{
		char	   *name = NameStr(*PG_GETARG_NAME(0));

		spcoid = get_tablespace_oid(name, true);
		if (!OidIsValid(spcoid))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("tablespace \"%s\" does not exist", name),
					 errhint("See \\db in psql for the tablespaces of this server.")));
	}
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "ranread_atomic_writes must return a row");
	if (spcoid == DEFAULTTABLESPACE_OID)
		dir = psprintf("base/%u", MyDatabaseId);
	else if (spcoid == GLOBALTABLESPACE_OID)
		dir = pstrdup("global");
	else
	{
		dir = psprintf("pg_tblspc/%u/%s/%u", spcoid, TABLESPACE_VERSION_DIRECTORY, MyDatabaseId);
		if (stat(dir, &st) != 0)
			dir = psprintf("pg_tblspc/%u", spcoid);
	}
	fsinfo_atomic(dir, &a);
	values[0] = CStringGetTextDatum(a.asked);
	values[1] = BoolGetDatum(a.reported);
	values[2] = Int32GetDatum((int32) Min(a.unit_min, (uint32) PG_INT32_MAX));
	values[3] = Int32GetDatum((int32) Min(a.unit_max, (uint32) PG_INT32_MAX));
	values[4] = Int32GetDatum((int32) Min(a.segments_max, (uint32) PG_INT32_MAX));
	nulls[2] = nulls[3] = nulls[4] = !a.reported;
	values[5] = BoolGetDatum(a.atomic_8k);
	values[6] = CStringGetTextDatum(fsinfo_atomic_note(&a));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
