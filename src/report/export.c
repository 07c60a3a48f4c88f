/*-------------------------------------------------------------------------
 *
 * export.c
 *		ranread_export: the summary written to a server file (tsv, csv, json,
 *		the sweep chart as svg, or the HTML report); ranread_export_study
 *		and ranread_export_sweep: one study (the HTML report, ORION's csv
 *		grids and summary, or json) or one sweep (the HTML report).
 *
 * Everything here runs in the calling backend and only reads history through
 * SPI; no worker, shared memory or lock of the benchmark is involved, so a
 * report can be drawn while a batch runs (it sees the batches committed so
 * far).  The svg format is ranread_chart(NULL), called through SPI so that
 * the caller's privilege to draw it is checked as for a direct call.
 * Queries name the extension's schema explicitly (looked up in
 * pg_extension, quoted) and every operator and function by its pg_catalog
 * name, so a hostile search_path changes nothing.
 *
 * The HTML report is written by SQL (ranread_report, 44_report.sql): it
 * draws its charts with the renderer and reads the history as the caller
 * may, so this file only writes it, as it writes the chart.  The study's csv
 * and json are ranread_internal.ranread_study_csv and ranread_study_json for
 * the same reason.  What the report says about the server is
 * server_info.c's.
 *
 * ranread_export() renders the whole file in memory first (the summary has
 * one row per batch, so it is small), converts it to UTF-8, and only then
 * creates the file with O_CREAT | O_EXCL: an existing file is never touched,
 * a symlink planted at the name is refused, and a failed write removes the
 * partial file.  The file is readable by all (0644), like one written by
 * COPY TO.  Names carry the session's local time to the second; a second
 * export in the same second and format gets the suffix -2, -3, ... rather
 * than an error, because scripts that export right after a run commonly do
 * that.  Values are written as PostgreSQL prints them with DateStyle ISO,
 * IntervalStyle postgres and shortest-exact floats, whatever the session has
 * set, so the files parse the same everywhere.
 *
 * Copyright (c) the ranread authors
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/timestamp.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_export);
PG_FUNCTION_INFO_V1(ranread_export_study);
PG_FUNCTION_INFO_V1(ranread_export_sweep);

/* How many files with the same second and format before giving up */
#define EXPORT_MAX_SUFFIX 100

typedef enum ExportFormat
{
	EXPORT_TSV,
	EXPORT_CSV,
	EXPORT_JSON,
	EXPORT_SVG,
	EXPORT_HTML
} ExportFormat;


/* ---------------------------------------------------------------------
 * ranread_export
 * ---------------------------------------------------------------------
 */

/* Append a TSV field: backslash escapes for backslash, tab, CR and LF */
static void
tsv_field(StringInfo out, const char *s)
{
	static const char specials[] = "\\\t\n\r";
	static const char *const escapes[] = {"\\\\", "\\t", "\\n", "\\r"};
	const char *special;

	for (; *s; s++)
	{
		if ((special = strchr(specials, *s)) != NULL)
			appendStringInfoString(out, escapes[special - specials]);
		else
			appendStringInfoChar(out, *s);
	}
}

/* Append a CSV field, quoted as RFC 4180 requires (and when empty) */
static void
csv_field(StringInfo out, const char *s)
{
	if (*s != '\0' && strpbrk(s, ",\"\r\n") == NULL)
	{
		appendStringInfoString(out, s);
		return;
	}
	appendStringInfoChar(out, '"');
	for (; *s; s++)
	{
		if (*s == '"')
			appendStringInfoChar(out, '"');
		appendStringInfoChar(out, *s);
	}
	appendStringInfoChar(out, '"');
}

/* Append one value as JSON: numbers as numbers, non-finite numbers as null */
static void
json_value(StringInfo out, Oid type, const char *s)
{
	switch (type)
	{
		case INT2OID:
		case INT4OID:
		case INT8OID:
		case OIDOID:
		case FLOAT4OID:
		case FLOAT8OID:
		case NUMERICOID:
			if (strcmp(s, "NaN") == 0 || strcmp(s, "Infinity") == 0 ||
				strcmp(s, "-Infinity") == 0)
				appendStringInfoString(out, "null");
			else
				appendStringInfoString(out, s);
			break;
		case BOOLOID:
			appendStringInfoString(out, s[0] == 't' ? "true" : "false");
			break;
		case JSONOID:
		case JSONBOID:
			appendStringInfoString(out, s);
			break;
		default:
			escape_json(out, s);
			break;
	}
}

/*
 * Render the summary, one line per batch after a header line (JSON: one
 * object per line inside an array).  NULL is an empty field in TSV and CSV
 * (CSV quotes an empty string, so the two stay apart) and null in JSON.
 * TSV lines end in LF, CSV records in CRLF as RFC 4180 says.
 */
static void
export_summary(StringInfo out, ExportFormat format, const char *schema)
{
	TupleDesc	desc;
	uint64		row;
	int			col;
	int			nestlevel;
	const char *eol = (format == EXPORT_CSV) ? "\r\n" : "\n";

	/* Print dates, intervals and floats the same whatever the session has */
	nestlevel = NewGUCNestLevel();
	(void) set_config_option("datestyle", "ISO, YMD", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("intervalstyle", "postgres", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	(void) set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

	/* every column, the figures whole: the rounding is the views' */
	ranread_spi_select("SELECT * FROM ranread_internal.ranread_summary_raw ORDER BY batch");
	desc = SPI_tuptable->tupdesc;

	if (format == EXPORT_JSON)
		appendStringInfoString(out, "[");
	else
	{
		for (col = 1; col <= desc->natts; col++)
		{
			const char *name = NameStr(TupleDescAttr(desc, col - 1)->attname);

			if (col > 1)
				appendStringInfoChar(out, format == EXPORT_CSV ? ',' : '\t');
			if (format == EXPORT_CSV)
				csv_field(out, name);
			else
				tsv_field(out, name);
		}
		appendStringInfoString(out, eol);
	}

	for (row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];

		if (format == EXPORT_JSON)
			appendStringInfoString(out, row == 0 ? "\n  {" : ",\n  {");
		for (col = 1; col <= desc->natts; col++)
		{
			char	   *value = SPI_getvalue(tuple, desc, col);

			if (format == EXPORT_JSON)
			{
				if (col > 1)
					appendStringInfoString(out, ", ");
				escape_json(out, NameStr(TupleDescAttr(desc, col - 1)->attname));
				appendStringInfoString(out, ": ");
				if (value == NULL)
					appendStringInfoString(out, "null");
				else
					json_value(out, SPI_gettypeid(desc, col), value);
				continue;
			}
			if (col > 1)
				appendStringInfoChar(out, format == EXPORT_CSV ? ',' : '\t');
			if (value == NULL)
				continue;
			if (format == EXPORT_CSV)
				csv_field(out, value);
			else
				tsv_field(out, value);
		}
		if (format == EXPORT_JSON)
			appendStringInfoChar(out, '}');
		else
			appendStringInfoString(out, eol);
	}

	if (format == EXPORT_JSON)
		appendStringInfoString(out, SPI_processed > 0 ? "\n]\n" : "]\n");

	AtEOXact_GUC(true, nestlevel);
}

/*
 * Append the text a query of one text value returns (the chart, the HTML
 * report, a study's csv grid ...), called through SPI so that the caller's
 * privilege to run it is checked as for a direct call
 */
static void
export_text(StringInfo out, const char *sql)
{
	bool		isnull;
	Datum		d;

	ranread_spi_select(sql);
	if (SPI_processed == 0)
		return;
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
		appendStringInfoString(out, TextDatumGetCString(d));
}

/* Refuse callers that could not COPY to a server file either */
static void
export_check_privileges(void)
{
	if (!has_privs_of_role(GetUserId(), ROLE_PG_WRITE_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to write ranread_export files"),
				 errdetail("Only superusers and roles with privileges of the \"pg_write_server_files\" role may write files on the database server."),
				 errhint("SELECT ranread_grant(%s, 'export') grants it, with EXECUTE on the export functions; or read ranread_summary or call ranread_chart() from the client instead.",
						 quote_literal_cstr(GetUserNameFromId(GetUserId(), false)))));
}

/* An error naming argument what of fn when arg is null, with hint */
static void
export_not_null(const text *arg, const char *what, const char *fn, const char *hint)
{
	if (arg == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s for %s must not be null", what, fn),
				 errhint("%s", hint)));
}

/* Parse the format argument */
static ExportFormat
export_parse_format(text *arg)
{
	char	   *format;

	export_not_null(arg, "format", "ranread_export", "Allowed formats are tsv, csv, json, svg and html.");

	format = text_to_cstring(arg);
	if (pg_strcasecmp(format, "tsv") == 0)
		return EXPORT_TSV;
	if (pg_strcasecmp(format, "csv") == 0)
		return EXPORT_CSV;
	if (pg_strcasecmp(format, "json") == 0)
		return EXPORT_JSON;
	if (pg_strcasecmp(format, "svg") == 0)
		return EXPORT_SVG;
	if (pg_strcasecmp(format, "html") == 0)
		return EXPORT_HTML;

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid format \"%s\" for ranread_export", format),
			 errhint("Allowed formats are tsv, csv, json, svg and html.")));
	pg_unreachable();
}

/*
 * errcode_for_file_access for errno err, and for the errors of a path that
 * PostgreSQL 15 leaves internal (XX000): a name too long for the
 * filesystem, too many symbolic links.  A bad path is the caller's input.
 */
static int
path_errcode(int err)
{
	if (err == ENAMETOOLONG)
		return errcode(ERRCODE_NAME_TOO_LONG);
	if (err == ELOOP)
		return errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	errno = err;
	return errcode_for_file_access();
}

/* Check the directory argument: absolute, existing, a directory */
static char *
export_check_directory(text *arg)
{
	char	   *dir;
	struct stat st;

	export_not_null(arg, "directory", "ranread_export",
					"Pass the absolute path of an existing directory on the database server.");

	dir = text_to_cstring(arg);
	if (strlen(dir) > MAXPGPATH - 64)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("directory for ranread_export is too long: %zu bytes, at most %d",
						strlen(dir), MAXPGPATH - 64),
				 errhint("Pass a shorter absolute path of an existing directory.")));
	if (!is_absolute_path(dir))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("directory \"%s\" for ranread_export is not an absolute path", dir),
				 errhint("Pass the absolute path of an existing directory on the database server, such as \"/tmp\".")));

	canonicalize_path(dir);
	if (stat(dir, &st) != 0)
	{
		int			err = errno;

		if (err == ENOENT)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("directory \"%s\" for ranread_export does not exist", dir),
					 errhint("Create the directory first; ranread_export does not create directories.")));
		errno = err;
		ereport(ERROR,
				(path_errcode(err),
				 errmsg("could not access directory \"%s\" for ranread_export: %m", dir)));
	}
	if (!S_ISDIR(st.st_mode))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" for ranread_export is not a directory", dir),
				 errhint("Pass a directory; ranread_export chooses the file name itself.")));
	return dir;
}

/*
 * Create path, failing if it exists (or is a symlink), readable by all like
 * a file written by COPY TO: the server's umask of 077 is relaxed to 022
 * for the call, as COPY does.  Returns the descriptor, or -1 with errno set.
 */
static int
export_create(const char *path)
{
	mode_t		oumask = umask(S_IWGRP | S_IWOTH);
	int			fd = -1;
	int			save_errno;

	PG_TRY();
	{
		fd = OpenTransientFilePerm(path, O_WRONLY | O_CREAT | O_EXCL | PG_BINARY,
								   S_IRUSR | S_IWUSR | S_IRGRP | S_IROTH);
	}
	PG_FINALLY();
	{
		save_errno = errno;
		umask(oumask);
		errno = save_errno;
	}
	PG_END_TRY();
	return fd;
}

/*
 * Create a new file in dir and write data to it; return its path.  The name
 * is <base>_YYYYMMDD-HHMMSS<tail>.<ext> in the session's time zone (stamped
 * with now, so that the files of one export share it), with -2, -3 ...
 * after the time when that name exists.
 */
static char *
export_write_named(const char *dir, const char *base, TimestampTz now,
				   const char *tail, const char *ext, const char *data, int len)
{
	struct pg_tm tm;
	fsec_t		fsec;
	int			tz;
	char		stamp[32];
	char	   *path = NULL;
	int			fd = -1;
	int			suffix;
	int			done;

	if (timestamp2tm(now, &tz, &tm, &fsec, NULL, NULL) != 0)
		elog(ERROR, "could not convert the current time for ranread_export");
	snprintf(stamp, sizeof(stamp), "%04d%02d%02d-%02d%02d%02d",
			 tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);

	for (suffix = 1; suffix <= EXPORT_MAX_SUFFIX; suffix++)
	{
		path = psprintf("%s%s%s_%s%s%s.%s", dir,
						dir[strlen(dir) - 1] == '/' ? "" : "/",
						base, stamp,
						suffix == 1 ? "" : psprintf("-%d", suffix),
						tail, ext);
		fd = export_create(path);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0 && errno == EEXIST)
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_FILE),
				 errmsg("could not find a free file name for ranread_export in \"%s\"", dir),
				 errdetail("Files %s_%s%s.%s to %s_%s-%d%s.%s already exist.",
						   base, stamp, tail, ext, base, stamp, EXPORT_MAX_SUFFIX, tail, ext),
				 errhint("Wait a second and try again.")));
	if (fd < 0)
	{
		int			err = errno;

		ereport(ERROR,
				(path_errcode(err),
				 errmsg("could not create file \"%s\" for ranread_export: %m", path)));
	}

	for (done = 0; done < len;)
	{
		ssize_t		n = write(fd, data + done, len - done);

		if (n <= 0)
		{
			int			save_errno = (n < 0) ? errno : ENOSPC;

			CloseTransientFile(fd);
			unlink(path);
			errno = save_errno;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write file \"%s\" for ranread_export: %m", path)));
		}
		done += n;
	}
	if (CloseTransientFile(fd) != 0)
	{
		int			save_errno = errno;

		unlink(path);
		errno = save_errno;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close file \"%s\" for ranread_export: %m", path)));
	}
	return path;
}

/* Write data to a new file ranread_YYYYMMDD-HHMMSS.<ext> in dir */
static char *
export_write(const char *dir, const char *ext, const char *data, int len)
{
	return export_write_named(dir, "ranread", GetCurrentTimestamp(), "", ext, data, len);
}

/*
 * ranread_export(directory text, format text DEFAULT 'tsv') RETURNS text
 *
 * Write the summary (or the chart) to a new server file; return its path.
 */
Datum
ranread_export(PG_FUNCTION_ARGS)
{
	text	   *dirarg = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	text	   *fmtarg = PG_ARGISNULL(1) ? NULL : PG_GETARG_TEXT_PP(1);
	static const char *const extensions[] = {"tsv", "csv", "json", "svg", "html"};
	ExportFormat format;
	char	   *dir;
	char	   *schema;
	char	   *utf8;
	char	   *path;
	StringInfoData buf;

	export_check_privileges();
	format = export_parse_format(fmtarg);
	dir = export_check_directory(dirarg);
	schema = ranread_schema_name();

	/* buf lives in the caller's context; SPI's is gone after SPI_finish */
	initStringInfo(&buf);
	SPI_connect();
	if (format == EXPORT_SVG)
		export_text(&buf, psprintf("SELECT %s.ranread_chart(NULL::pg_catalog.int8)", schema));
	else if (format == EXPORT_HTML)
		export_text(&buf, psprintf("SELECT %s.ranread_report(NULL::pg_catalog.int8, NULL::pg_catalog.int8)", schema));
	else
		export_summary(&buf, format, schema);
	SPI_finish();

	/* JSON must be UTF-8 (RFC 8259); write every format the same way */
	utf8 = pg_server_to_any(buf.data, buf.len, PG_UTF8);
	path = export_write(dir, extensions[format], utf8, strlen(utf8));

	/* the files carry no units of their own (they load as they are): say them */
	if (format != EXPORT_SVG && format != EXPORT_HTML)
		ereport(NOTICE,
				(errmsg("ranread_export wrote %s with every figure whole, as recorded", path),
				 errdetail("Latencies in ms (the *_ms columns), mbps in MiB/s, seconds in s, iops in I/Os per second; ranread_summary shows them rounded.")));
	PG_RETURN_TEXT_P(cstring_to_text(path));
}


/* The id argument argno of fn: not NULL */
static int64
export_id_arg(FunctionCallInfo fcinfo, int argno, const char *what, const char *fn)
{
	if (PG_ARGISNULL(argno))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s for %s must not be null", what, fn),
				 errhint("Pass the id of a %s, as %s lists them.", what,
						 strcmp(what, "study") == 0 ? "ranread_study_overview" : "ranread_sweep_verdict")));
	return PG_GETARG_INT64(argno);
}

/* Append the text of a query to out, converted to UTF-8, and write it */
static char *
export_utf8_file(const char *dir, const char *base, TimestampTz now, const char *tail,
				 const char *ext, StringInfo buf)
{
	char	   *utf8 = pg_server_to_any(buf->data, buf->len, PG_UTF8);

	return export_write_named(dir, base, now, tail, ext, utf8, strlen(utf8));
}

/*
 * ranread_export_study(directory text, study bigint, format text DEFAULT
 * 'html') RETURNS SETOF text
 *
 * One study to new server files, their paths returned: html, the report of
 * the study; json, everything about it in one file; csv, ORION's files: a
 * grid per metric (_iops.csv, _mbps.csv, _lat.csv) and _summary.txt.
 * Files are named ranread_study<N>_YYYYMMDD-HHMMSS[_metric].<ext>.
 */
Datum
ranread_export_study(PG_FUNCTION_ARGS)
{
	const char *fn = "ranread_export_study";
	text	   *dirarg = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	text	   *fmtarg = PG_ARGISNULL(2) ? NULL : PG_GETARG_TEXT_PP(2);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	static const char *const metrics[] = {"iops", "mbps", "lat"};
	int64		study;
	char	   *format;
	char	   *dir;
	char	   *schema;
	char	   *base;
	TimestampTz now = GetCurrentTimestamp();
	StringInfoData bufs[4];
	List	   *paths = NIL;
	ListCell   *lc;
	int			i;

	export_check_privileges();
	study = export_id_arg(fcinfo, 1, "study", fn);
	export_not_null(fmtarg, "format", fn, "Allowed formats are html, csv and json.");
	format = text_to_cstring(fmtarg);
	if (pg_strcasecmp(format, "html") != 0 && pg_strcasecmp(format, "csv") != 0 &&
		pg_strcasecmp(format, "json") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid format \"%s\" for %s", format, fn),
				 errhint("Allowed formats are html (the report), csv (ORION's grids and summary) and json.")));
	dir = export_check_directory(dirarg);
	schema = ranread_schema_name();
	base = psprintf("ranread_study" INT64_FORMAT, study);

	/* Everything is rendered before the first file is created */
	for (i = 0; i < lengthof(bufs); i++)
		initStringInfo(&bufs[i]);
	SPI_connect();
	ranread_spi_select(psprintf("SELECT ranread_internal.ranread_study_check(" INT64_FORMAT ", 'ranread_export_study')",
								study));
	if (pg_strcasecmp(format, "html") == 0)
		export_text(&bufs[0], psprintf("SELECT %s.ranread_report(" INT64_FORMAT ", NULL::pg_catalog.int8)",
									   schema, study));
	else if (pg_strcasecmp(format, "json") == 0)
		export_text(&bufs[0], psprintf("SELECT pg_catalog.jsonb_pretty(ranread_internal.ranread_study_json(" INT64_FORMAT "))",
									   study));
	else
	{
		for (i = 0; i < lengthof(metrics); i++)
			export_text(&bufs[i], psprintf("SELECT ranread_internal.ranread_study_csv(" INT64_FORMAT ", '%s')",
										   study, metrics[i]));
		export_text(&bufs[3], psprintf("SELECT ranread_internal.ranread_study_summary_txt(" INT64_FORMAT ")",
									   study));
	}
	SPI_finish();

	if (pg_strcasecmp(format, "html") == 0)
		paths = lappend(paths, export_utf8_file(dir, base, now, "", "html", &bufs[0]));
	else if (pg_strcasecmp(format, "json") == 0)
	{
		appendStringInfoChar(&bufs[0], '\n');
		paths = lappend(paths, export_utf8_file(dir, base, now, "", "json", &bufs[0]));
	}
	else
	{
		for (i = 0; i < lengthof(metrics); i++)
			paths = lappend(paths, export_utf8_file(dir, base, now, psprintf("_%s", metrics[i]), "csv", &bufs[i]));
		paths = lappend(paths, export_utf8_file(dir, base, now, "_summary", "txt", &bufs[3]));
	}

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	foreach(lc, paths)
	{
		Datum		value = CStringGetTextDatum((char *) lfirst(lc));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}

/*
 * ranread_export_sweep(directory text, sweep bigint) RETURNS text
 *
 * The HTML report of one sweep to a new server file
 * ranread_sweep<N>_YYYYMMDD-HHMMSS.html; returns its path.
 */
Datum
ranread_export_sweep(PG_FUNCTION_ARGS)
{
	const char *fn = "ranread_export_sweep";
	text	   *dirarg = PG_ARGISNULL(0) ? NULL : PG_GETARG_TEXT_PP(0);
	int64		sweep;
	char	   *dir;
	char	   *schema;
	StringInfoData buf;

	export_check_privileges();
	sweep = export_id_arg(fcinfo, 1, "sweep", fn);
	dir = export_check_directory(dirarg);
	schema = ranread_schema_name();

	initStringInfo(&buf);
	SPI_connect();
	ranread_spi_select(psprintf("SELECT 1 FROM %s.ranread_batches b WHERE b.sweep OPERATOR(pg_catalog.=) " INT64_FORMAT
								" LIMIT 1", schema, sweep));
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid sweep " INT64_FORMAT " for %s: no step of it is in the history", sweep, fn),
				 errhint("ranread_sweep_verdict lists the sweeps.")));
	export_text(&buf, psprintf("SELECT %s.ranread_report(NULL::pg_catalog.int8, " INT64_FORMAT ")",
							   schema, sweep));
	SPI_finish();

	PG_RETURN_TEXT_P(cstring_to_text(export_utf8_file(dir, psprintf("ranread_sweep" INT64_FORMAT, sweep),
													  GetCurrentTimestamp(), "", "html", &buf)));
}
