/*
 * options.c
 *		The table of a workload's options: for each, its name, where it
 *		stands in a spec, its type, its default, its bounds, what is allowed
 *		and one line of help.  The parser (workload.c) reads specs through
 *		it, the checks (params.c) take their bounds and hints from it, and
 *		ranread_options() lists it.  It depends on nothing but the limits in
 *		ranread.h, so both can include it.
 *
 * A new option is a row here, its key in options.h, its case where
 * workload.c applies it and its check in params.c.
 */
#include "postgres.h"

#include "catalog/pg_type.h"

#include "options.h"
#include "serverpath.h"

/*
 * The options, in the order of ranread_run's arguments, then what only a
 * spec has.  default_value is the default every function uses unless its
 * signature says otherwise (test/run_workload.sql compares them with the
 * signatures); null_means says what NULL means where NULL is allowed.
 */
const WorkloadOption workload_options[] = {
	{"processes", OPT_PROCESSES, LEVEL_GROUP, false, WT_INT4, NULL, 1, RANREAD_MAX_PROCESSES, NULL, "processes", NULL,
	"processes is how many independent I/O streams run at once."},
	{"iterations", OPT_ITERATIONS, LEVEL_BATCH, true, WT_INT8, NULL, 1, PG_INT64_MAX / 2, NULL, "I/Os",
		"until the duration ends (10000 I/Os when there is no duration either)",
	"iterations is how many I/Os each process does."},
	{"target", OPT_TARGET, LEVEL_GROUP, true, WT_NAME, "ranread", 0, 0, "a target made by ranread_setup", NULL, NULL,
	"target is the ranread target the I/O goes to, as ranread_setup made it."},
	{"duration", OPT_DURATION, LEVEL_BATCH, false, WT_INTERVAL, NULL, 0, 0, "10 ms to 24 hours", NULL,
		"until the iterations are done",
	"duration is how long the I/O runs, such as '30s', or NULL to run for iterations; with both, whichever ends first."},
	{"block_size", OPT_BLOCK_SIZE, LEVEL_GROUP, false, WT_INT4, "8192", 512, RANREAD_MAX_BLOCK_SIZE, NULL, "bytes", NULL,
	"block_size is in bytes: a multiple of the direct I/O alignment, 8192 by default."},
	{"write_pct", OPT_WRITE_PCT, LEVEL_GROUP, false, WT_INT4, "0", 0, 100, NULL, "percent", NULL,
	"write_pct is the share of I/Os that write, in percent."},
	{"queue_depth", OPT_QUEUE_DEPTH, LEVEL_GROUP, false, WT_INT4, "1", 1, RANREAD_MAX_QUEUE_DEPTH, NULL, "I/Os", NULL,
	"queue_depth is how many I/Os each process keeps in flight."},
	{"pattern", OPT_PATTERN, LEVEL_GROUP, false, WT_TEXT, "random", 0, 0, "'random' or 'sequential'", NULL, NULL,
	"pattern is 'random' or 'sequential'."},
	{"region_start", OPT_REGION_START, LEVEL_GROUP, false, WT_FLOAT8, "0", 0, 0, "0 to 100, below region_end", "percent", NULL,
	"region_start is where the part of the target the I/O goes to starts, in percent of the target."},
	{"region_end", OPT_REGION_END, LEVEL_GROUP, false, WT_FLOAT8, "100", 0, 0, "0 to 100, above region_start", "percent", NULL,
	"region_end is where the part of the target the I/O goes to ends, in percent of the target."},
	{"warmup", OPT_WARMUP, LEVEL_BATCH, false, WT_INTERVAL, "0", 0, 0, "0 to 24 hours", NULL, "no warm-up",
	"warmup is how long the I/O runs before it is measured, such as '5s'."},
	{"rate_iops", OPT_RATE_IOPS, LEVEL_GROUP, false, WT_INT4, NULL, 1, RANREAD_MAX_RATE_IOPS, NULL, "I/Os per second", "no cap",
	"rate_iops caps the I/Os per second of the whole batch; NULL means no cap."},
	{"seed", OPT_SEED, LEVEL_BATCH, false, WT_INT8, NULL, 0, 0, "any bigint", NULL, "a seed from the clock",
	"seed chooses the blocks: the same seed reads the same blocks in the same order."},
	{"workers", OPT_WORKERS, LEVEL_BATCH, false, WT_INT4, NULL, 1, RANREAD_MAX_PROCESSES, "1 to the processes of the batch", NULL,
		"as many as the processes need",
	"workers is how many background workers share the processes; NULL chooses."},
	{"distribution", OPT_DISTRIBUTION, LEVEL_GROUP, false, WT_TEXT, "uniform", 0, 0,
		"'uniform', 'zipf:THETA', 'pareto:H' or 'hotset:PCT_IO/PCT_DATA'", NULL, NULL,
	"distribution is 'uniform', 'zipf:THETA' (e.g. 'zipf:1.2'), 'pareto:H' (e.g. 'pareto:0.2') or 'hotset:PCT_IO/PCT_DATA' (e.g. 'hotset:95/5')."},
	{"steady_state", OPT_STEADY_STATE, LEVEL_BATCH, false, WT_TEXT, NULL, 0, 0, "'PCT%/WINDOW', such as '10%/30s'", NULL,
		"the duration alone ends the run",
	"steady_state is 'PCT%/WINDOW', such as '10%/30s': stop once the IOPS of every second of the last WINDOW are within PCT percent of their mean; 0 < PCT < 100."},
	{"sync", OPT_SYNC, LEVEL_GROUP, false, WT_TEXT, NULL, 0, 0, "'none', 'fdatasync', 'fsync', 'open_datasync' or 'open_sync'", NULL,
		"plain O_DIRECT writes",
	"sync is 'none', 'fdatasync', 'fsync', 'open_datasync' or 'open_sync', as wal_sync_method names them; fsync_writethrough does not exist on Linux."},
	{"start_at", OPT_START_AT, LEVEL_BATCH, false, WT_TIMESTAMPTZ, NULL, 0, 0, "from now to an hour ahead", NULL,
		"as soon as the workers are ready",
	"start_at is when the I/O starts, up to an hour from now, such as now() + interval '2 s'."},
	{"io_priority", OPT_IO_PRIORITY, LEVEL_BATCH, false, WT_TEXT, NULL, 0, 0,
		"'idle', 'best-effort:0' to 'best-effort:7' or 'realtime:0' to 'realtime:7'", NULL,
		"the workers keep the server's own I/O priority",
	"io_priority is the workers' I/O priority class and level, as ioprio_set(2) and fio's prioclass/prio: 'idle', 'best-effort:N' or 'realtime:N' with N from 0 (highest) to 7; realtime needs CAP_SYS_ADMIN or CAP_SYS_NICE."},
	/* verified writes and reads (verify.h) */
	{"verify", OPT_VERIFY, LEVEL_GROUP, false, WT_BOOL, "false", 0, 0, "true or false", NULL, NULL,
	"verify is true to stamp and checksum every page written and check every page read: wrong block, corrupt, or older than an acknowledged write (lost)."},
	/* the server path (docs/design.md, "The server path") */
	{"path", OPT_PATH, LEVEL_GROUP, true, WT_TEXT, "device", 0, 0, "'device' or 'server'", NULL, NULL,
	"path is 'device' (O_DIRECT reads of the target's files: what the storage gives) or 'server' (reads through PostgreSQL's shared buffers and the page cache: what PostgreSQL gets)."},
	{"effective_io_concurrency", OPT_PREFETCH, LEVEL_GROUP, true, WT_INT4, NULL, 0, SERVERPATH_MAX_PREFETCH, NULL, "blocks",
		"the server's effective_io_concurrency for the target's tablespace",
	"effective_io_concurrency is how many blocks ahead a process of path 'server' prefetches, as PostgreSQL's own setting does; 0 prefetches nothing."},
	{"label", OPT_LABEL, LEVEL_GROUP, false, WT_TEXT, NULL, 0, 0, "a non-empty name but \"total\"", NULL, "g1, g2 ... by its place",
	"A label names the group's rows in the results and the history, such as \"oltp\"."},
	{"groups", OPT_GROUPS, LEVEL_BATCH, false, WT_JSONB, NULL, 1, RANREAD_MAX_GROUPS, "an array of 1 to 16 groups", NULL, NULL,
	"groups is a JSON array of groups, each an object of a group's options with its processes, such as [{\"label\": \"oltp\", \"processes\": 16}]."},
	/* set by the functions that run many batches, for the history */
	{"sweep", OPT_SWEEP, LEVEL_BATCH, false, WT_INT8, NULL, 0, 0, "the id of a sweep this session runs", NULL, "not part of a sweep",
	"sweep is the id of the sweep the batch is a step of.", true},
	{"study", OPT_STUDY, LEVEL_BATCH, false, WT_INT8, NULL, 0, 0, "the id of a study this session runs", NULL, "not part of a study",
	"study is the id of the study the batch is a point of.", true},
	{"point", OPT_POINT, LEVEL_BATCH, false, WT_JSONB, NULL, 0, 0, "an object, at most 1023 bytes of JSON", NULL, "none",
	"point is the object of a study point's coordinates, or a latency-target search's window.", true},
	{"fleet", OPT_FLEET, LEVEL_BATCH, false, WT_INT8, NULL, 0, 0, "the id of a fleet this session runs, or started", NULL, "not part of a fleet",
	"fleet is the id of the fleet the batch is a node's part of.", true},
	{"caller", OPT_CALLER, LEVEL_BATCH, false, WT_TEXT, "ranread_run_step", 0, 0, "a function's name", NULL, NULL,
	"caller is the function the user called, which errors name.", true},
};

const int	workload_noptions = lengthof(workload_options);

/* An option by name; NULL when there is none */
const WorkloadOption *
workload_option(const char *name)
{
	for (int i = 0; i < workload_noptions; i++)
		if (strcmp(workload_options[i].name, name) == 0)
			return &workload_options[i];
	return NULL;
}

/* An option by key */
const WorkloadOption *
workload_option_by_key(WorkloadKey key)
{
	for (int i = 0; i < workload_noptions; i++)
		if (workload_options[i].key == key)
			return &workload_options[i];
	elog(ERROR, "no workload option %d", (int) key);
	return NULL;					/* keep compiler quiet */
}

/* The SQL type of an option's values */
Oid
workload_type_oid(WorkloadType type)
{
	static const Oid oids[] = {INT4OID, INT8OID, FLOAT8OID, TEXTOID, NAMEOID, INTERVALOID,
	TIMESTAMPTZOID, JSONBOID, BOOLOID};

	return oids[type];
}

/*
 * The one null check: arg of fn must be given, with the hint (what is
 * allowed) the caller has for it
 */
void
workload_require(bool isnull, const char *arg, const char *fn, const char *hint)
{
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s of %s must not be null", arg, fn),
				 hint ? errhint("%s", hint) : 0));
}
