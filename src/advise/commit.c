/*
 * commit.c
 *		ranread_commit_test: the commit path, in SQL.  Each test is a batch
 *		of its own (one process, queue depth 1, the synchronous engine) on a
 *		scratch file, recorded in the history like any batch, with
 *		commit_test naming the run it belongs to.
 *
 * The tests are pg_test_fsync's (PostgreSQL 15), with the same system calls
 * and sizes: one 8 kB write and two 8 kB writes per sync, for each
 * wal_sync_method the platform has; open_sync with 16 kB written as 1 x 16
 * kB down to 16 x 1 kB; and an 8 kB write with no sync at all.  Every write
 * goes to the start of the file, as there.  fdatasync, fsync and the
 * unsynced write go through the page cache, as the server's WAL writes do.
 *
 * How open_datasync and open_sync open the file (docs/commit-and-advice.md, "The commit
 * path"): mode 'server' (the default) as this server opens its WAL, with
 * O_DIRECT only at wal_level minimal (PostgreSQL 15's get_sync_bit: with
 * archiving or replication possible, wal_level replica or logical, the WAL
 * is read back soon after it is written, so it goes through the page
 * cache); mode 'pg_test_fsync' always with O_DIRECT, as pg_test_fsync does.
 * Each row says how its test wrote (calls) and the start NOTICE why.
 *
 * The one 8 kB write of each durable method, the figure wal_sync_method
 * advice rests on, runs in rounds (duration / 5 each), the methods in turn
 * and in a rotating order (A B C, B C A, ...) so that a drift of the
 * machine's load falls on all of them: five rounds, then more until
 * ranread_advise_wal_sync_method is settled (a method faster beyond the
 * noise of the rounds, or none within 10% even at the ends of the
 * intervals) or max_duration per method is spent.  Its row gives the mean
 * of the rounds with their 95% interval, and its batches.
 *
 * The scratch file is wal_segment_size bytes of random data, written and
 * flushed before the first test, on the filesystem of pg_wal (following a
 * symlink) or of a named tablespace.  Where that filesystem also holds the
 * tablespace's temporary directory (base/pgsql_tmp for pg_wal in the data
 * directory), the file lives there under a pgsql_tmp name, so the server
 * removes it when it restarts after a crash; otherwise it goes into pg_wal
 * under a name that is never a WAL file's.  It is removed when the function
 * ends, by error or cancel too, and a leftover of a process that no longer
 * exists is removed by the next commit test there.
 */
#include "postgres.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "catalog/pg_tablespace_d.h"
#include "commands/dbcommands.h"
#include "commands/sequence.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/pmsignal.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "params.h"
#include "leader.h"
#include "figures.h"
#include "sqlfunc.h"

PG_FUNCTION_INFO_V1(ranread_commit_test);

#define SCRATCH_TMP_PREFIX	PG_TEMP_FILE_PREFIX "ranread_commit."
#define SCRATCH_WAL_PREFIX	"ranread_commit_test."
#define METHOD_WRITETHROUGH (-1)	/* fsync_writethrough: not on Linux */
#define COMMIT_MIN_ROUNDS	5		/* rounds of duration / 5: duration a method */
#define COMMIT_MAX_ROUNDS	100

/* How open_datasync and open_sync open the scratch file */
typedef enum CommitMode
{
	MODE_SERVER,				/* as this server opens its WAL */
	MODE_PG_TEST_FSYNC			/* O_DIRECT, as pg_test_fsync */
} CommitMode;

/* The rounds of one method's one 8 kB write */
typedef struct MethodRounds
{
	int			test;			/* its entry in tests[] */
	int			n;
	double		ops[COMMIT_MAX_ROUNDS];
	int64		batches[COMMIT_MAX_ROUNDS];
	RanreadHist *hist;			/* its rounds' write latencies, merged */
	double		seconds;		/* measured, summed */
	bool		latency;
	const char *status;			/* the last round's */
	char	   *message;
} MethodRounds;

/* One test: an op of `writes` writes of `bytes` each, then the sync */
typedef struct CommitTest
{
	const char *test;			/* pg_test_fsync's section */
	int			method;			/* RanreadSync, or METHOD_WRITETHROUGH */
	int			writes;
	int			bytes;
} CommitTest;

static const CommitTest tests[] = {
	{"one 8 kB write", SYNC_OPEN_DATASYNC, 1, 8192},
	{"one 8 kB write", SYNC_FDATASYNC, 1, 8192},
	{"one 8 kB write", SYNC_FSYNC, 1, 8192},
	{"one 8 kB write", METHOD_WRITETHROUGH, 1, 8192},
	{"one 8 kB write", SYNC_OPEN_SYNC, 1, 8192},
	{"two 8 kB writes", SYNC_OPEN_DATASYNC, 2, 8192},
	{"two 8 kB writes", SYNC_FDATASYNC, 2, 8192},
	{"two 8 kB writes", SYNC_FSYNC, 2, 8192},
	{"two 8 kB writes", METHOD_WRITETHROUGH, 2, 8192},
	{"two 8 kB writes", SYNC_OPEN_SYNC, 2, 8192},
	{"open_sync sizes", SYNC_OPEN_SYNC, 1, 16384},
	/* 2 x 8 kB is the row of "two 8 kB writes" above */
	{"open_sync sizes", SYNC_OPEN_SYNC, 4, 4096},
	{"open_sync sizes", SYNC_OPEN_SYNC, 8, 2048},
	{"open_sync sizes", SYNC_OPEN_SYNC, 16, 1024},
	{"non-synced write", SYNC_NONE, 1, 8192},
};

/* Where the scratch file goes, and what it sits on */
typedef struct Scratch
{
	char		dir[MAXPGPATH];
	char		path[MAXPGPATH];
	const char *prefix;			/* of leftovers' names */
	char		where[NAMEDATALEN];	/* 'pg_wal' or the tablespace */
	FsInfo		fs;
	bool		created;
} Scratch;

static const char *
method_name(int method)
{
	return method == METHOD_WRITETHROUGH ? "fsync_writethrough" : ranread_sync_names[method];
}

/* The methods argument: which methods to test (NULL: all) */
static void
chosen_methods(ArrayType *arr, bool *chosen)
{
	Datum	   *items;
	bool	   *nulls;
	int			n;

	if (arr == NULL)
	{
		for (int i = 0; i <= RANREAD_NSYNC; i++)
			chosen[i] = true;
		return;
	}
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &n);
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("methods of ranread_commit_test must name at least one method"),
				 errhint("Pass NULL for every method.")));
	for (int i = 0; i < n; i++)
	{
		char	   *m;
		bool		found = false;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("methods of ranread_commit_test must not hold NULL")));
		m = TextDatumGetCString(items[i]);
		if (pg_strcasecmp(m, "fsync_writethrough") == 0)
			chosen[RANREAD_NSYNC] = found = true;
		for (int k = 0; k < RANREAD_NSYNC; k++)
			if (pg_strcasecmp(m, ranread_sync_names[k]) == 0)
				chosen[k] = found = true;
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("unknown method \"%s\" in methods of ranread_commit_test", m),
					 errhint("The methods are 'open_datasync', 'fdatasync', 'fsync', 'fsync_writethrough', 'open_sync' and 'none' (the non-synced write).")));
	}
}

static bool
method_chosen(const bool *chosen, int method)
{
	return chosen[method == METHOD_WRITETHROUGH ? RANREAD_NSYNC : method];
}

/*
 * Remove scratch files of processes that are gone (a crash, a kill -9):
 * names carry the pid of the session that made them.
 */
static void
remove_leftovers(Scratch *sc)
{
	DIR		   *d = AllocateDir(sc->dir);
	struct dirent *de;
	size_t		plen = strlen(sc->prefix);

	while ((de = ReadDirExtended(d, sc->dir, LOG)) != NULL)
	{
		long		pid;
		char	   *end;

		if (strncmp(de->d_name, sc->prefix, plen) != 0)
			continue;
		pid = strtol(de->d_name + plen, &end, 10);
		if (end == de->d_name + plen || pid <= 0 || (kill((pid_t) pid, 0) == 0 || errno != ESRCH))
			continue;
		if (unlink(psprintf("%s/%s", sc->dir, de->d_name)) == 0)
			ereport(NOTICE,
					(errmsg("removed the scratch file \"%s/%s\" a commit test of process %ld left behind",
							sc->dir, de->d_name, pid)));
	}
	FreeDir(d);
}

/*
 * Is there room on the scratch file's filesystem (sc->fs, read) for the
 * file and the reserve (ranread.reserve)?
 */
static void
scratch_room(const Scratch *sc)
{
	FsReserve	r;

	fsinfo_reserve(&sc->fs, &r);
	if (sc->fs.avail_bytes < (uint64) wal_segment_size + r.bytes)
		ereport(ERROR,
				(errcode(ERRCODE_DISK_FULL),
				 errmsg("%s has %s free, too little for a %s scratch file and the reserve of %s",
						sc->where, fsinfo_pretty(sc->fs.avail_bytes), fsinfo_pretty(wal_segment_size),
						fsinfo_pretty(r.bytes)),
				 errhint("Free some space; ranread.reserve sets the reserve.")));
}

/* Choose the scratch file's place: pg_wal's filesystem, or a tablespace's */
static void
scratch_place(Scratch *sc, const char *tablespace)
{
	Oid			spcoid;

	memset(sc, 0, sizeof(*sc));
	if (tablespace == NULL)
	{
		struct stat wal;

		if (stat(XLOGDIR, &wal) != 0)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not inspect \"%s\": %m", XLOGDIR)));
		strlcpy(sc->where, "pg_wal", NAMEDATALEN);
		spcoid = DEFAULTTABLESPACE_OID;
		if (!fsinfo_same_device("base", wal.st_dev))
		{
			strlcpy(sc->dir, XLOGDIR, MAXPGPATH);
			sc->prefix = SCRATCH_WAL_PREFIX;
		}
	}
	else
	{
		spcoid = get_tablespace_oid(tablespace, false);
		if (spcoid == GLOBALTABLESPACE_OID)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("tablespace of ranread_commit_test cannot be pg_global"),
					 errhint("pg_global is the data directory's filesystem, as pg_default is: name pg_default.")));
		if (spcoid != MyDatabaseTableSpace &&
			pg_tablespace_aclcheck(spcoid, GetUserId(), ACL_CREATE) != ACLCHECK_OK)
			aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLESPACE, tablespace);
		strlcpy(sc->where, tablespace, NAMEDATALEN);
	}
	if (sc->dir[0] == '\0')
	{
		char		parent[MAXPGPATH];
		struct stat st;

		/* the tablespace's temporary directory, cleaned at a crash restart */
		TempTablespacePath(sc->dir, spcoid);
		/*
		 * Making it takes a block too: first the free-space check, which
		 * names the reserve (an existing directory may hold a dead
		 * process's leftover, removed before scratch_create checks)
		 */
		if (stat(sc->dir, &st) != 0 && errno == ENOENT)
		{
			strlcpy(parent, sc->dir, MAXPGPATH);
			get_parent_directory(parent);
			fsinfo_read(parent, &sc->fs);
			scratch_room(sc);
		}
		if (MakePGDirectory(sc->dir) < 0 && errno != EEXIST)
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not create directory \"%s\": %m", sc->dir)));
		sc->prefix = SCRATCH_TMP_PREFIX;
	}
	snprintf(sc->path, MAXPGPATH, "%s/%s%d", sc->dir, sc->prefix, MyProcPid);
	fsinfo_read(sc->dir, &sc->fs);
	if (sc->fs.memory)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s is on a memory filesystem (%s at %s)", sc->where, sc->fs.type, sc->fs.mount_point),
				 errdetail("A sync on tmpfs or ramfs reaches no storage: the figures would mean nothing.")));
}

/*
 * A FATAL (pg_terminate_backend, the client gone) skips PG_FINALLY: the
 * process's exit removes the scratch file then.
 */
static char scratch_live[MAXPGPATH];	/* the file now; "" none */

static void
scratch_at_exit(int code, Datum arg)
{
	if (scratch_live[0])
		(void) unlink(scratch_live);
}

/* Write the scratch file: wal_segment_size random bytes, flushed */
static void
scratch_create(Scratch *sc)
{
	Size		chunk = 1024 * 1024;
	char	   *buf = palloc(chunk);
	uint64		rng[4] = {MyProcPid, (uint64) GetCurrentTimestamp(), 0x9E3779B97F4A7C15, 1};
	int			fd;

	scratch_room(sc);
	for (Size b = 0; b + 8 <= chunk; b += 8)
	{
		uint64		v = rng_next(rng);

		memcpy(buf + b, &v, 8);
	}
	fd = open(sc->path, O_RDWR | O_CREAT | O_EXCL | PG_BINARY, S_IRUSR | S_IWUSR);
	if (fd < 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not create the scratch file \"%s\": %m", sc->path)));
	sc->created = true;
	{
		static bool registered = false;

		if (!registered)
			before_shmem_exit(scratch_at_exit, (Datum) 0);
		registered = true;
		strlcpy(scratch_live, sc->path, MAXPGPATH);
	}
	for (int64 done = 0; done < wal_segment_size;)
	{
		ssize_t		n = write(fd, buf, Min(chunk, (Size) (wal_segment_size - done)));

		if (n <= 0)
		{
			int			save = n < 0 ? errno : ENOSPC;

			close(fd);
			errno = save;
			ereport(ERROR,
					(errcode_for_file_access(),
					 errmsg("could not write the scratch file \"%s\": %m", sc->path)));
		}
		done += n;
		CHECK_FOR_INTERRUPTS();
		/* a dead postmaster: leave at once (the exit callback removes the file) */
		if (!PostmasterIsAlive())
		{
			close(fd);
			ereport(FATAL,
					(errcode(ERRCODE_ADMIN_SHUTDOWN),
					 errmsg("terminating ranread_commit_test because the postmaster died")));
		}
	}
	/*
	 * fsync itself, not pg_fsync: PostgreSQL's skips the call when the
	 * server runs with fsync = off, and the scratch file's dirty pages would
	 * then be flushed by the first test and charged to it.
	 */
	if (fsync(fd) != 0)
	{
		int			save = errno;

		close(fd);
		errno = save;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not flush the scratch file \"%s\": %m", sc->path)));
	}
	if (close(fd) != 0)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not close the scratch file \"%s\": %m", sc->path)));
	/* the direct I/O alignment is known for a file, not for its directory */
	fsinfo_read(sc->path, &sc->fs);
}

/* Is the file of a test opened with O_DIRECT, in this mode? */
static bool
test_direct(const CommitTest *t, CommitMode mode)
{
	if (t->method != SYNC_OPEN_DATASYNC && t->method != SYNC_OPEN_SYNC)
		return false;
	return mode == MODE_PG_TEST_FSYNC || wal_level == WAL_LEVEL_MINIMAL;
}

/* How a test writes, in words: the system calls and the open flags */
static const char *
test_calls(const CommitTest *t, CommitMode mode)
{
	const char *direct = test_direct(t, mode) ? " | O_DIRECT" : "";

	switch (t->method)
	{
		case SYNC_FDATASYNC:
			return "write, fdatasync";
		case SYNC_FSYNC:
			return "write, fsync";
		case SYNC_OPEN_DATASYNC:
			return psprintf("write to a file opened O_DSYNC%s", direct);
		case SYNC_OPEN_SYNC:
			return psprintf("write to a file opened O_SYNC%s", direct);
		case SYNC_NONE:
			return "write";
		default:
			return "write, then a flush through the device's cache";
	}
}

/* The batch of one test */
static void
test_params(BatchParams *p, const CommitTest *t, const Scratch *sc, Interval *duration,
			int64 duration_ns, int64 commit_test, CommitMode mode)
{
	GroupParams *g = &p->groups[0];
	BatchTarget *bt = &p->targets[0];

	memset(p, 0, sizeof(*p));
	p->commit_test = commit_test;
	p->duration = *duration;
	p->duration_ns = duration_ns;
	p->seed = params_seed(true, 0);
	p->ntargets = 1;
	strlcpy(bt->name, "commit test", NAMEDATALEN);
	strlcpy(bt->tablespace, sc->where, NAMEDATALEN);
	strlcpy(bt->filesystem, sc->fs.type, RANREAD_FS_LEN);
	strlcpy(bt->relpath, sc->path, MAXPGPATH);
	bt->scratch = true;
	bt->buffered = !test_direct(t, mode);
	bt->dio_align = bt->buffered ? 1 : sc->fs.dio_align;
	bt->nsegs = 1;
	bt->size_bytes = (uint64) t->writes * t->bytes;	/* every op at the start */

	p->ngroups = 1;
	/* the label says whether the open_* methods used O_DIRECT (the history's direct) */
	snprintf(g->label, NAMEDATALEN, "%s: %s%s%s", t->test,
			 t->writes > 1 || t->bytes != 8192 ? psprintf("%d x %d kB, ", t->writes, t->bytes / 1024) : "",
			 method_name(t->method),
			 t->method == SYNC_OPEN_DATASYNC || t->method == SYNC_OPEN_SYNC ?
			 (test_direct(t, mode) ? " (O_DIRECT)" : " (buffered)") : "");
	g->processes = 1;
	g->block_size = t->writes * t->bytes;
	g->writes_per_op = t->writes;
	g->write_pct = 100;
	g->queue_depth = 1;
	g->pattern = PATTERN_SEQUENTIAL;
	g->region_end = 100;
	g->sync = (RanreadSync) t->method;
	(void) blocks_parse("uniform", &g->blocks, NULL, 0);
	params_check_totals(p, "ranread_commit_test");
	params_check_batch(p, "ranread_commit_test");
}

/* Why a test cannot run here, or NULL */
static const char *
test_unavailable(const CommitTest *t, const Scratch *sc, CommitMode mode)
{
	if (t->method == METHOD_WRITETHROUGH)
		return "fsync_writethrough exists only on Windows and macOS";
	if (test_direct(t, mode) && t->bytes % sc->fs.dio_align != 0)
		return psprintf("direct I/O on %s needs writes in multiples of %d bytes", sc->where, sc->fs.dio_align);
	return NULL;
}

/* The figures of one result row: a batch's, or a method's rounds' */
typedef struct RowFigures
{
	int64		batch;			/* the (last) batch */
	double		ops;			/* ops/s: the batch's, or the rounds' mean */
	double		avg_ms,
				p50_ms,
				p99_ms,
				p999_ms,
				max_ms;
	bool		latency;
	int			rounds;
	double		ops_low;		/* the rounds' 95% interval; NaN for one */
	double		ops_high;
	const int64 *batches;
} RowFigures;

#define COMMIT_COLS 20

/* Put one result row; f NULL: the test has no figures */
static void
put_row(ReturnSetInfo *rsinfo, int64 commit_test, const CommitTest *t, CommitMode mode,
		const RowFigures *f, const char *status, const char *note)
{
	Datum		values[COMMIT_COLS];
	bool		nulls[COMMIT_COLS];

	memset(nulls, 0, sizeof(nulls));
	values[0] = Int64GetDatum(commit_test);
	values[1] = f ? Int64GetDatum(f->batch) : (Datum) 0;
	nulls[1] = f == NULL;
	values[2] = CStringGetTextDatum(t->test);
	values[3] = CStringGetTextDatum(method_name(t->method));
	values[4] = Int32GetDatum(t->writes);
	values[5] = Int32GetDatum(t->bytes / 1024);
	if (f)
	{
		const double fig[6] = {f->ops, f->avg_ms, f->p50_ms, f->p99_ms, f->p999_ms, f->max_ms};

		/* rounded as the columns are declared (figures_datum) */
		for (int i = 0; i < 6; i++)
			values[6 + i] = figures_datum(rsinfo->setDesc, 6 + i, fig[i], &nulls[6 + i]);
		for (int i = 7; i <= 11; i++)
			if (!f->latency)
				nulls[i] = true;
		values[16] = Int32GetDatum(f->rounds);
		values[17] = figures_datum(rsinfo->setDesc, 17, f->ops_low, &nulls[17]);
		values[18] = figures_datum(rsinfo->setDesc, 18, f->ops_high, &nulls[18]);
		{
			Datum	   *b = palloc(sizeof(Datum) * f->rounds);

			for (int i = 0; i < f->rounds; i++)
				b[i] = Int64GetDatum(f->batches[i]);
			values[19] = PointerGetDatum(construct_array(b, f->rounds, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
		}
	}
	else
		for (int i = 6; i <= 11; i++)
			nulls[i] = true;
	if (f == NULL)
		nulls[16] = nulls[17] = nulls[18] = nulls[19] = true;
	values[12] = BoolGetDatum(t->method != SYNC_NONE);
	values[13] = CStringGetTextDatum(status);
	values[14] = note ? CStringGetTextDatum(note) : (Datum) 0;
	nulls[14] = note == NULL;
	values[15] = CStringGetTextDatum(test_calls(t, mode));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* A batch's figures as a row's */
static void
batch_figures(BatchShared *bs, RowFigures *f)
{
	const RanreadFigures *g = &bs->group_fig[0];

	memset(f, 0, sizeof(*f));
	f->batch = bs->p.batch;
	f->ops = g->iops;
	f->avg_ms = g->avg_ms;
	f->p50_ms = g->p50_ms;
	f->p99_ms = g->p99_ms;
	f->p999_ms = g->p999_ms;
	f->max_ms = g->max_ms;
	f->latency = g->latency;
	f->rounds = 1;
	f->ops_low = f->ops_high = get_float8_nan();
	f->batches = &f->batch;
}

/*
 * What ranread_advise_wal_sync_method says of the rounds so far (every
 * round of every method, one element each), against the server's
 * wal_sync_method: the outputs as text (NULL where NULL), settled as a bool
 */
typedef struct Advice
{
	char	   *method;
	char	   *pct;
	char	   *measured;
	char	   *note;
	bool		settled;
} Advice;

static void
advise(const MethodRounds *mr, int k, Advice *a)
{
	const char *current = GetConfigOption("wal_sync_method", false, false);
	int			total = 0;
	Datum	   *names;
	Datum	   *figures;
	int			n = 0;
	Oid			argtypes[3] = {TEXTARRAYOID, FLOAT8ARRAYOID, TEXTOID};
	Datum		args[3];
	MemoryContext cxt = CurrentMemoryContext;

	memset(a, 0, sizeof(*a));
	for (int m = 0; m < k; m++)
		total += mr[m].n;
	if (total == 0)
		return;
	names = palloc(sizeof(Datum) * total);
	figures = palloc(sizeof(Datum) * total);
	for (int m = 0; m < k; m++)
		for (int r = 0; r < mr[m].n; r++)
		{
			names[n] = CStringGetTextDatum(method_name(tests[mr[m].test].method));
			figures[n++] = Float8GetDatum(mr[m].ops[r]);
		}
	args[0] = PointerGetDatum(construct_array(names, n, TEXTOID, -1, false, TYPALIGN_INT));
	args[1] = PointerGetDatum(construct_array(figures, n, FLOAT8OID, sizeof(float8),
											  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	args[2] = CStringGetTextDatum(current);
	SPI_connect();
	if (SPI_execute_with_args(psprintf("SELECT method, faster_pct, measured, note, coalesce(settled, true)::text"
									   " FROM %s.ranread_advise_wal_sync_method($1, $2, $3)",
									   ranread_schema_name()),
							  3, argtypes, args, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		char	   *v;

		if ((v = SPI_getvalue(tup, desc, 1)) != NULL)
			a->method = MemoryContextStrdup(cxt, v);
		if ((v = SPI_getvalue(tup, desc, 2)) != NULL)
			a->pct = MemoryContextStrdup(cxt, v);
		if ((v = SPI_getvalue(tup, desc, 3)) != NULL)
			a->measured = MemoryContextStrdup(cxt, v);
		if ((v = SPI_getvalue(tup, desc, 4)) != NULL)
			a->note = MemoryContextStrdup(cxt, v);
		v = SPI_getvalue(tup, desc, 5);
		a->settled = v == NULL || strcmp(v, "true") == 0;
	}
	SPI_finish();
}

/* A method's rounds as a row's figures: their mean and 95% interval (ranread_rounds_interval) */
static void
rounds_figures(const MethodRounds *m, RowFigures *f)
{
	Datum	   *ops = palloc(sizeof(Datum) * Max(m->n, 1));
	Oid			argtypes[1] = {FLOAT8ARRAYOID};
	Datum		args[1];

	memset(f, 0, sizeof(*f));
	f->rounds = m->n;
	f->batches = m->batches;
	f->batch = m->batches[m->n - 1];
	f->ops = f->ops_low = f->ops_high = get_float8_nan();
	for (int r = 0; r < m->n; r++)
		ops[r] = Float8GetDatum(m->ops[r]);
	args[0] = PointerGetDatum(construct_array(ops, m->n, FLOAT8OID, sizeof(float8),
											 FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
	SPI_connect();
	if (SPI_execute_with_args("SELECT mean, low, high FROM ranread_internal.ranread_rounds_interval($1)",
							  1, argtypes, args, NULL, true, 1) == SPI_OK_SELECT && SPI_processed == 1)
	{
		bool		isnull;

		for (int c = 1; c <= 3; c++)
		{
			Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, c, &isnull);
			double		v = isnull ? get_float8_nan() : DatumGetFloat8(d);

			if (c == 1)
				f->ops = v;
			else if (c == 2)
				f->ops_low = v;
			else
				f->ops_high = v;
		}
	}
	SPI_finish();
	f->latency = m->latency;
	f->avg_ms = hist_avg_ms(m->hist);
	f->p50_ms = hist_percentile_ms(m->hist, 50);
	f->p99_ms = hist_percentile_ms(m->hist, 99);
	f->p999_ms = hist_percentile_ms(m->hist, 99.9);
	f->max_ms = m->hist->count > 0 ? m->hist->max_ns / 1e6 : get_float8_nan();
}

/*
 * The verdict at the end, on the durable methods this call measured for one
 * 8 kB write (their rounds): the figures with their intervals, which is
 * fastest, against the server's wal_sync_method, and an ALTER SYSTEM hint
 * only when another method is faster beyond the noise of the rounds and by
 * more than 10%.  ranread_advise gives the same words: both come from
 * ranread_advise_wal_sync_method.  Methods of other calls are never
 * compared: a method is "fastest" only among those measured here, and with
 * one there is nothing to compare.
 */
static void
recommend(const MethodRounds *mr, int k, const Scratch *sc, int64 commit_test)
{
	const char *current = GetConfigOption("wal_sync_method", false, false);
	Advice		a;

	advise(mr, k, &a);
	if (a.measured == NULL || a.note == NULL)
		return;
	if (a.method && strcmp(a.method, current) != 0)
		ereport(NOTICE,
				(errmsg("commit test " INT64_FORMAT " on %s, one 8 kB write and its sync: %s; %s",
						commit_test, sc->where, a.measured, a.note),
				 errhint("ALTER SYSTEM SET wal_sync_method = '%s'; SELECT pg_reload_conf(); would make a commit's flush %s%% faster here, if the device keeps its promise to write through.",
						 a.method, a.pct)));
	else
		ereport(NOTICE,
				(errmsg("commit test " INT64_FORMAT " on %s, one 8 kB write and its sync: %s; %s",
						commit_test, sc->where, a.measured, a.note),
				 a.method ? 0 : errhint("Measure %s and the other methods in one call: SELECT * FROM ranread_commit_test(%s);",
										current, strcmp(sc->where, "pg_wal") == 0 ? "" :
										psprintf("tablespace => %s", quote_literal_cstr(sc->where)))));
}

/* The start NOTICE's words on how the open_* methods are opened, and why */
static char *
mode_words(CommitMode mode)
{
	const char *fs = enableFsync ? "" :
		"; fsync is off, so this server flushes no WAL at all: each method is timed as it would be with fsync on";

	if (mode == MODE_PG_TEST_FSYNC)
		return psprintf("open_datasync and open_sync with O_DIRECT, as pg_test_fsync opens them (mode => 'pg_test_fsync')%s", fs);
	if (wal_level == WAL_LEVEL_MINIMAL)
		return psprintf("each method as this server writes its WAL: at wal_level minimal PostgreSQL 15 opens it with O_DIRECT for open_datasync and open_sync%s", fs);
	return psprintf("each method as this server writes its WAL: at wal_level %s (archiving or replication possible) PostgreSQL 15 opens it without O_DIRECT, so open_datasync and open_sync go through the page cache; mode => 'pg_test_fsync' times them with O_DIRECT%s",
					GetConfigOption("wal_level", false, false), fs);
}

/* One batch of a test: its params, run; the caller detaches rc->seg */
static void
run_test(const CommitTest *t, const Scratch *sc, Interval *duration, int64 duration_ns,
		 int64 commit_test, CommitMode mode, RunContext *rc)
{
	BatchParams *p = palloc(sizeof(BatchParams));

	test_params(p, t, sc, duration, duration_ns, commit_test, mode);
	memset(rc, 0, sizeof(*rc));
	rc->fn = "ranread_commit_test";
	rc->workers = 1;
	run_batch(p, rc);
}

/*
 * ranread_commit_test(tablespace, duration, methods, mode, max_duration):
 * pg_test_fsync's tests as batches; one row per test
 */
Datum
ranread_commit_test(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *fn = "ranread_commit_test";
	const char *tablespace = PG_ARGISNULL(0) ? NULL : NameStr(*PG_GETARG_NAME(0));
	Interval	duration;
	int64		duration_ns;
	int64		max_ns;
	int64		round_ns;
	Interval	round;
	int			max_rounds;
	volatile CommitMode mode = MODE_SERVER;
	bool		chosen[RANREAD_NSYNC + 1] = {0};
	Scratch		sc;			/* its address is taken: it lives in memory */
	int64		commit_test;
	MethodRounds *mr;
	volatile int k = 0;

	/* every argument is checked, and the place chosen, before any write */
	ranread_refuse_on_standby(fn);
	params_owner(fn, NULL);
	params_require(PG_ARGISNULL(1), "duration");
	duration = *PG_GETARG_INTERVAL_P(1);
	duration_ns = params_interval(&duration, "duration", false);
	if (duration_ns < 100 * 1000000 || duration_ns > (int64) 600 * 1000000000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("duration %s of %s must be from 0.1 s to 10 min",
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&duration))), fn),
				 errhint("Each test runs this long; pg_test_fsync's default is 5 s.")));
	chosen_methods(PG_ARGISNULL(2) ? NULL : PG_GETARG_ARRAYTYPE_P(2), chosen);
	params_require(PG_ARGISNULL(3), "mode");
	{
		char	   *m = text_to_cstring(PG_GETARG_TEXT_PP(3));

		if (strcmp(m, "pg_test_fsync") == 0)
			mode = MODE_PG_TEST_FSYNC;
		else if (strcmp(m, "server") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("mode of %s must be 'server' or 'pg_test_fsync', not \"%s\"", fn, params_shown(m)),
					 errhint("'server' times open_datasync and open_sync as this server opens its WAL (O_DIRECT only at wal_level minimal); 'pg_test_fsync' always with O_DIRECT, as pg_test_fsync does.")));
	}
	max_ns = 3 * duration_ns;
	if (!PG_ARGISNULL(4))
	{
		Interval   *iv = PG_GETARG_INTERVAL_P(4);

		max_ns = params_interval(iv, "max_duration", false);
		if (max_ns < duration_ns || max_ns > (int64) 3600 * 1000000000)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("max_duration %s of %s must be from duration (%s) to 1 hour",
							DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(iv))), fn,
							DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&duration)))),
					 errhint("max_duration is the most each method's one 8 kB write is timed, in rounds of duration / 5, until the methods' intervals tell; NULL is 3 x duration.")));
	}
	round_ns = duration_ns / COMMIT_MIN_ROUNDS;
	max_rounds = (int) Min((int64) COMMIT_MAX_ROUNDS, max_ns / round_ns);
	memset(&round, 0, sizeof(round));
	round.time = round_ns / 1000;
	scratch_place(&sc, tablespace);

	/* the run's id, which every test's batch row carries */
	InitMaterializedSRF(fcinfo, 0);
	commit_test = nextval_internal(get_relname_relid("ranread_commit_test_seq",
													 get_namespace_oid(ranread_schema_name_raw(), false)),
								   false);
	remove_leftovers(&sc);

	/* the one 8 kB write of each durable method that can run: in rounds */
	mr = palloc0(sizeof(MethodRounds) * lengthof(tests));
	for (int i = 0; i < lengthof(tests); i++)
	{
		const CommitTest *t = &tests[i];

		if (t->writes == 1 && t->bytes == 8192 && t->method != SYNC_NONE && method_chosen(chosen, t->method) &&
			test_unavailable(t, &sc, mode) == NULL && strcmp(t->test, "one 8 kB write") == 0)
		{
			mr[k].test = i;
			mr[k].hist = palloc(sizeof(RanreadHist));
			hist_reset(mr[k].hist);
			k++;
		}
	}

	/* from the scratch file's creation on, every way out removes it */
	PG_TRY();
	{
		bool		stopped = false;

		scratch_create(&sc);
		ereport(NOTICE,
				(errmsg("ranread commit test " INT64_FORMAT " on %s (%s): %s per test, scratch file %s",
						commit_test, sc.where, sc.fs.type,
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&duration))),
						sc.path)));
		ereport(NOTICE,
				(errmsg("ranread commit test " INT64_FORMAT " times %s; the one 8 kB write of each method runs in rounds of %s, the methods in turn, until their intervals tell or %.1f s a method",
						commit_test, mode_words(mode),
						DatumGetCString(DirectFunctionCall1(interval_out, IntervalPGetDatum(&round))),
						max_rounds * round_ns / 1e9)));

		/* rounds: each method once a round, in a rotating order */
		for (int r = 0; k > 0 && !stopped && r < max_rounds; r++)
		{
			Advice		a;

			for (int j = 0; j < k && !stopped; j++)
			{
				MethodRounds *m = &mr[(j + r) % k];
				RunContext	rc;
				BatchShared *bs;

				run_test(&tests[m->test], &sc, &round, round_ns, commit_test, mode, &rc);
				bs = rc.bs;
				m->status = ranread_status_name(bs->status);
				m->message = bs->message[0] ? pstrdup(bs->message) : NULL;
				if (bs->status == STOP_NONE)
				{
					m->ops[m->n] = bs->group_fig[0].iops;
					m->batches[m->n] = bs->p.batch;
					m->n++;
					m->seconds += bs->group_fig[0].seconds;
					m->latency = m->latency || bs->group_fig[0].latency;
					hist_merge(m->hist, stream_write_hist(bs, batch_stream(bs, 0)));
				}
				stopped = bs->status != STOP_NONE;
				dsm_detach(rc.seg);
			}
			if (r + 1 < COMMIT_MIN_ROUNDS || stopped)
				continue;
			advise(mr, k, &a);
			if (a.settled)
				break;
		}

		for (int i = 0; i < lengthof(tests); i++)
		{
			const CommitTest *t = &tests[i];
			const char *why = test_unavailable(t, &sc, mode);
			MethodRounds *m = NULL;
			RunContext	rc;
			RowFigures	f;

			if (!method_chosen(chosen, t->method))
				continue;
			for (int j = 0; j < k; j++)
				if (mr[j].test == i)
					m = &mr[j];
			if (m && m->n > 0)
			{
				rounds_figures(m, &f);
				ereport(NOTICE,
						(errmsg("ranread commit test " INT64_FORMAT ", %s (%d x %d kB), %s: %.0f ops/s%s over %d round%s, average %s (batches " INT64_FORMAT " to " INT64_FORMAT ")%s%s",
								commit_test, t->test, t->writes, t->bytes / 1024, method_name(t->method), f.ops,
								isnan(f.ops_low) ? "" : psprintf(" (95%% interval %.0f to %.0f)", f.ops_low, f.ops_high),
								m->n, m->n == 1 ? "" : "s",
								f.latency ? psprintf("%.3f ms", f.avg_ms) : "not measured",
								m->batches[0], m->batches[m->n - 1],
								strcmp(m->status, "completed") == 0 ? "" : ", then ",
								strcmp(m->status, "completed") == 0 ? "" : m->status)));
				put_row(rsinfo, commit_test, t, mode, &f, m->status, m->message);
				continue;
			}
			if (why || stopped)
			{
				put_row(rsinfo, commit_test, t, mode, NULL,
						why ? "unavailable" : (m && m->status ? m->status : "not run"),
						why ? why : (m && m->message ? m->message : "the commit test was stopped"));
				continue;
			}
			/* one batch per test; a stop or a failure ends the run */
			run_test(t, &sc, &duration, duration_ns, commit_test, mode, &rc);
			/* one line per test: the batch's own NOTICEs are DEBUG1 (leader.c) */
			ereport(NOTICE,
					(errmsg("ranread commit test " INT64_FORMAT ", %s (%d x %d kB), %s: %.0f ops/s, average %s (batch " INT64_FORMAT ")%s%s",
							commit_test, t->test, t->writes, t->bytes / 1024, method_name(t->method),
							rc.bs->group_fig[0].iops,
							rc.bs->group_fig[0].latency ? psprintf("%.3f ms", rc.bs->group_fig[0].avg_ms) : "not measured",
							rc.bs->p.batch, rc.bs->status == STOP_NONE ? "" : ", ",
							rc.bs->status == STOP_NONE ? "" : ranread_status_name(rc.bs->status))));
			batch_figures(rc.bs, &f);
			put_row(rsinfo, commit_test, t, mode, &f, ranread_status_name(rc.bs->status),
					rc.bs->message[0] ? rc.bs->message : NULL);
			stopped = rc.bs->status == STOP_STOPPED || rc.bs->status == STOP_FAILED;
			dsm_detach(rc.seg);
		}
		recommend(mr, k, &sc, commit_test);
	}
	PG_FINALLY();
	{
		if (sc.created)
		{
			scratch_live[0] = '\0';
			if (unlink(sc.path) != 0 && errno != ENOENT)
				ereport(WARNING,
						(errcode_for_file_access(),
						 errmsg("could not remove the scratch file \"%s\": %m", sc.path)));
		}
	}
	PG_END_TRY();
	return (Datum) 0;
}
