/*
 * history.c
 *		The history rows of a batch: the batch's row, one per group, one per
 *		process, and its per-second intervals.  (repair.c mends and empties
 *		the history.)
 *
 * History is written by the batch's recording worker (worker 0) in its own
 * transactions, never in the caller's: the 'running' row before the first
 * I/O, everything else after the last.  So a batch survives the caller's
 * ROLLBACK, cancel or disconnect.  A server crash can leave a 'running' row
 * behind: the views show such a row as failed as soon as no live batch
 * matches it (ranread_batch_live), and the next batch's recorder marks it
 * failed in the table itself.
 *
 * Rows are built column by column (HistoryRow) with the version of the SQL
 * script that introduced each column, and only the columns the installed
 * version has are written: a database still at 1.0 keeps working with the
 * 1.1 library.  Writes go through SPI as the extension's owner, so roles
 * granted only EXECUTE need no privileges on the tables.
 *
 * What fio shows beside latency (1.1), per batch and group:
 *	 cpu_user_pct, cpu_sys_pct	CPU of the workers' processes over their
 *						measured windows (worker.c, worker_window), summed
 *						over workers, in % of one CPU (so up to 100 x workers)
 *	 cpu_us_per_io		their CPU time over the measured I/Os, in µs.  A
 *						worker that drives streams of several groups shares its
 *						CPU among them by their I/Os in that worker.
 *	 device, device_util_pct	the block device under the target and the
 *						share of the measured time it was busy (io_ticks, as
 *						fio's "util"), from the earliest start of a worker's
 *						window to the latest end; NULL where the filesystem
 *						has no block device of its own (fsinfo.c)
 *	 lat_stddev_ms		the sample standard deviation of the latencies, exact
 *						(histogram.h), also per process
 *
 * The server path (1.2, serverpath.h), per batch and group: path,
 * effective_io_concurrency (the prefetch distance), shared_hits,
 * page_cache_hits and cache_pct (what the caches answered of the measured
 * reads); per batch server_settings, the settings in force.  NULL where no
 * group read on the server path (path and effective_io_concurrency: where
 * the groups differ).
 */
#include "postgres.h"

#include <math.h>
#include <unistd.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/snapmgr.h"

#include "engine.h"
#include "figures.h"
#include "fsinfo.h"
#include "history.h"
#include "repair.h"
#include "iobuf.h"
#include "params.h"
#include "serverpath.h"
#include "placement.h"

#define HISTORY_MAX_COLS	64

/* a worker that started its I/O this late is in the batch's notes */
#define HISTORY_LATE_NOTE_NS	((uint64) 50 * 1000000)

static const char *pattern_names[] = {"random", "sequential"};

/* Merged histograms of the batch being recorded: per group, then total */
static RanreadHist *rec_all;
static RanreadHist *rec_writes;

/* One row to insert or update: columns with types, values and nulls */
typedef struct HistoryRow
{
	int			sql_version;
	int			n;
	const char *names[HISTORY_MAX_COLS];
	Oid			types[HISTORY_MAX_COLS];
	Datum		values[HISTORY_MAX_COLS];
	char		nulls[HISTORY_MAX_COLS];
} HistoryRow;

/* Add a column, if the installed SQL version has it (since: 10 = 1.0) */
static void
col(HistoryRow *r, const char *name, Oid type, Datum value, bool isnull, int since)
{
	if (since > r->sql_version)
		return;
	Assert(r->n < HISTORY_MAX_COLS);
	r->names[r->n] = name;
	r->types[r->n] = type;
	r->values[r->n] = isnull ? (Datum) 0 : value;
	r->nulls[r->n] = isnull ? 'n' : ' ';
	r->n++;
}

/* A float8 column; NaN is stored as NULL */
static void
col_float(HistoryRow *r, const char *name, double v, bool isnull, int since)
{
	col(r, name, FLOAT8OID, Float8GetDatum(v), isnull || isnan(v), since);
}

/* A name column */
static void
col_name(HistoryRow *r, const char *name, const char *v, int since)
{
	NameData   *n = palloc(sizeof(NameData));

	namestrcpy(n, v);
	col(r, name, NAMEOID, NameGetDatum(n), false, since);
}

/* A text column; NULL for a NULL or empty string */
static void
col_text(HistoryRow *r, const char *name, const char *v, int since)
{
	col(r, name, TEXTOID, v && v[0] ? CStringGetTextDatum(v) : (Datum) 0, !(v && v[0]), since);
}

static TimestampTz wall_time(BatchShared *bs, uint64 ns);

/*
 * verify's counts of a batch or group row (1.1): pages checked, skipped
 * (read while a write of theirs was in flight), bad and bad of each kind;
 * NULL where nothing was verified
 */
static void
col_verify(HistoryRow *r, const RanreadFigures *f, bool verified)
{
	col(r, "verify_checked", INT8OID, Int64GetDatum((int64) f->verify_checked), !verified, 11);
	col(r, "verify_skipped", INT8OID, Int64GetDatum((int64) f->verify_skipped), !verified, 11);
	col(r, "verify_errors", INT8OID, Int64GetDatum((int64) figures_verify_errors(f)), !verified, 11);
	col(r, "verify_corrupt", INT8OID, Int64GetDatum((int64) f->verify_bad[VERIFY_CORRUPT]), !verified, 11);
	col(r, "verify_wrong_block", INT8OID, Int64GetDatum((int64) f->verify_bad[VERIFY_WRONG_BLOCK]), !verified, 11);
	col(r, "verify_lost", INT8OID, Int64GetDatum((int64) f->verify_bad[VERIFY_LOST]), !verified, 11);
}

/*
 * The first bad blocks verify found (1.1), in the order they were found,
 * into ranread_verify_errors
 */
static void
insert_verify_errors(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	int			n = (int) Min(pg_atomic_read_u32(&bs->verify.nerrors), RANREAD_VERIFY_ERRORS);
	int			order[RANREAD_VERIFY_ERRORS];
	int			k = 0;

	for (int i = 0; i < n; i++)
		if (bs->verify.errors[i].ready)
			order[k++] = i;
	/* by the time they were found (a few, at most RANREAD_VERIFY_ERRORS) */
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && bs->verify.errors[order[j]].at_ns < bs->verify.errors[order[j - 1]].at_ns; j--)
		{
			int			t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < k; i++)
	{
		const VerifyError *e = &bs->verify.errors[order[i]];
		const BatchTarget *t = &p->targets[e->target];

		verify_insert_error(p->schema, p->batch, e->group, t->name, e,
							verify_expected_text(e, p->batch), verify_found_text(e, t->relid),
							wall_time(bs, e->at_ns));
	}
}

/* The latency figures of a row, shared by batch and process rows */
static void
col_figures(HistoryRow *r, const RanreadFigures *f)
{
	col(r, "reads", INT8OID, Int64GetDatum((int64) f->reads), false, 10);
	col(r, "writes", INT8OID, Int64GetDatum((int64) f->writes), false, 10);
	col_float(r, "seconds", f->seconds, false, 10);
	col_float(r, "iops", f->iops, false, 10);
	col_float(r, "avg_ms", f->avg_ms, !f->latency, 10);
	col_float(r, "min_ms", f->min_ms, !f->latency, 10);
	col_float(r, "p50_ms", f->p50_ms, !f->latency, 10);
	col_float(r, "p95_ms", f->p95_ms, !f->latency, 10);
	col_float(r, "p99_ms", f->p99_ms, !f->latency, 10);
	col_float(r, "p999_ms", f->p999_ms, !f->latency, 10);
	col_float(r, "max_ms", f->max_ms, !f->latency, 10);
	col_float(r, "read_avg_ms", f->read_avg_ms, !f->read_latency, 10);
	col_float(r, "read_p99_ms", f->read_p99_ms, !f->read_latency, 10);
	col_float(r, "write_avg_ms", f->write_avg_ms, !f->write_latency, 10);
	col_float(r, "write_p99_ms", f->write_p99_ms, !f->write_latency, 10);
}

/*
 * A group's own settings, from iterations to pattern, shared by process and
 * group rows (the batch row leaves them NULL for a mix); since as for col
 */
static void
col_group(HistoryRow *r, const GroupParams *g, int since)
{
	col(r, "iterations", INT8OID, Int64GetDatum(g->iterations), g->iterations == 0, since);
	col(r, "block_size", INT4OID, Int32GetDatum(g->block_size), false, since);
	col(r, "queue_depth", INT4OID, Int32GetDatum(g->queue_depth), false, since);
	col(r, "write_pct", INT4OID, Int32GetDatum(g->write_pct), false, since);
	col_text(r, "pattern", pattern_names[g->pattern], since);
}

/* What a batch or group used beside its latencies: NaN where not known */
typedef struct HistoryUsage
{
	double		cpu_user_pct;
	double		cpu_sys_pct;
	double		cpu_us_per_io;
	const char *device;			/* NULL: none known */
	double		device_util_pct;
} HistoryUsage;

/* Measured I/Os of worker i's streams, of one group (or all, -1) */
static uint64
worker_ios(BatchShared *bs, int i, int group)
{
	const WorkerSlot *ws = &bs->workers[i];
	uint64		ios = 0;

	for (int s = ws->first_stream; s < ws->first_stream + ws->nstreams; s++)
		if (group < 0 || batch_group_of(&bs->p, s) == group)
			ios += batch_stream(bs, s)->reads + batch_stream(bs, s)->writes;
	return ios;
}

/* The busy share of a target's device over the workers' measured windows */
static double
device_util(BatchShared *bs, int t)
{
	const WorkerSlot *first = NULL;
	const WorkerSlot *last = NULL;
	uint64		busy_ms;
	double		window_ms;

	for (int i = 0; i < bs->p.nworkers; i++)
	{
		const WorkerSlot *ws = &bs->workers[i];

		if (!ws->window_done || ws->dev_ticks_start[t] == PG_UINT64_MAX ||
			ws->dev_ticks_end[t] == PG_UINT64_MAX)
			continue;
		if (first == NULL || ws->window_start_ns < first->window_start_ns)
			first = ws;
		if (last == NULL || ws->window_end_ns > last->window_end_ns)
			last = ws;
	}
	if (first == NULL || last->window_end_ns <= first->window_start_ns)
		return get_float8_nan();
	/* the kernel prints io_ticks as a 32-bit count of ms: it may wrap */
	busy_ms = last->dev_ticks_end[t] - first->dev_ticks_start[t];
	if (first->dev_ticks_start[t] <= PG_UINT32_MAX && last->dev_ticks_end[t] <= PG_UINT32_MAX)
		busy_ms = (uint32) (last->dev_ticks_end[t] - first->dev_ticks_start[t]);
	window_ms = (last->window_end_ns - first->window_start_ns) / 1e6;
	return Min(100.0, 100.0 * busy_ms / window_ms);
}

/*
 * CPU and device use of one group, or of the batch (group -1, its device
 * that of the batch's target, the first group's)
 */
static void
history_usage(BatchShared *bs, int group, HistoryUsage *u)
{
	const BatchParams *p = &bs->p;
	int			t = p->groups[group < 0 ? 0 : group].target;
	double		cpu_ns = 0;
	uint64		ios = 0;
	bool		known = true;

	u->cpu_user_pct = u->cpu_sys_pct = 0;
	for (int i = 0; i < p->nworkers; i++)
	{
		const WorkerSlot *ws = &bs->workers[i];
		uint64		mine = worker_ios(bs, i, group);
		uint64		all = worker_ios(bs, i, -1);
		double		share;
		double		wall;

		if (ws->nstreams == 0 || (group >= 0 && mine == 0))
			continue;
		if (!ws->window_done || ws->window_end_ns <= ws->window_start_ns)
		{
			known = false;
			break;
		}
		share = all > 0 ? (double) mine / all : 1.0;
		wall = ws->window_end_ns - ws->window_start_ns;
		u->cpu_user_pct += 100.0 * ws->cpu_user_ns * share / wall;
		u->cpu_sys_pct += 100.0 * ws->cpu_sys_ns * share / wall;
		cpu_ns += (double) (ws->cpu_user_ns + ws->cpu_sys_ns) * share;
		ios += mine;
	}
	if (!known || ios == 0)
		u->cpu_user_pct = u->cpu_sys_pct = get_float8_nan();
	u->cpu_us_per_io = known && ios > 0 ? cpu_ns / 1000.0 / ios : get_float8_nan();
	u->device = bs->device[t][0] ? bs->device[t] : NULL;
	u->device_util_pct = u->device ? device_util(bs, t) : get_float8_nan();
}

/* The columns of history_usage and the standard deviation (1.1) */
static void
col_usage(HistoryRow *r, BatchShared *bs, int group, const RanreadHist *all)
{
	HistoryUsage u;

	history_usage(bs, group, &u);
	col_float(r, "cpu_user_pct", u.cpu_user_pct, false, 11);
	col_float(r, "cpu_sys_pct", u.cpu_sys_pct, false, 11);
	col_float(r, "cpu_us_per_io", u.cpu_us_per_io, false, 11);
	col_text(r, "device", u.device, 11);
	col_float(r, "device_util_pct", u.device_util_pct, false, 11);
	col_float(r, "lat_stddev_ms", hist_stddev_ms(all), all->count == 0, 11);
}

/* What the caches answered of a batch's or group's server-path reads (1.2) */
static void
col_server(HistoryRow *r, BatchShared *bs, int group)
{
	ServerCounts c;

	serverpath_counts(bs, group, &c);
	col(r, "shared_hits", INT8OID, Int64GetDatum((int64) c.shared_hits), !c.server, 12);
	col(r, "page_cache_hits", INT8OID, Int64GetDatum((int64) c.cache_hits), !c.server, 12);
	col_float(r, "cache_pct", c.cache_pct, !c.server, 12);
}

/* The path of a batch (group -1) or group, and its prefetch distance (1.2) */
static void
col_path(HistoryRow *r, const BatchParams *p, int group)
{
	int			prefetch = serverpath_prefetch(p, group);

	col_text(r, "path", serverpath_path_name(p, group), 12);
	col(r, "effective_io_concurrency", INT4OID, Int32GetDatum(prefetch), prefetch < 0, 12);
}

/* INSERT INTO schema.table (columns) VALUES ($1, ...) */
static char *
insert_sql(const HistoryRow *r, const char *schema, const char *table)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "INSERT INTO %s.%s (", quote_identifier(schema), table);
	for (int i = 0; i < r->n; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "", r->names[i]);
	appendStringInfoString(&sql, ") VALUES (");
	for (int i = 0; i < r->n; i++)
		appendStringInfo(&sql, "%s$%d", i ? ", " : "", i + 1);
	appendStringInfoChar(&sql, ')');
	return sql.data;
}

/* Run a statement, failing unless it returns the expected SPI code */
static void
execute(const char *sql, const HistoryRow *r, int expect)
{
	int			rc = SPI_execute_with_args(sql, r->n, (Oid *) r->types, (Datum *) r->values,
										   r->nulls, false, 0);

	if (rc != expect)
		elog(ERROR, "ranread history statement failed (%s): %s", SPI_result_code_string(rc), sql);
}

/* Remember the merged histograms the batch's rows store */
void
history_set_hists(RanreadHist *all, RanreadHist *writes)
{
	rec_all = all;
	rec_writes = writes;
}

/* A JSON string literal */
static void
json_string(StringInfo out, const char *s)
{
	escape_json(out, s);
}

/*
 * A mix's definition as it ran: every group with every option, defaults
 * written out.
 */
static char *
mix_json(const BatchParams *p)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoChar(&s, '[');
	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *g = &p->groups[i];

		appendStringInfo(&s, "%s{\"label\": ", i ? ", " : "");
		json_string(&s, g->label);
		appendStringInfo(&s, ", \"processes\": %d, \"block_size\": %d, \"write_pct\": %d, "
						 "\"queue_depth\": %d, \"pattern\": \"%s\", \"region_start\": %.15g, "
						 "\"region_end\": %.15g, \"distribution\": ",
						 g->processes, g->block_size, g->write_pct, g->queue_depth,
						 pattern_names[g->pattern], g->region_start, g->region_end);
		json_string(&s, g->blocks.text);
		if (g->rate_iops > 0)
			appendStringInfo(&s, ", \"rate_iops\": %d", g->rate_iops);
		if (g->sync != SYNC_NONE)
			appendStringInfo(&s, ", \"sync\": \"%s\"", ranread_sync_names[g->sync]);
		if (g->iterations > 0)
			appendStringInfo(&s, ", \"iterations\": " INT64_FORMAT, g->iterations);
		if (g->path == PATH_SERVER)
			appendStringInfo(&s, ", \"path\": \"server\", \"effective_io_concurrency\": %d", g->prefetch);
		appendStringInfoString(&s, ", \"target\": ");
		json_string(&s, p->targets[g->target].name);
		appendStringInfoChar(&s, '}');
	}
	appendStringInfoChar(&s, ']');
	return s.data;
}

/* The wall-clock time of a CLOCK_MONOTONIC instant of the batch */
static TimestampTz
wall_time(BatchShared *bs, uint64 ns)
{
	return bs->go_at + (TimestampTz) (((int64) ns - (int64) bs->go_ns) / 1000);
}

/*
 * io_priority as the workers set it (1.2), in the form the option takes:
 * 'idle', 'best-effort:N', 'realtime:N'; NULL when none was set and the
 * workers kept the server's own
 */
static const char *
io_priority_text(int ioprio)
{
	static const char *const classes[] = {NULL, "realtime", "best-effort", "idle"};
	int			cls = ioprio >> 13;		/* params.c's encoding, ioprio_set(2)'s */

	if (ioprio == 0 || cls < 1 || cls > 3)
		return NULL;
	if (cls == 3)
		return classes[cls];
	return psprintf("%s:%d", classes[cls], ioprio & 0x1fff);
}

/* Insert the batch's 'running' row: called by the recorder before go */
void
history_insert_running(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	const GroupParams *g = &p->groups[0];
	const BatchTarget *t = &p->targets[g->target];
	bool		many = p->ngroups > 1;	/* the groups' options are theirs alone */
	HistoryRow r;
	RanreadOwnerState owner;

	memset(&r, 0, sizeof(r));
	r.sql_version = p->sql_version;
	col(&r, "batch", INT8OID, Int64GetDatum(p->batch), false, 10);
	col(&r, "run_at", TIMESTAMPTZOID, TimestampTzGetDatum(bs->run_at), false, 10);
	col_name(&r, "target", t->name, 10);
	col_name(&r, "tablespace", t->tablespace, 10);
	col(&r, "processes", INT4OID, Int32GetDatum(p->processes), false, 10);
	col(&r, "iterations", INT8OID, Int64GetDatum(g->iterations), g->iterations == 0 || many, 10);
	col(&r, "duration", INTERVALOID, IntervalPGetDatum(&p->duration), p->duration_ns == 0, 10);
	col(&r, "block_size", INT4OID, Int32GetDatum(g->block_size), many, 10);
	col(&r, "queue_depth", INT4OID, Int32GetDatum(g->queue_depth), many, 10);
	col(&r, "write_pct", INT4OID, Int32GetDatum(g->write_pct), many, 10);
	col_text(&r, "pattern", many ? NULL : pattern_names[g->pattern], 10);
	col_float(&r, "region_start", g->region_start, many, 10);
	col_float(&r, "region_end", g->region_end, many, 10);
	col(&r, "warmup", INTERVALOID, IntervalPGetDatum(&p->warmup), false, 10);
	col(&r, "rate_iops", INT4OID, Int32GetDatum(g->rate_iops), g->rate_iops == 0 || many, 10);
	col(&r, "seed", INT8OID, Int64GetDatum(p->seed), false, 10);
	col(&r, "workers", INT4OID, Int32GetDatum(p->nworkers), false, 10);
	col_text(&r, "engine", engine_ops(p->engine)->name, 10);
	col(&r, "sweep", INT8OID, Int64GetDatum(p->sweep), p->sweep == 0, 10);
	col_name(&r, "started_by", p->started_by, 10);
	col_text(&r, "status", "running", 10);
	col_text(&r, "filesystem", t->filesystem, 11);
	col(&r, "timing", BOOLOID, BoolGetDatum(p->timing), false, 11);
	col(&r, "groups", INT4OID, Int32GetDatum(p->ngroups), false, 11);
	col(&r, "mix", JSONBOID, p->mix ? DirectFunctionCall1(jsonb_in, CStringGetDatum(mix_json(p))) : (Datum) 0,
		!p->mix, 11);
	col_text(&r, "distribution", many ? NULL : g->blocks.text, 11);
	col_text(&r, "steady_state", p->steady_pct > 0 ? p->steady_text : NULL, 11);
	col_text(&r, "sync", many || g->sync == SYNC_NONE ? NULL : ranread_sync_names[g->sync], 11);
	col(&r, "start_at", TIMESTAMPTZOID, TimestampTzGetDatum(p->start_at), p->start_at == 0, 11);
	col(&r, "study", INT8OID, Int64GetDatum(p->study), p->study == 0, 11);
	col(&r, "point", JSONBOID, p->point[0] ? DirectFunctionCall1(jsonb_in, CStringGetDatum(p->point)) : (Datum) 0,
		p->point[0] == '\0', 11);
	col(&r, "fleet", INT8OID, Int64GetDatum(p->fleet), p->fleet == 0, 11);
	col(&r, "commit_test", INT8OID, Int64GetDatum(p->commit_test), p->commit_test == 0, 11);
	col(&r, "verify", BOOLOID, BoolGetDatum(batch_verifies(p)), false, 11);
	col_text(&r, "io_priority", io_priority_text(p->ioprio), 12);
	col_path(&r, p, -1);

	ranread_become_owner(&owner);
	history_repair_orphans(p);
	execute(insert_sql(&r, p->schema, "ranread_batches"), &r, SPI_OK_INSERT);
	ranread_restore_user(&owner);
}

/* What the I/O buffers of the batch's started workers were made of */
RanreadPages
history_pages(BatchShared *bs)
{
	RanreadPages all = PAGES_UNKNOWN;

	for (int i = 0; i < bs->p.nworkers; i++)
	{
		RanreadPages w = bs->workers[i].pages;

		if (w == PAGES_UNKNOWN || w == all)
			continue;
		all = all == PAGES_UNKNOWN ? w : PAGES_MIXED;
	}
	return all;
}

/* Workers whose buffers were made, and of them those registered with the engine */
static void
history_registered(BatchShared *bs, int *made, int *registered)
{
	*made = *registered = 0;
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		if (bs->workers[i].pages == PAGES_UNKNOWN)
			continue;
		(*made)++;
		if (bs->workers[i].registered)
			(*registered)++;
	}
}

/*
 * The buffer layout in words, for the start NOTICE (once the workers are
 * ready, so what they got): "in 2 MB huge pages, registered with io_uring"
 */
char *
history_layout_words(BatchShared *bs)
{
	RanreadPages pages = history_pages(bs);
	int			made,
				registered;
	const char *in;

	history_registered(bs, &made, &registered);
	in = pages == PAGES_HUGE ? "in 2 MB huge pages" :
		pages == PAGES_SMALL ? "in 4 kB base pages" :
		pages == PAGES_MIXED ? "some in 2 MB huge pages, some in 4 kB base pages" : "none made";
	if (made == 0)
		return pstrdup(in);
	if (registered == made)
		return psprintf("%s, registered with %s", in, engine_ops(bs->p.engine)->name);
	if (registered == 0 && pages == PAGES_HUGE && bs->p.engine == ENGINE_URING && !bs->p.register_buffers)
	{
		double		limit;

		(void) ranread_iobuf_may_register(0, &limit);
		return psprintf("%s, not registered (together more than the %.0f MB of memory the server's user may lock, RLIMIT_MEMLOCK)",
						in, limit / 1048576.0);
	}
	if (registered == 0)
		return psprintf("%s, not registered", in);
	return psprintf("%s, registered in %d of %d workers", in, registered, made);
}

/* The latest worker's start of its I/O after the go (worker.c, worker_start_clock) */
uint64
history_start_late_ns(BatchShared *bs, int *worker)
{
	uint64		late = 0;

	*worker = -1;
	for (int i = 0; i < bs->p.nworkers; i++)
		if (bs->workers[i].nstreams > 0 && bs->workers[i].late_ns >= late)
		{
			late = bs->workers[i].late_ns;
			*worker = i;
		}
	return late;
}

/* In-flight slots of the groups the busy check applies to */
static int
busy_slots(const BatchParams *p)
{
	int			slots = 0;

	for (int g = 0; g < p->ngroups; g++)
		if (p->timing && p->groups[g].rate_iops == 0)
			slots += p->groups[g].processes * p->groups[g].queue_depth;
	return slots;
}

/*
 * What a reader of the summary should know about a batch: what the
 * figures cannot show by themselves.  NULL when there is nothing.
 */
char *
history_notes(BatchShared *bs)
{
	StringInfoData s;
	RanreadPages pages = history_pages(bs);
	int			made,
				registered,
				late_worker;
	uint64		late = history_start_late_ns(bs, &late_worker);

	initStringInfo(&s);
	history_registered(bs, &made, &registered);
	if (figures_busy_low(&bs->total, busy_slots(&bs->p)))
		appendStringInfo(&s, "%sthe processes were busy only %.1f%% of the measured time (Little's law): latency went missing or the run was starved",
						 s.len ? "; " : "", 100 * bs->total.busy);
	if (bs->p.huge_pages && (pages == PAGES_SMALL || pages == PAGES_MIXED))
		appendStringInfo(&s, "%s%s I/O buffers were in base pages, not huge pages",
						 s.len ? "; " : "", pages == PAGES_SMALL ? "the" : "some");
	if (registered > 0 && registered < made)
		appendStringInfo(&s, "%sthe I/O buffers of only %d of %d workers were registered",
						 s.len ? "; " : "", registered, made);
	if (placement_groups_share(bs))
		appendStringInfo(&s, "%sgroups shared workers: a group's latency may include the waits of another group's I/O",
						 s.len ? "; " : "");
	if (late >= HISTORY_LATE_NOTE_NS)
		appendStringInfo(&s, "%sworker %d started its I/O %.0f ms after the batch's start (a busy server); each worker measured its whole duration from its own start",
						 s.len ? "; " : "", late_worker + 1, late / 1e6);
	if (!bs->p.timing)
		appendStringInfo(&s, "%slatency was not measured (ranread.timing = off)", s.len ? "; " : "");
	if (history_cache_words(bs))
		appendStringInfo(&s, "%s%s", s.len ? "; " : "", history_cache_words(bs));
	if (history_device_words(bs))
		appendStringInfo(&s, "%s%s", s.len ? "; " : "", history_device_words(bs));
	serverpath_notes(bs, &s);
	return s.len ? s.data : NULL;
}

/*
 * Could caches under the filesystem have answered?  The largest part of a
 * target the batch's device-path groups read (their regions), against
 * twice the server's RAM, as ranread_setup's warning counts it (target.c):
 * O_DIRECT bypasses the page cache, not the storage's or the controller's
 * caches.  The words for the notes and the batch's WARNING, or NULL.
 */
char *
history_cache_words(const BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	int64		ram = (int64) sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
	uint64		span = 0;
	bool		any = false;

	for (int i = 0; i < p->ngroups; i++)
	{
		const GroupParams *g = &p->groups[i];

		if (g->path != PATH_DEVICE || p->targets[g->target].scratch)
			continue;
		any = true;
		span = Max(span, (g->unit_hi - g->unit_lo) * (uint64) g->block_size);
	}
	if (!any || ram <= 0 || span >= 2 * (uint64) ram)
		return NULL;
	return psprintf("the part of the target read (%s) is less than twice the server's RAM (%s): storage and controller caches may have answered, not only the disks",
					fsinfo_pretty(span), fsinfo_pretty(ram));
}

/*
 * Did the device under a target see the batch's reads?  Per target, the
 * bytes its device-path groups read in their measured time against the
 * bytes its device read over the workers' measured windows (its stat's
 * sectors, fsinfo_counters).  Other work on the device only adds to its
 * count, so a device that read less than half of what the batch read is
 * evidence that a cache above it answered: a filesystem that does not
 * honour O_DIRECT, or one with a cache of its own.  Reads only (a write
 * the filesystem buffered reaches the device later), and only where the
 * batch read 16 MB or more.  A filesystem with no block device of its own
 * (btrfs, ZFS, NFS, FUSE) or a device that keeps no statistics is not
 * checked (fsinfo_device).  The words for the notes and the batch's
 * WARNING, or NULL.
 */
char *
history_device_words(BatchShared *bs)
{
	const BatchParams *p = &bs->p;

	for (int t = 0; t < p->ntargets; t++)
	{
		uint64		batch_bytes = 0;
		uint64		first = PG_UINT64_MAX;
		uint64		last = 0;
		bool		known = bs->device[t][0] != '\0';

		if (p->targets[t].scratch)
			continue;
		for (int s = 0; s < p->processes; s++)
		{
			const GroupParams *g = &p->groups[batch_group_of(p, s)];

			if (g->target == t && g->path == PATH_DEVICE)
				batch_bytes += batch_stream(bs, s)->reads * (uint64) g->block_size;
		}
		for (int i = 0; i < p->nworkers && known; i++)
		{
			const WorkerSlot *ws = &bs->workers[i];

			if (ws->nstreams == 0)
				continue;
			/* unread, or a counter that wrapped (32-bit kernels: 2 TiB) */
			if (!ws->window_done || ws->dev_read_start[t] == PG_UINT64_MAX ||
				ws->dev_read_end[t] == PG_UINT64_MAX || ws->dev_read_end[t] < ws->dev_read_start[t])
				known = false;
			else
			{
				first = Min(first, ws->dev_read_start[t]);
				last = Max(last, ws->dev_read_end[t]);
			}
		}
		if (!known || batch_bytes < 16 * 1024 * 1024 || last < first ||
			last - first >= batch_bytes / 2)
			continue;
		return psprintf("the device under the target %s (%s) read %s while the batch read %s from it: the rest came from a cache above the device (a filesystem that does not honour O_DIRECT, such as ext4 with data=journal, or one with a cache of its own), so the figures are not the device's",
						p->targets[t].name, bs->device[t], fsinfo_pretty(last - first),
						fsinfo_pretty(batch_bytes));
	}
	return NULL;
}

/* Insert one process's row */
static void
insert_process_row(BatchShared *bs, int i, const char *status, SPIPlanPtr *plan)
{
	const BatchParams *p = &bs->p;
	const GroupParams *g = &p->groups[batch_group_of(p, i)];
	StreamStats *st = batch_stream(bs, i);
	const RanreadHist *wh = stream_write_hist(bs, st);
	RanreadFigures f;
	RanreadHist *all = palloc(sizeof(RanreadHist));
	HistoryRow r;

	figures_stream(bs, i, &f, all);
	memset(&r, 0, sizeof(r));
	r.sql_version = p->sql_version;
	col(&r, "batch", INT8OID, Int64GetDatum(p->batch), false, 10);
	col(&r, "process", INT4OID, Int32GetDatum(i + 1), false, 10);
	col(&r, "run_at", TIMESTAMPTZOID, TimestampTzGetDatum(bs->run_at), false, 10);
	col_name(&r, "target", p->targets[g->target].name, 10);
	col(&r, "processes", INT4OID, Int32GetDatum(p->processes), false, 10);
	col_group(&r, g, 10);
	col_figures(&r, &f);
	col(&r, "histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(all)), false, 10);
	col(&r, "write_histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(wh)), wh->count == 0, 10);
	col_text(&r, "status", status, 10);
	col_float(&r, "busy", f.busy, false, 11);
	col(&r, "grp", INT4OID, Int32GetDatum(batch_group_of(p, i) + 1), false, 11);
	col_float(&r, "lat_stddev_ms", hist_stddev_ms(all), all->count == 0, 11);
	col(&r, "worker", INT4OID, Int32GetDatum(placement_worker_of(bs, i) + 1),
		placement_worker_of(bs, i) < 0, 12);

	if (*plan == NULL)
	{
		*plan = SPI_prepare(insert_sql(&r, p->schema, "ranread_results"), r.n, r.types);
		if (*plan == NULL)
			elog(ERROR, "could not prepare the results insert: %s",
				 SPI_result_code_string(SPI_result));
	}
	if (SPI_execute_plan(*plan, r.values, r.nulls, false, 0) != SPI_OK_INSERT)
		elog(ERROR, "could not record process %d of batch " INT64_FORMAT, i + 1, p->batch);
	pfree(all);
}

/* One second of one group (or of all, group -1), every worker's share merged */
static IntervalSlot
interval_sum(BatchShared *bs, int group, int s)
{
	IntervalSlot sum = {0, 0, 0, 0};

	for (int w = 0; w < bs->p.nworkers; w++)
		for (int g = 0; g < bs->p.ngroups; g++)
		{
			IntervalSlot *iv = batch_intervals(bs, w, g) + s;

			if (group >= 0 && g != group)
				continue;
			sum.reads += iv->reads;
			sum.writes += iv->writes;
			sum.sum_ns += iv->sum_ns;
			sum.max_ns = Max(sum.max_ns, iv->max_ns);
		}
	return sum;
}

/*
 * Second s of group g's latency histogram (batch.h, "Per-second latency
 * histograms"), stored; NULL where the leader could not take it.  acc
 * holds the group's seconds before s, to which this one is added; the last
 * second (last) is the group's whole histogram less them.  The buckets
 * are exact counts; sum, min and max are the buckets' (midpoints, bounds
 * within the group's own minimum and maximum), since the row's avg_ms and
 * max_ms are the exact ones.
 */
static bytea *
interval_histogram(BatchShared *bs, int g, int s, bool last, int done, uint64 *acc)
{
	const RanreadHist *whole;
	RanreadHist *h;
	int			lo = -1,
				hi = -1;

	if (!bs->p.timing || rec_all == NULL || (last ? s > done || bs->hsec_gaps : s >= done))
		return NULL;
	if (!last && batch_hsec_index(bs, s, g)->first == HSEC_UNKNOWN)
		return NULL;
	whole = &rec_all[g];
	h = palloc(sizeof(RanreadHist));
	hist_reset(h);
	if (last)
	{
		for (int b = 0; b < HIST_BUCKETS; b++)
			h->buckets[b] = whole->buckets[b] > acc[b] ? whole->buckets[b] - acc[b] : 0;
	}
	else
	{
		HistSecondIndex *ix = batch_hsec_index(bs, s, g);
		HistSecondEntry *e = batch_hsec_pool(bs) + ix->first;

		for (uint32 i = 0; i < ix->n; i++)
			h->buckets[e[i].bucket] += e[i].count;
	}
	for (int b = 0; b < HIST_BUCKETS; b++)
	{
		if (h->buckets[b] == 0)
			continue;
		acc[b] += h->buckets[b];
		h->count += h->buckets[b];
		h->sum_ns += h->buckets[b] * ((hist_bucket_low(b) + hist_bucket_high(b)) / 2);
		if (lo < 0)
			lo = b;
		hi = b;
	}
	if (lo >= 0)
	{
		h->min_ns = Max(hist_bucket_low(lo), whole->min_ns);
		h->max_ns = Min(hist_bucket_high(hi), whole->max_ns);
	}
	h->sumsq_known = false;
	return hist_to_bytea(h);
}

/*
 * Insert the per-second rows, per group (a 1.0 database gets the batch's
 * seconds), each with its latency histogram (interval_histogram).  Seconds without any I/O get a row too (a stall is news).  In a
 * duration run the I/Os still in flight when the time is up complete a
 * little after it; they count in the last second, whose length stretches to
 * cover them.
 */
static void
insert_intervals(BatchShared *bs, double seconds)
{
	const BatchParams *p = &bs->p;
	bool		per_group = p->sql_version >= 11;
	int			n;
	SPIPlanPtr	plan = NULL;
	int			done = bs->hsec_done;
	uint64	   *acc = palloc(HIST_BUCKETS * sizeof(uint64));

	pg_read_barrier();			/* the seconds below done are whole */
	if (p->duration_ns > 0)
		n = (int) Min((p->duration_ns - 1) / 1000000000 + 1, (int64) ceil(seconds));
	else
		n = (int) ceil(seconds);
	n = Min(n, p->nintervals);

	for (int g = 0; g < (per_group ? p->ngroups : 1); g++)
	{
		memset(acc, 0, HIST_BUCKETS * sizeof(uint64));
		for (int s = 0; s < n; s++)
		{
			IntervalSlot sum = interval_sum(bs, per_group ? g : -1, s);
			bytea	   *hist = per_group ? interval_histogram(bs, g, s, s == n - 1, done, acc) : NULL;
			uint64		ios = sum.reads + sum.writes;
			double		len = s == n - 1 ? seconds - s : 1.0;
			bool		lat = ios > 0 && p->timing;
			HistoryRow	r;

			memset(&r, 0, sizeof(r));
			r.sql_version = p->sql_version;
			col(&r, "batch", INT8OID, Int64GetDatum(p->batch), false, 10);
			col(&r, "second", INT4OID, Int32GetDatum(s), false, 10);
			col(&r, "reads", INT8OID, Int64GetDatum((int64) sum.reads), false, 10);
			col(&r, "writes", INT8OID, Int64GetDatum((int64) sum.writes), false, 10);
			col_float(&r, "iops", len > 0 ? ios / len : 0, false, 10);
			col_float(&r, "avg_ms", ios ? sum.sum_ns / (double) ios / 1e6 : 0, !lat, 10);
			col_float(&r, "max_ms", sum.max_ns / 1e6, !lat, 10);
			col(&r, "grp", INT4OID, Int32GetDatum(g + 1), false, 11);
			col(&r, "histogram", BYTEAOID, PointerGetDatum(hist), hist == NULL, 11);
			if (plan == NULL)
			{
				plan = SPI_prepare(insert_sql(&r, p->schema, "ranread_intervals"), r.n, r.types);
				if (plan == NULL)
					elog(ERROR, "could not prepare the intervals insert");
			}
			if (SPI_execute_plan(plan, r.values, r.nulls, false, 0) != SPI_OK_INSERT)
				elog(ERROR, "could not record intervals of batch " INT64_FORMAT, p->batch);
		}
	}
}

/* Insert one group's row (1.1) */
static void
insert_group_row(BatchShared *bs, int g)
{
	const BatchParams *p = &bs->p;
	const GroupParams *gp = &p->groups[g];
	const RanreadFigures *f = &bs->group_fig[g];
	const BatchTarget *t = &p->targets[gp->target];
	HistoryRow	r;

	memset(&r, 0, sizeof(r));
	r.sql_version = p->sql_version;
	col(&r, "batch", INT8OID, Int64GetDatum(p->batch), false, 11);
	col(&r, "grp", INT4OID, Int32GetDatum(g + 1), false, 11);
	col_text(&r, "label", gp->label, 11);
	col_name(&r, "target", t->name, 11);
	col_name(&r, "tablespace", t->tablespace, 11);
	col(&r, "processes", INT4OID, Int32GetDatum(gp->processes), false, 11);
	col_group(&r, gp, 11);
	col_float(&r, "region_start", gp->region_start, false, 11);
	col_float(&r, "region_end", gp->region_end, false, 11);
	col(&r, "rate_iops", INT4OID, Int32GetDatum(gp->rate_iops), gp->rate_iops == 0, 11);
	col_text(&r, "distribution", gp->blocks.text, 11);
	col_figures(&r, f);
	col_float(&r, "mbps", f->mbps, false, 11);
	col_float(&r, "busy", f->busy, false, 11);
	col(&r, "first_io_at", TIMESTAMPTZOID, TimestampTzGetDatum(wall_time(bs, f->first_ns)),
		f->first_ns == 0, 11);
	col(&r, "histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(&rec_all[g])), false, 11);
	col(&r, "write_histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(&rec_writes[g])),
		rec_writes[g].count == 0, 11);
	col_text(&r, "sync", gp->sync == SYNC_NONE ? NULL : ranread_sync_names[gp->sync], 11);
	col(&r, "writes_per_op", INT4OID, Int32GetDatum(gp->writes_per_op), false, 11);
	col_usage(&r, bs, g, &rec_all[g]);
	col(&r, "verify", BOOLOID, BoolGetDatum(gp->verify), false, 11);
	col_verify(&r, f, gp->verify);
	col_path(&r, p, g);
	col_server(&r, bs, g);
	col(&r, "workers", INT4OID, Int32GetDatum(placement_group_workers(bs, g)), false, 12);
	execute(insert_sql(&r, p->schema, "ranread_groups"), &r, SPI_OK_INSERT);
}

/*
 * Record a finished batch: its row, one row per process, its seconds, all
 * from the figures computed once (figures_conclude).  Called by the
 * recorder in its own transaction once every worker has stopped counting.
 */
void
history_finish(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	const RanreadFigures *f = &bs->total;
	const RanreadHist *all = &rec_all[p->ngroups];
	const RanreadHist *writes = &rec_writes[p->ngroups];
	const char *status = ranread_status_name(bs->status);
	const char *pages = ranread_pages_name(history_pages(bs));
	RanreadOwnerState owner;
	HistoryRow	r;
	StringInfoData sql;
	SPIPlanPtr	plan = NULL;
	int			made,
				registered,
				late_worker;

	memset(&r, 0, sizeof(r));
	r.sql_version = p->sql_version;
	col(&r, "batch", INT8OID, Int64GetDatum(p->batch), false, 10);
	col_figures(&r, f);
	col_float(&r, "mbps", f->mbps, false, 10);
	col_float(&r, "read_max_ms", f->read_max_ms, !f->read_latency, 10);
	col_float(&r, "write_max_ms", f->write_max_ms, !f->write_latency, 10);
	col(&r, "histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(all)), false, 10);
	col(&r, "write_histogram", BYTEAOID, PointerGetDatum(hist_to_bytea(writes)), writes->count == 0, 10);
	col_text(&r, "status", status, 10);
	col_text(&r, "message", bs->message, 10);
	col_text(&r, "buffer_pages", pages, 10);
	col_text(&r, "engine", engine_ops(bs->p.engine)->name, 10);
	col_float(&r, "busy", f->busy, false, 11);
	col_text(&r, "notes", history_notes(bs), 11);
	col(&r, "first_io_at", TIMESTAMPTZOID, TimestampTzGetDatum(wall_time(bs, f->first_ns)),
		f->first_ns == 0, 11);
	col(&r, "ended_steady", BOOLOID, BoolGetDatum(bs->ended_steady), p->steady_pct == 0, 11);
	col(&r, "steady", BOOLOID, BoolGetDatum(bs->steady == 1), bs->steady < 0, 11);
	col_float(&r, "steady_excursion", bs->steady_excursion, bs->steady < 0, 11);
	col_float(&r, "steady_slope", bs->steady_slope, bs->steady < 0, 11);
	col_usage(&r, bs, -1, all);
	col_verify(&r, f, batch_verifies(p));
	col_server(&r, bs, -1);
	col(&r, "server_settings", JSONBOID,
		batch_server_path(p) ? DirectFunctionCall1(jsonb_in, CStringGetDatum(serverpath_settings_json(p))) : (Datum) 0,
		!batch_server_path(p), 12);
	history_registered(bs, &made, &registered);
	col(&r, "buffers_registered", BOOLOID, BoolGetDatum(made > 0 && registered == made), made == 0, 12);
	col_float(&r, "start_late_ms", history_start_late_ns(bs, &late_worker) / 1e6, made == 0, 12);

	initStringInfo(&sql);
	appendStringInfo(&sql, "UPDATE %s.ranread_batches SET finished_at = pg_catalog.now()",
					 quote_identifier(p->schema));
	for (int i = 1; i < r.n; i++)
		appendStringInfo(&sql, ", %s = $%d", r.names[i], i + 1);
	appendStringInfoString(&sql, " WHERE batch OPERATOR(pg_catalog.=) $1");

	ranread_become_owner(&owner);
	execute(sql.data, &r, SPI_OK_UPDATE);
	for (int g = 0; g < p->ngroups && p->sql_version >= 11; g++)
		insert_group_row(bs, g);
	for (int i = 0; i < p->processes; i++)
		insert_process_row(bs, i, status, &plan);
	insert_intervals(bs, f->seconds);
	if (p->sql_version >= 11)
		insert_verify_errors(bs);
	ranread_restore_user(&owner);
}

/*
 * The history of a finished batch could not be written (history_finish
 * failed with an error that is not a lock wait: a full disk, say): mark its
 * row failed with why, and what it did, in one small UPDATE of the row the
 * recorder inserted at the start.  It rewrites one row in place, with no
 * new rows in the process and seconds tables, so it often succeeds where
 * the whole history could not (a table that could not grow); then the
 * cause stays in ranread_batches.message instead of the repair's general
 * words.  Called by the recorder in its own transaction, once.
 */
void
history_mark_unrecorded(BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2];
	RanreadOwnerState owner;
	char	   *why = history_unrecorded_words(bs);

	values[0] = Int64GetDatum(p->batch);
	values[1] = CStringGetTextDatum(why);
	ranread_become_owner(&owner);
	if (SPI_execute_with_args(psprintf("UPDATE %s.ranread_batches SET status = 'failed', "
									   "finished_at = pg_catalog.now(), message = $2 "
									   "WHERE batch OPERATOR(pg_catalog.=) $1 AND status OPERATOR(pg_catalog.=) 'running'",
									   quote_identifier(p->schema)),
							  2, types, values, NULL, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "could not mark ranread batch " INT64_FORMAT " failed", p->batch);
	ranread_restore_user(&owner);
	bs->record_marked = SPI_processed == 1;
}
