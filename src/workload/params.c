/*
 * params.c
 *		What a batch does, from the arguments of the SQL function that asked
 *		for it: every value checked, the targets found where their files
 *		really are, each group's region and distribution worked out.  The
 *		result is the BatchParams the leader hands to its workers.
 *
 * Everything is checked before any worker starts, and every error names the
 * argument, the value, what is allowed, and whose argument it is: the
 * function the user called (ranread_run, ranread_sweep ...) and, in a mix,
 * the group.
 *
 * The targets are checked at every batch, not trusted from setup: the
 * tablespace is the one their files are in now, the filesystem must not be
 * memory (tmpfs, ramfs: reads would measure RAM), and block sizes must be
 * multiples of the direct I/O alignment of that filesystem.
 */
#include "postgres.h"

#include <math.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

#include "fsinfo.h"
#include "params.h"
#include "options.h"
#include "serverpath.h"

#define MAX_DURATION_US		((int64) 86400 * 1000000)
#define MIN_DURATION_US		((int64) 10000)

/* Whose arguments are being checked, for messages: "ranread_run", ... */
static const char *owner_name = "ranread_run";

/*
 * A value as an error prints it: whole up to PARAMS_SHOWN_MAX bytes, else
 * that much of it, cut on a character boundary, and "...": an error about a
 * megabyte of input says which input, without repeating it (nor logging it)
 */
const char *
params_shown(const char *value)
{
	int			len = strlen(value);

	if (len <= PARAMS_SHOWN_MAX)
		return value;
	return psprintf("%.*s...", pg_mbcliplen(value, len, PARAMS_SHOWN_MAX), value);
}

/* Set whose arguments the checks below name */
void
params_owner(const char *fn, const char *group)
{
	owner_name = group ? psprintf("group \"%s\" of %s", group, fn) : pstrdup(fn);
}

/* Error for a NULL where a value is needed */
void
params_require(bool isnull, const char *name)
{
	workload_require(isnull, name, owner_name, NULL);
}

/* Error for an integer out of its range */
void
params_range(const char *name, int64 value, int64 lo, int64 hi, const char *hint)
{
	if (value < lo || value > hi)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be between " INT64_FORMAT " and " INT64_FORMAT ", not " INT64_FORMAT,
						name, owner_name, lo, hi, value),
				 hint ? errhint("%s", hint) : 0));
}

/*
 * Error for an option out of the range of the option table (workload.c),
 * with its help as the hint unless the caller has a better one
 */
void
params_option_range(const WorkloadOption *o, int64 value, const char *hint)
{
	params_range(o->name, value, o->min, o->max, hint ? hint : o->help);
}

/* Microseconds in an interval, months as 30 days; -1 if absurd */
static int64
interval_us(const Interval *iv)
{
	int128		us = (int128) iv->month * 30 * USECS_PER_DAY +
		(int128) iv->day * USECS_PER_DAY + iv->time;

	if (us > PG_INT64_MAX / 1000 || us < -(PG_INT64_MAX / 1000))
		return -1;
	return (int64) us;
}

/* Check a duration or warm-up; returns it in nanoseconds */
int64
params_interval(const Interval *iv, const char *name, bool allow_zero)
{
	return params_interval_hint(iv, name, allow_zero, NULL);
}

/* The same, with a hint for the range error */
int64
params_interval_hint(const Interval *iv, const char *name, bool allow_zero, const char *hint)
{
	int64		us = interval_us(iv);

	if (us < 0 || (!allow_zero && us == 0) || us > MAX_DURATION_US)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be %s and at most 24 hours, not %s",
						name, owner_name, allow_zero ? "zero or positive" : "positive",
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(iv)))),
				 hint ? errhint("%s", hint) : 0));
	if (!allow_zero && us < MIN_DURATION_US)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s of %s must be at least 10 milliseconds, not %s",
						name, owner_name,
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(iv)))),
				 errhint("A shorter run would end before its first I/O completes.")));
	return us * 1000;
}

/*
 * The position of text among the n names of option (in any case), or an
 * error naming the option, the value and, in hint, what is allowed
 */
static int
params_word(const char *option, const char *const *names, int n, const char *text,
			const char *hint)
{
	for (int i = 0; i < n; i++)
		if (pg_strcasecmp(text, names[i]) == 0)
			return i;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown %s \"%s\" for %s", option, params_shown(text), owner_name),
			 errhint("%s", hint)));
	return 0;					/* keep compiler quiet */
}

/* 'random' or 'sequential' */
RanreadPattern
params_pattern(const char *pat)
{
	static const char *const names[] = {"random", "sequential"};	/* by RanreadPattern */

	return (RanreadPattern) params_word("pattern", names, lengthof(names), pat,
										"pattern is 'random' or 'sequential'.");
}

/* 'device' or 'server' (serverpath.h) */
RanreadPath
params_path(const char *path)
{
	static const char *const names[] = {"device", "server"};	/* by RanreadPath */

	return (RanreadPath) params_word("path", names, lengthof(names), path,
									 workload_option_by_key(OPT_PATH)->help);
}

/* A distribution: 'uniform', 'zipf:THETA', 'pareto:H', 'hotset:IO/DATA' */
void
params_distribution(GroupParams *g, const char *text)
{
	char		why[256];

	if (!blocks_parse(text, &g->blocks, why, sizeof(why)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid distribution \"%s\" for %s", params_shown(text), owner_name),
				 errdetail("%s", why),
				 errhint("distribution is 'uniform', 'zipf:THETA' (e.g. 'zipf:1.2'), 'pareto:H' (e.g. 'pareto:0.2') or 'hotset:PCT_IO/PCT_DATA' (e.g. 'hotset:95/5').")));
}

/* The sync option's names, by RanreadSync */
const char *const ranread_sync_names[RANREAD_NSYNC] = {"none", "fdatasync", "fsync", "open_datasync", "open_sync"};

/* A sync method by name: wal_sync_method's names, or 'none' */
RanreadSync
params_sync(const char *text)
{
	return (RanreadSync) params_word("sync", ranread_sync_names, lengthof(ranread_sync_names), text,
									 "sync is 'none', 'fdatasync', 'fsync', 'open_datasync' or 'open_sync', as wal_sync_method names them; fsync_writethrough does not exist on Linux.");
}

/*
 * start_at: the I/O begins at this instant, once the workers are ready (a
 * fleet starts its nodes together).  It must lie ahead, by at most an hour.
 */
void
params_start_at(BatchParams *p, TimestampTz at)
{
	TimestampTz now = GetCurrentTimestamp();

	if (at < now || at - now > 3600 * USECS_PER_SEC)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("start_at %s of %s is %s", timestamptz_to_str(at), owner_name,
						at < now ? "in the past" : "more than an hour ahead"),
				 errhint("start_at is when the I/O starts, up to an hour from now, such as now() + interval '2 s'.")));
	p->start_at = at;
}

/*
 * io_priority: the workers' I/O priority, as ioprio_set(2) takes it (class
 * in the top bits, level below; linux/ioprio.h's encoding, spelled out
 * here since glibc has no wrapper): 'idle', 'best-effort:N' or
 * 'realtime:N', N from 0 (highest) to 7; 'best-effort' and 'realtime'
 * alone are level 4, the kernel's default.  Whether the server may set
 * it (realtime needs CAP_SYS_ADMIN or CAP_SYS_NICE) the workers learn when
 * they set it, before the I/O starts.
 */
#define PARAMS_IOPRIO_CLASS_SHIFT 13
void
params_io_priority(BatchParams *p, const char *text)
{
	static const char *const classes[] = {"realtime", "best-effort", "idle"};	/* 1, 2, 3 */
	const char *colon = strchr(text, ':');
	int			len = colon ? colon - text : strlen(text);
	int			cls = 0;
	int			level = 4;

	for (int i = 0; i < lengthof(classes); i++)
		if (strlen(classes[i]) == len && pg_strncasecmp(text, classes[i], len) == 0)
			cls = i + 1;
	if (cls != 0 && colon != NULL)
	{
		const char *d = colon + 1;

		if (cls == 3 || d[0] < '0' || d[0] > '7' || d[1] != '\0')
			cls = -1;
		else
			level = d[0] - '0';
	}
	if (cls == 3)
		level = 0;
	if (cls <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid io_priority \"%s\" for %s", params_shown(text), owner_name),
				 errdetail(cls == 0 ? "The class must be idle, best-effort or realtime." :
						   cls == 3 || (colon && pg_strncasecmp(text, "idle", 4) == 0) ? "The idle class has no level." :
						   "The level must be a digit from 0 (highest) to 7 (lowest)."),
				 errhint("io_priority is 'idle', 'best-effort:N' or 'realtime:N' with N from 0 (highest) to 7, such as 'best-effort:7'; NULL leaves the server's own.")));
	p->ioprio = (cls << PARAMS_IOPRIO_CLASS_SHIFT) | level;
	ranread_strlcpy(p->ioprio_text, text, sizeof(p->ioprio_text));
}

/* A region in percent of the target: printed precisely enough to tell */
static char *
pct(double v)
{
	return psprintf("%.15g%%", v);
}

/* region_start and region_end must make a slice of the target */
void
params_region(GroupParams *g, double start, double end)
{
	if (isnan(start) || isnan(end) || start < 0 || end > 100 || start >= end)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("region_start %.15g and region_end %.15g of %s do not make a region",
						start, end, owner_name),
				 errhint("Both are percentages of the target: 0 <= region_start < region_end <= 100.")));
	g->region_start = start;
	g->region_end = end;
}

/* Check the sizes of a group that need no target: the table's ranges */
void
params_check_group(GroupParams *g)
{
	params_option_range(workload_option_by_key(OPT_PROCESSES), g->processes, NULL);
	params_option_range(workload_option_by_key(OPT_BLOCK_SIZE), g->block_size, NULL);
	params_option_range(workload_option_by_key(OPT_WRITE_PCT), g->write_pct, NULL);
	if (g->write_pct > 0 && g->block_size % BLCKSZ != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d of %s cannot be used with write_pct %d",
						g->block_size, owner_name, g->write_pct),
				 errdetail("Writes replace whole pages of %d bytes.", BLCKSZ),
				 errhint("Use a block_size that is a multiple of %d, or write_pct 0.", BLCKSZ)));
	params_option_range(workload_option_by_key(OPT_QUEUE_DEPTH), g->queue_depth, NULL);
}

/* A rate limit as given (NULL is none) */
void
params_rate(GroupParams *g, bool isnull, int rate, bool in_mix)
{
	g->rate_iops = 0;
	if (isnull)
		return;
	params_option_range(workload_option_by_key(OPT_RATE_IOPS), rate, in_mix ?
						"rate_iops caps the I/Os per second of all the group's processes together; NULL means no cap." :
						NULL);
	g->rate_iops = rate;
}

/*
 * Check what the whole batch holds: processes and I/Os in flight over every
 * group, against the limits of ranread_limits().
 */
void
params_check_totals(BatchParams *p, const char *fn)
{
	int64		procs = 0;
	int64		inflight = 0;
	int64		bytes = 0;

	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];

		procs += g->processes;
		inflight += (int64) g->processes * g->queue_depth;
		bytes += (int64) g->processes * g->queue_depth * g->block_size;
	}
	params_owner(fn, NULL);
	if (p->ngroups == 1)
	{
		GroupParams *g = &p->groups[0];

		if (inflight > RANREAD_MAX_INFLIGHT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("processes %d times queue_depth %d is more than %d I/Os in flight",
							g->processes, g->queue_depth, RANREAD_MAX_INFLIGHT),
					 errhint("Lower processes or queue_depth.")));
		if (bytes > RANREAD_MAX_INFLIGHT_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("processes %d times queue_depth %d times block_size %d needs more than 1 GB of I/O buffers",
							g->processes, g->queue_depth, g->block_size),
					 errhint("Lower processes, queue_depth or block_size.")));
	}
	params_range("processes summed over the groups", procs, 1, RANREAD_MAX_PROCESSES,
				 "Every group's processes count towards the limit of one batch.");
	if (inflight > RANREAD_MAX_INFLIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes times queue_depth summed over the groups of %s is " INT64_FORMAT ", more than %d I/Os in flight",
						fn, inflight, RANREAD_MAX_INFLIGHT),
				 errhint("Lower processes or queue_depth.")));
	if (bytes > RANREAD_MAX_INFLIGHT_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("processes times queue_depth times block_size summed over the groups of %s is " INT64_FORMAT " bytes, more than 1 GB of I/O buffers",
						fn, bytes),
				 errhint("Lower processes, queue_depth or block_size.")));
	p->processes = (int) procs;
	for (int i = 0, s = 0; i < p->ngroups; s += p->groups[i].processes, i++)
		p->groups[i].first_stream = s;
}

/* The index of a target in the batch, adding it when new */
int
params_target(BatchParams *p, const char *name)
{
	char		clipped[NAMEDATALEN];

	/* as the name type does: at most NAMEDATALEN - 1 bytes, whole characters */
	if (ranread_strlcpy(clipped, name, NAMEDATALEN))
		ereport(NOTICE,
				(errmsg("target name \"%s\" of %s is cut to \"%s\"", name, owner_name, clipped),
				 errdetail("A target's name is at most %d bytes, as every name in PostgreSQL.",
						   NAMEDATALEN - 1)));
	for (int t = 0; t < p->ntargets; t++)
		if (strcmp(p->targets[t].name, clipped) == 0)
			return t;
	if (p->ntargets >= RANREAD_MAX_TARGETS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a batch reads at most %d targets", RANREAD_MAX_TARGETS)));
	strlcpy(p->targets[p->ntargets].name, clipped, NAMEDATALEN);
	return p->ntargets++;
}

/*
 * Find a target, check it can be read, and fill in where its files are and
 * on what filesystem, as they are now.
 */
static void
resolve_target(BatchTarget *bt, const char *fn)
{
	RanreadTarget t;
	FsInfo		fi;

	if (!target_lookup(bt->name, &t))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("ranread target \"%s\" does not exist", bt->name),
				 errhint("Create it first, e.g. SELECT * FROM ranread_setup('10GB', target => %s);",
						 quote_literal_cstr(bt->name))));
	target_check_usable(&t, fn);
	fsinfo_read(t.relpath, &fi);
	if (fi.memory)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ranread target \"%s\" is on a memory filesystem (%s at %s) in tablespace \"%s\"",
						bt->name, fi.type, fi.mount_point, t.tablespace),
				 errdetail("Its files moved there (ALTER TABLE ... SET TABLESPACE); reads from tmpfs or ramfs measure memory, not storage."),
				 errhint("Move it back to storage, or run ranread_setup again in a tablespace on the storage you want to measure.")));
	ranread_strlcpy(bt->tablespace, t.tablespace, NAMEDATALEN);
	ranread_strlcpy(bt->filesystem, fi.type, RANREAD_FS_LEN);
	strlcpy(bt->relpath, t.relpath, MAXPGPATH);
	bt->relid = t.relid;
	bt->spcoid = t.spcoid;
	bt->size_bytes = t.size_bytes;
	bt->nsegs = (int) ((t.size_bytes + (uint64) RELSEG_SIZE * BLCKSZ - 1) / ((uint64) RELSEG_SIZE * BLCKSZ));
	bt->dio_align = fi.dio_align;
}

/* A group's region in block_size units, and its distribution's constants */
static void
resolve_group(BatchParams *p, GroupParams *g)
{
	BatchTarget *bt = &p->targets[g->target];
	uint64		seg_bytes = (uint64) RELSEG_SIZE * BLCKSZ;
	uint64		last_bytes;
	uint64		units;

	if (g->block_size % bt->dio_align != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d of %s is not a multiple of the direct I/O alignment %d of target \"%s\"",
						g->block_size, owner_name, bt->dio_align, bt->name),
				 errhint("Use a multiple of %d, such as 8192.", bt->dio_align)));

	g->units_per_seg = seg_bytes / g->block_size;
	last_bytes = bt->size_bytes - (uint64) (bt->nsegs - 1) * seg_bytes;
	units = (uint64) (bt->nsegs - 1) * g->units_per_seg + last_bytes / g->block_size;
	g->unit_lo = (uint64) ceil(units * g->region_start / 100.0);
	g->unit_hi = (uint64) floor(units * g->region_end / 100.0);
	if (g->unit_hi <= g->unit_lo)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("block_size %d of %s is larger than the region %s..%s of target \"%s\"",
						g->block_size, owner_name, pct(g->region_start), pct(g->region_end), bt->name),
				 errdetail("The region holds " UINT64_FORMAT " bytes.",
						   (uint64) ((g->region_end - g->region_start) / 100.0 * bt->size_bytes)),
				 errhint("Widen the region, lower block_size, or make a larger target.")));
	if (g->blocks.dist == DIST_HOTSET && g->unit_hi - g->unit_lo < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("distribution %s of %s needs a region of at least two blocks", g->blocks.text, owner_name)));
	blocks_prepare(&g->blocks, g->unit_lo, g->unit_hi - g->unit_lo,
				   (uint64) p->seed ^ ((uint64) (g - p->groups) << 56));
	if (g->write_pct > 0)
		bt->written = true;
}

/* The relation block of a group's unit (io_prepare's arithmetic) */
static uint64
unit_block(const GroupParams *g, uint64 unit)
{
	return (unit / g->units_per_seg) * RELSEG_SIZE +
		(unit % g->units_per_seg) * (uint64) g->block_size / BLCKSZ;
}

/*
 * verify's per-block words (verify.h) cover only the blocks the verifying
 * groups of a target address: from the first block of the lowest region to
 * the last of the highest.  A read of a group that does not verify takes
 * no word, and a write of one is refused (params_check_verify).  All of a
 * batch's words together must fit in ranread.verify_max_memory.
 */
static void
resolve_verify_words(BatchParams *p, const char *fn)
{
	uint64		total = 0;
	uint64		max_bytes = (uint64) ranread_verify_max_memory_guc * 1024;

	for (int t = 0; t < p->ntargets; t++)
	{
		BatchTarget *bt = &p->targets[t];
		uint64		first = PG_UINT64_MAX;
		uint64		end = 0;
		uint64		bytes;

		if (!bt->verified)
			continue;
		for (int i = 0; i < p->ngroups; i++)
		{
			const GroupParams *g = &p->groups[i];

			if (!g->verify || g->target != t)
				continue;
			first = Min(first, unit_block(g, g->unit_lo));
			end = Max(end, unit_block(g, g->unit_hi - 1) + g->block_size / BLCKSZ);
		}
		bt->words_first = first;
		bt->words_blocks = end - first;
		bytes = bt->words_blocks * VERIFY_BLOCK_BYTES;
		total += bytes;
		if (total > max_bytes)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("verify of %s would take %s of shared memory for target \"%s\" of %s, more than ranread.verify_max_memory (%s)",
							fn, fsinfo_pretty(total), bt->name, fsinfo_pretty(bt->size_bytes),
							fsinfo_pretty(max_bytes)),
					 errdetail("verify keeps %d bytes per block it verifies: here " UINT64_FORMAT " blocks of the target, from block " UINT64_FORMAT "%s.",
							   (int) VERIFY_BLOCK_BYTES, bt->words_blocks, first,
							   total > bytes ? psprintf(", besides %s for the batch's other verified targets",
														fsinfo_pretty(total - bytes)) : ""),
					 errhint("Verify a smaller region (region_start, region_end) or a smaller target; a superuser may raise ranread.verify_max_memory.")));
	}
}

/*
 * Find every target and work out every group's region: the checks that
 * need a target.  fn and the groups' labels name the arguments in errors.
 */
void
params_resolve(BatchParams *p, const char *fn)
{
	for (int t = 0; t < p->ntargets; t++)
		if (!p->targets[t].scratch)	/* the commit test describes its own */
			resolve_target(&p->targets[t], fn);
	for (int i = 0; i < p->ngroups; i++)
	{
		params_owner(fn, p->mix || p->ngroups > 1 ? p->groups[i].label : NULL);
		resolve_group(p, &p->groups[i]);
	}
	params_owner(fn, NULL);
	resolve_verify_words(p, fn);
	serverpath_resolve(p, fn);
}

/* A seed from the clock when none was given */
int64
params_seed(bool isnull, int64 given)
{
	if (!isnull)
		return given;
	return (int64) (ranread_now_ns() ^ ((uint64) MyProcPid << 40)) & PG_INT64_MAX;
}

/*
 * The steady_state option: 'PCT%/WINDOW', e.g. '10%/30s': the batch ends
 * early once the IOPS of each of the last WINDOW seconds are within PCT
 * percent of their mean (fio's ss=iops:PCT%, ss_dur=WINDOW).
 */
void
params_steady(BatchParams *p, const char *text)
{
	char	   *end;
	double		pct = strtod(text, &end);
	Interval   *iv;
	int64		us;

	if (end == text || *end != '%' || end[1] != '/' || !(pct > 0 && pct < 100))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid steady_state \"%s\" for %s", params_shown(text), owner_name),
				 errhint("steady_state is 'PCT%%/WINDOW', such as '10%%/30s': stop once the IOPS of every second of the last WINDOW are within PCT percent of their mean; 0 < PCT < 100.")));
	iv = DatumGetIntervalP(DirectFunctionCall3(interval_in, CStringGetDatum(end + 2),
											   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
	us = interval_us(iv);
	if (us < 3 * USECS_PER_SEC || us > 3600 * USECS_PER_SEC || us % USECS_PER_SEC != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the window of steady_state \"%s\" for %s must be whole seconds from 3 s to 1 hour", params_shown(text), owner_name),
				 errhint("Steadiness is judged on whole seconds of IOPS, such as '10%%/30s'.")));
	p->steady_pct = pct;
	p->steady_window = (int) (us / USECS_PER_SEC);
	snprintf(p->steady_text, sizeof(p->steady_text), "%g%%/%ds", pct, p->steady_window);
}

/*
 * verify (verify.h): every page of an I/O is checked, so a verifying group's
 * block_size is whole pages; every group that writes a target a group
 * verifies verifies too, since a read is checked against the writes it
 * knows of; the per-block words count at most VERIFY_MAX_INFLIGHT I/Os in
 * flight.  Marks the verified targets.
 */
static void
params_check_verify(BatchParams *p, const char *fn)
{
	int64		inflight = 0;

	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];

		if (!g->verify)
			continue;
		params_owner(fn, p->ngroups > 1 || p->mix ? g->label : NULL);
		if (g->block_size % BLCKSZ != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("block_size %d of %s cannot be used with verify", g->block_size, owner_name),
					 errdetail("verify checks whole pages of %d bytes.", BLCKSZ),
					 errhint("Use a block_size that is a multiple of %d, or verify false.", BLCKSZ)));
		p->targets[g->target].verified = true;
	}
	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];

		if (!p->targets[g->target].verified)
			continue;
		inflight += (int64) g->processes * g->queue_depth;
		if (g->verify || g->write_pct == 0)
			continue;
		for (int j = 0; j < p->ngroups; j++)
			if (p->groups[j].verify && p->groups[j].target == g->target)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("group \"%s\" of %s writes target \"%s\", which group \"%s\" verifies, without verify",
								g->label, fn, p->targets[g->target].name, p->groups[j].label),
						 errdetail("A verified read is checked against the writes of its batch: each must be stamped."),
						 errhint("Give verify true to every group that writes the target, or to none.")));
	}
	params_owner(fn, NULL);
	if (inflight > VERIFY_MAX_INFLIGHT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("verify of %s allows at most %d I/Os in flight on a verified target, not " INT64_FORMAT,
						fn, VERIFY_MAX_INFLIGHT, inflight),
				 errhint("Lower processes or queue_depth.")));
}

/*
 * The checks that need the whole batch: steady_state needs a duration
 * longer than its window; verify's.
 */
void
params_check_batch(BatchParams *p, const char *fn)
{
	for (int i = 0; i < p->ngroups; i++)
	{
		GroupParams *g = &p->groups[i];

		params_owner(fn, p->ngroups > 1 || p->mix ? g->label : NULL);
		if (g->writes_per_op == 0)
			g->writes_per_op = 1;
		if (g->sync != SYNC_NONE && g->write_pct == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("sync %s of %s needs writes", ranread_sync_names[g->sync], owner_name),
					 errhint("sync says how writes reach stable storage: give write_pct > 0, such as 100 for a log disk.")));
	}
	params_check_verify(p, fn);
	serverpath_check_batch(p, fn);
	params_owner(fn, NULL);
	if (p->steady_pct > 0 && (p->duration_ns == 0 || p->duration_ns < (int64) p->steady_window * 1000000000))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("steady_state %s of %s needs a duration longer than its window of %d s",
						p->steady_text, fn, p->steady_window),
				 errhint("Give a duration: the run ends at it if the IOPS never settle.")));
}
