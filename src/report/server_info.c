/*-------------------------------------------------------------------------
 *
 * server_info.c
 *		ranread_server_info: what a report says about the server that SQL
 *		cannot see.
 *
 * The kernel, the CPUs and RAM, and for the data directory, pg_wal and
 * each target the filesystem and device under them (fsinfo.c), with the
 * device's model and whether it is rotational from /sys/class/block.  The
 * HTML report (ranread_report, 44_report.sql) prints these rows beside
 * version() and the settings that matter.  Targets are listed only to a
 * caller who may read the catalog of their relations: pg_monitor reads the
 * targets but not where their files are.
 *
 * Copyright (c) the ranread authors
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/builtins.h"

#include "ranread.h"
#include "target.h"

PG_FUNCTION_INFO_V1(ranread_server_info);

/* Read the first line of a small sysfs file into buf; false if none */
static bool
info_read_line(const char *path, char *buf, int size)
{
	FILE	   *f = AllocateFile(path, "r");
	bool		ok;

	if (f == NULL)
		return false;
	ok = fgets(buf, size, f) != NULL;
	FreeFile(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok && buf[0] != '\0';
}

/*
 * The device under a filesystem, as /sys/class/block tells it: the disk (a
 * partition's parent), its model and whether it is rotational.  source is
 * what mountinfo names, such as /dev/vda1.
 */
static char *
info_device(const char *source)
{
	const char *name = strrchr(source, '/') ? strrchr(source, '/') + 1 : source;
	char		path[MAXPGPATH];
	char		disk[MAXPGPATH];
	char		model[256] = "";
	char		rot[16] = "";
	const char *what = "model";
	char	   *real;
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, source);
	if (strncmp(source, "/dev/", 5) != 0)
		return s.data;
	snprintf(path, sizeof(path), "/sys/class/block/%s", name);
	real = realpath(path, NULL);
	if (real == NULL)
		return s.data;
	/* a partition's directory sits in its disk's */
	snprintf(path, sizeof(path), "%s/partition", real);
	if (access(path, F_OK) == 0)
		snprintf(disk, sizeof(disk), "%s/..", real);
	else
		strlcpy(disk, real, sizeof(disk));
	free(real);

	snprintf(path, sizeof(path), "%s/device/model", disk);
	if (!info_read_line(path, model, sizeof(model)))
	{
		snprintf(path, sizeof(path), "%s/device/vendor", disk);
		(void) info_read_line(path, model, sizeof(model));
		what = "vendor";
	}
	snprintf(path, sizeof(path), "%s/queue/rotational", disk);
	(void) info_read_line(path, rot, sizeof(rot));
	while (strlen(model) > 0 && model[strlen(model) - 1] == ' ')
		model[strlen(model) - 1] = '\0';
	if (model[0] != '\0')
		appendStringInfo(&s, ", %s %s", what, model);
	if (rot[0] != '\0')
		appendStringInfoString(&s, rot[0] == '1' ? ", rotational" : ", not rotational");
	return s.data;
}

/*
 * "ext4 on /dev/vda1 (...), mounted at /, 12 GB free of 40 GB; atomic 8 kB
 * writes not guaranteed (statx: ...)"
 */
static char *
info_filesystem(const char *path)
{
	FsInfo		fi;
	FsAtomic	a;
	struct stat st;

	if (stat(path, &st) != 0)
		return psprintf("%s: not found", path);
	fsinfo_read(path, &fi);
	fsinfo_atomic(path, &a);
	return psprintf("%s on %s, mounted at %s, %s free of %s; %s",
					fi.type, info_device(fi.source), fi.mount_point,
					fsinfo_pretty(fi.avail_bytes), fsinfo_pretty(fi.size_bytes),
					fsinfo_atomic_note(&a));
}

static void
info_put(ReturnSetInfo *rsinfo, const char *item, const char *value)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(item);
	values[1] = CStringGetTextDatum(value);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * ranread_server_info() RETURNS TABLE (item text, value text)
 *
 * What a report says about the server that SQL cannot see: the kernel, the
 * CPUs and RAM, and the filesystem and device under the data directory,
 * pg_wal and each target.  Superusers and pg_monitor (it names paths and
 * devices, as pg_stat_file would).
 */
Datum
ranread_server_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	struct utsname un;
	long		cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64		ram = (int64) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	char	   *schema = ranread_schema_name();
	uint64		row;
	bool		isnull;

	InitMaterializedSRF(fcinfo, 0);

	if (uname(&un) == 0)
		info_put(rsinfo, "kernel", psprintf("%s %s %s", un.sysname, un.release, un.machine));
	info_put(rsinfo, "cpus", psprintf("%ld", cpus));
	info_put(rsinfo, "ram", ram > 0 ? fsinfo_pretty(ram) : "unknown");
	info_put(rsinfo, "data directory", info_filesystem(DataDir));
	info_put(rsinfo, "pg_wal", info_filesystem(psprintf("%s/pg_wal", DataDir)));

	SPI_connect();
	/* pg_monitor reads the targets but not the catalog of their relations */
	ranread_spi_select(psprintf("SELECT pg_catalog.has_table_privilege('%s.ranread_target_catalog', 'SELECT')",
								schema));
	if (!DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
	{
		info_put(rsinfo, "targets", "their files are not shown: that needs SELECT on ranread_target_catalog");
		SPI_finish();
		return (Datum) 0;
	}
	ranread_spi_select(psprintf("SELECT c.target::pg_catalog.text, t.tablespace::pg_catalog.text,"
								" pg_catalog.pg_size_pretty(c.size_bytes),"
								" pg_catalog.pg_relation_filepath(c.relid)"
								" FROM %s.ranread_target_catalog c JOIN %s.ranread_targets t USING (target)"
								" ORDER BY 1", schema, schema));
	for (row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *target = SPI_getvalue(tuple, desc, 1);
		char	   *spc = SPI_getvalue(tuple, desc, 2);
		char	   *size = SPI_getvalue(tuple, desc, 3);
		char	   *rel = SPI_getvalue(tuple, desc, 4);

		info_put(rsinfo, psprintf("target %s", target),
				 psprintf("%s in tablespace %s: %s", size, spc ? spc : "unknown",
						  rel ? info_filesystem(psprintf("%s/%s", DataDir, rel)) : "no file"));
	}
	SPI_finish();
	return (Datum) 0;
}
