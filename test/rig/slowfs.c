/*
 * slowfs.c - a FUSE passthrough filesystem that emulates slow storage
 *
 * What it is for: ranread's tests need storage whose every I/O takes a known
 * time and that admits only a limited number of requests in flight, making
 * the submitter wait beyond that, as FUSE does on its own: the kernel sends
 * at most max_background asynchronous requests (12 by default) to the daemon
 * and blocks whoever submits the next one until one completes.  O_DIRECT
 * reads and writes, psync and io_uring alike, are such requests.  With a
 * 2 ms delay per read (2.1 ms with FUSE's round trip), 16 streams of QD1
 * reads then get about 12 / 2.1 ms = 5,600 IOPS and wait about 16 / 5,600 s
 * = 2.85 ms each, the set-up in which ranread's io_uring engine was seen to
 * leave part of that wait out of its latency (README.md: measurements).
 *
 * Usage:
 *   slowfs BACKING_DIR MOUNTPOINT [-f] [-o OPTIONS]
 * Options of its own (microseconds, counts):
 *   read_delay_us=N         each READ takes at least N us        (default 0)
 *   write_delay_us=N        each WRITE takes at least N us       (default 0)
 *   read_tail_ppm=N         a tail: that many reads in a million, drawn at
 *   read_tail_us=N          random, take read_tail_us instead of
 *                           read_delay_us (default 0: none)
 *   fsync_delay_us=N        each FSYNC for fsync() (and O_SYNC writes, whose
 *                           flush the kernel sends as one) takes at least N us
 *   fdatasync_delay_us=N    each FSYNC for fdatasync() (and O_DSYNC writes)
 *                           takes at least N us                  (default 0)
 *   max_background=N        the connection's limit of background requests
 *                           (default: the kernel's, 12)
 *   congestion_threshold=N  the connection's congestion threshold
 *                           (default: the kernel's, 3/4 of max_background)
 *   cache=none|honest|lying a volatile write cache in the daemon's memory
 *                           (default none: writes go to the backing file)
 *   cache_mb=N              the cache is written back whole when it holds
 *                           more than N MiB, as a full drive cache would
 *                           (default 1024)
 * and every libfuse option; tests mount with allow_other,default_permissions.
 *
 * The write cache: with cache=honest or cache=lying every WRITE lands in the
 * cache (a list of the writes per file, read back over the backing file, so
 * a reader sees what was written); a write beyond the end extends the
 * backing file at once (metadata, as a journal would keep it), with zeros.
 * A flush is FSYNC (fsync and fdatasync) or a WRITE the kernel marks
 * O_DSYNC or O_SYNC (a file opened so, or pwritev2 with RWF_DSYNC: libfuse
 * passes the write's flags in fuse_file_info.flags).  An honest cache writes
 * the file's cached writes to the backing file on a flush and then answers;
 * a lying one answers at once and keeps them, marked acknowledged.
 * TRUNCATE and FALLOCATE write the file's cache through first, in both
 * modes.  The virtual file /.slowfs-control (write-only, not listed) takes
 * one command per write:
 *   honest | lying  switch the cache's mode (writes cached so far stay)
 *   cut             a power cut: drop the whole cache, writing nothing
 *   tear            a power cut during a write: the newest cached write's
 *                   first half (512-byte sectors) reaches the backing file,
 *                   the rest of the cache is dropped
 *   writeback       write the whole cache through (as a drive does at last)
 *   read_delay_us=N, write_delay_us=N, read_tail_ppm=N, read_tail_us=N,
 *   fsync_delay_us=N, fdatasync_delay_us=N  change a delay or the tail
 *                   while mounted (the requests that arrive from then on
 *                   take it)
 *   reset_stats     count reads and writes from zero, and the most in
 *                   flight from the requests in flight now
 * The stats file adds what the cache did: mode, cached_writes,
 * cached_acked (acknowledged by a lying flush but still only cached),
 * flushes, dsync_writes, cuts, dropped_writes and dropped_acked (summed over
 * the cuts: the acknowledged writes a power cut took), torn.
 * The daemon runs up to 256 threads (-o max_threads=N to change), so that
 * the daemon is never what limits the requests in flight.
 *
 * Every operation goes to the same path under BACKING_DIR.  A delayed
 * request does its pread/pwrite at once and then sleeps until arrival + delay,
 * so the daemon answers after max(delay, real time).  O_DIRECT is dropped on
 * the backing files: the emulated device is the delay, the backing store
 * may be the page cache.  Files, directories, nodes and symlinks made
 * through the mount belong to the uid/gid of the calling process.
 *
 * The virtual file /.slowfs-stats (not listed, never cached) reads as
 *   reads N / writes N / in_flight N / max_in_flight N (and the cache's lines)
 * counted in the daemon: READ and WRITE requests served, those being served
 * now, and the most ever served at once; then tail_reads (the reads that
 * took read_tail_us), fsyncs and fdatasyncs (FSYNC requests of each kind).
 *
 * Build: gcc -Wall -Wextra -O2 slowfs.c $(pkg-config --cflags --libs fuse3)
 */
#define FUSE_USE_VERSION 312
#define _GNU_SOURCE

#include <fuse.h>
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define STATS_PATH "/.slowfs-stats"
#define STATS_FH ((uint64_t) -1)
#define CONTROL_PATH "/.slowfs-control"
#define CONTROL_FH ((uint64_t) -2)

enum cache_mode
{
	CACHE_NONE, CACHE_HONEST, CACHE_LYING
};
static const char *const cache_mode_names[] = {"none", "honest", "lying"};

static struct options
{
	unsigned	read_delay_us;
	unsigned	write_delay_us;
	unsigned	read_tail_ppm;
	unsigned	read_tail_us;
	unsigned	fsync_delay_us;
	unsigned	fdatasync_delay_us;
	int			max_background;		/* -1: the kernel's default */
	int			congestion_threshold;	/* -1: the kernel's default */
	const char *backing;
	char	   *cache;			/* none, honest, lying */
	unsigned	cache_mb;
} opt = {0, 0, 0, 0, 0, 0, -1, -1, NULL, NULL, 1024};

#define OPT(t, f) {t, offsetof(struct options, f), 0}
static const struct fuse_opt option_spec[] = {
	OPT("read_delay_us=%u", read_delay_us),
	OPT("write_delay_us=%u", write_delay_us),
	OPT("read_tail_ppm=%u", read_tail_ppm),
	OPT("read_tail_us=%u", read_tail_us),
	OPT("fsync_delay_us=%u", fsync_delay_us),
	OPT("fdatasync_delay_us=%u", fdatasync_delay_us),
	OPT("max_background=%d", max_background),
	OPT("congestion_threshold=%d", congestion_threshold),
	OPT("cache=%s", cache),
	OPT("cache_mb=%u", cache_mb),
	FUSE_OPT_END
};

static int	base_fd = -1;		/* the backing directory */
static atomic_long n_reads, n_writes, in_flight, max_in_flight;
static atomic_long n_tail_reads, n_fsyncs, n_fdatasyncs;

/*
 * The delay of one READ: read_tail_us for read_tail_ppm reads in a million,
 * each drawn on its own (a thread's xorshift64* generator, seeded from the
 * clock and the thread), read_delay_us for the rest
 */
static unsigned
read_delay(void)
{
	static __thread uint64_t x;
	unsigned	ppm = __atomic_load_n(&opt.read_tail_ppm, __ATOMIC_RELAXED);

	if (ppm == 0)
		return __atomic_load_n(&opt.read_delay_us, __ATOMIC_RELAXED);
	if (x == 0)
	{
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		x = ((uint64_t) t.tv_nsec << 20) ^ (uint64_t) t.tv_sec ^ ((uint64_t) pthread_self() * 0x9E3779B97F4A7C15ull);
		if (x == 0)
			x = 1;
	}
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	if ((x * 0x2545F4914F6CDD1Dull) % 1000000 < ppm)
	{
		atomic_fetch_add(&n_tail_reads, 1);
		return __atomic_load_n(&opt.read_tail_us, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&opt.read_delay_us, __ATOMIC_RELAXED);
}

/* "/a/b" -> "a/b" relative to base_fd; "/" -> "." */
static const char *
rel(const char *path)
{
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static int
is_stats(const char *path)
{
	return path && strcmp(path, STATS_PATH) == 0;
}

static int
is_control(const char *path)
{
	return path && strcmp(path, CONTROL_PATH) == 0;
}

/* Give what the caller made to the caller (the daemon runs as root) */
static int
own(const char *path)
{
	struct fuse_context *ctx = fuse_get_context();

	if (fchownat(base_fd, rel(path), ctx->uid, ctx->gid, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return 0;
}

/* Start of a delayed request: count it, and return when it may answer */
static struct timespec
delay_start(unsigned delay_us, atomic_long *counter)
{
	struct timespec t;
	long		now = atomic_fetch_add(&in_flight, 1) + 1;
	long		max = atomic_load(&max_in_flight);

	while (now > max && !atomic_compare_exchange_weak(&max_in_flight, &max, now))
		;
	atomic_fetch_add(counter, 1);
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += delay_us / 1000000;
	t.tv_nsec += (long) (delay_us % 1000000) * 1000;
	if (t.tv_nsec >= 1000000000)
	{
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

/* End of a delayed request: sleep until its deadline */
static void
delay_end(const struct timespec *deadline)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL) == EINTR)
		;
	atomic_fetch_sub(&in_flight, 1);
}

/*
 * The volatile write cache.  One cfile per backing inode holds the writes
 * not yet written through, oldest first, and a descriptor of its own (the
 * caller's may be closed before a flush or a write-back).  One mutex guards
 * it all: the rig emulates a device, not a fast one.
 */
typedef struct centry
{
	struct centry *next;
	off_t		off;
	size_t		len;
	bool		acked;			/* a lying flush answered for it */
	long		seq;			/* order of arrival, for "tear" */
	char		data[];
} centry;

typedef struct cfile
{
	struct cfile *next;
	dev_t		dev;
	ino_t		ino;
	int			fd;
	centry	   *head,
			   *tail;
} cfile;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static enum cache_mode cache_mode = CACHE_NONE;
static cfile *cfiles;
static size_t cache_bytes;
static long cache_writes, cache_acked, cache_seq;
static long n_flushes, n_dsync_writes, n_cuts, n_dropped, n_dropped_acked, n_torn;

/* The cfile of the inode of fd, made if `make` (cache_lock held) */
static cfile *
cfile_of(int fd, bool make)
{
	struct stat st;
	cfile	   *f;

	if (fstat(fd, &st) != 0)
		return NULL;
	for (f = cfiles; f; f = f->next)
		if (f->dev == st.st_dev && f->ino == st.st_ino)
			return f;
	if (!make)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return NULL;
	f->fd = dup(fd);
	if (f->fd < 0)
	{
		free(f);
		return NULL;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->next = cfiles;
	cfiles = f;
	return f;
}

/* Forget f's writes; write them through first if `write`.  0 or -errno */
static int
cfile_empty(cfile *f, bool write)
{
	int			rc = 0;
	centry	   *e,
			   *next;

	for (e = f->head; e; e = next)
	{
		next = e->next;
		if (write && rc == 0 && pwrite(f->fd, e->data, e->len, e->off) != (ssize_t) e->len)
			rc = errno ? -errno : -EIO;
		cache_bytes -= e->len;
		cache_writes--;
		if (e->acked)
			cache_acked--;
		free(e);
	}
	f->head = f->tail = NULL;
	return rc;
}

/* Drop f from the list and free it (cache_lock held) */
static void
cfile_free(cfile *f)
{
	cfile	  **p;

	for (p = &cfiles; *p; p = &(*p)->next)
		if (*p == f)
		{
			*p = f->next;
			break;
		}
	close(f->fd);
	free(f);
}

/* Write everything through (cache_lock held) */
static int
cache_writeback(void)
{
	int			rc = 0;

	while (cfiles)
	{
		int			r = cfile_empty(cfiles, true);

		if (rc == 0)
			rc = r;
		cfile_free(cfiles);
	}
	return rc;
}

/* A power cut: drop everything; `tear`: the newest write half-lands first */
static void
cache_cut(bool tear)
{
	centry	   *newest = NULL;
	cfile	   *newest_f = NULL;

	for (cfile *f = cfiles; f; f = f->next)
		for (centry *e = f->head; e; e = e->next)
			if (newest == NULL || e->seq > newest->seq)
			{
				newest = e;
				newest_f = f;
			}
	if (tear && newest && newest->len >= 1024)
	{
		size_t		half = (newest->len / 2) & ~(size_t) 511;

		if (pwrite(newest_f->fd, newest->data, half, newest->off) == (ssize_t) half)
			n_torn++;
	}
	n_cuts++;
	n_dropped += cache_writes;
	n_dropped_acked += cache_acked;
	while (cfiles)
	{
		cfile_empty(cfiles, false);
		cfile_free(cfiles);
	}
}

/* A flush of fd's file: honest writes it through, lying only answers */
static int
cache_flush(int fd)
{
	cfile	   *f;
	int			rc = 0;

	pthread_mutex_lock(&cache_lock);
	n_flushes++;
	f = cfile_of(fd, false);
	if (f && cache_mode == CACHE_LYING)
	{
		for (centry *e = f->head; e; e = e->next)
			if (!e->acked)
			{
				e->acked = true;
				cache_acked++;
			}
	}
	else if (f)
	{
		rc = cfile_empty(f, true);
		cfile_free(f);
	}
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

/* Before a truncate or fallocate of fd's file: its cache goes through */
static int
cache_through(int fd)
{
	cfile	   *f;
	int			rc = 0;

	if (cache_mode == CACHE_NONE && cfiles == NULL)
		return 0;
	pthread_mutex_lock(&cache_lock);
	f = cfile_of(fd, false);
	if (f)
	{
		rc = cfile_empty(f, true);
		cfile_free(f);
	}
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

/* A WRITE into the cache; returns the bytes taken or -errno */
static ssize_t
cache_write(int fd, const char *buf, size_t size, off_t off, int flags)
{
	cfile	   *f;
	centry	   *e;
	struct stat st;
	ssize_t		rc = (ssize_t) size;

	pthread_mutex_lock(&cache_lock);
	f = cfile_of(fd, true);
	e = malloc(sizeof(*e) + size);
	if (f == NULL || e == NULL)
	{
		free(e);
		pthread_mutex_unlock(&cache_lock);
		return -ENOMEM;
	}
	/* the size is metadata: it reaches the backing file at once */
	if (fstat(f->fd, &st) == 0 && st.st_size < off + (off_t) size &&
		ftruncate(f->fd, off + (off_t) size) != 0)
	{
		free(e);
		rc = -errno;
		pthread_mutex_unlock(&cache_lock);
		return rc;
	}
	memcpy(e->data, buf, size);
	e->off = off;
	e->len = size;
	e->acked = false;
	e->seq = ++cache_seq;
	e->next = NULL;
	if (f->tail)
		f->tail->next = e;
	else
		f->head = e;
	f->tail = e;
	cache_bytes += size;
	cache_writes++;
	if (cache_bytes > (size_t) opt.cache_mb << 20)
		rc = cache_writeback() ?: rc;
	pthread_mutex_unlock(&cache_lock);
	if (flags & O_DSYNC)		/* O_SYNC includes O_DSYNC's bit */
	{
		int			r;

		pthread_mutex_lock(&cache_lock);
		n_dsync_writes++;
		n_flushes--;			/* cache_flush counts it again */
		pthread_mutex_unlock(&cache_lock);
		r = cache_flush(fd);
		if (r < 0)
			rc = r;
	}
	return rc;
}

/* A READ sees the cached writes over the backing file's bytes */
static void
cache_overlay(int fd, char *buf, size_t n, off_t off)
{
	cfile	   *f;

	pthread_mutex_lock(&cache_lock);
	f = cfile_of(fd, false);
	if (f)
		for (centry *e = f->head; e; e = e->next)
		{
			off_t		lo = e->off > off ? e->off : off;
			off_t		hi = e->off + (off_t) e->len < off + (off_t) n ?
				e->off + (off_t) e->len : off + (off_t) n;

			if (lo < hi)
				memcpy(buf + (lo - off), e->data + (lo - e->off), (size_t) (hi - lo));
		}
	pthread_mutex_unlock(&cache_lock);
}

/* A command written to /.slowfs-control */
static int
control(const char *buf, size_t size)
{
	char		cmd[32];
	int			rc = 0;

	while (size > 0 && (buf[size - 1] == '\n' || buf[size - 1] == ' '))
		size--;
	if (size == 0 || size >= sizeof(cmd))
		return -EINVAL;
	memcpy(cmd, buf, size);
	cmd[size] = '\0';
	{
		unsigned	us;
		char		extra;

		/* a device that gets slower or faster while it is mounted */
		if (sscanf(cmd, "read_delay_us=%u%c", &us, &extra) == 1)
		{
			__atomic_store_n(&opt.read_delay_us, us, __ATOMIC_RELAXED);
			return 0;
		}
		if (sscanf(cmd, "write_delay_us=%u%c", &us, &extra) == 1)
		{
			__atomic_store_n(&opt.write_delay_us, us, __ATOMIC_RELAXED);
			return 0;
		}
		if (sscanf(cmd, "read_tail_ppm=%u%c", &us, &extra) == 1 && us <= 1000000)
		{
			__atomic_store_n(&opt.read_tail_ppm, us, __ATOMIC_RELAXED);
			return 0;
		}
		if (sscanf(cmd, "read_tail_us=%u%c", &us, &extra) == 1)
		{
			__atomic_store_n(&opt.read_tail_us, us, __ATOMIC_RELAXED);
			return 0;
		}
		if (sscanf(cmd, "fsync_delay_us=%u%c", &us, &extra) == 1)
		{
			__atomic_store_n(&opt.fsync_delay_us, us, __ATOMIC_RELAXED);
			return 0;
		}
		if (sscanf(cmd, "fdatasync_delay_us=%u%c", &us, &extra) == 1)
		{
			__atomic_store_n(&opt.fdatasync_delay_us, us, __ATOMIC_RELAXED);
			return 0;
		}
	}
	/* counts from now on: reads, writes, and the most in flight from those now */
	if (strcmp(cmd, "reset_stats") == 0)
	{
		atomic_store(&n_reads, 0);
		atomic_store(&n_writes, 0);
		atomic_store(&max_in_flight, atomic_load(&in_flight));
		return 0;
	}
	pthread_mutex_lock(&cache_lock);
	if (strcmp(cmd, "honest") == 0)
		cache_mode = CACHE_HONEST;
	else if (strcmp(cmd, "lying") == 0)
		cache_mode = CACHE_LYING;
	else if (strcmp(cmd, "cut") == 0)
		cache_cut(false);
	else if (strcmp(cmd, "tear") == 0)
		cache_cut(true);
	else if (strcmp(cmd, "writeback") == 0)
		rc = cache_writeback();
	else
		rc = -EINVAL;
	pthread_mutex_unlock(&cache_lock);
	return rc;
}

static void *
sf_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (opt.max_background >= 0)
		conn->max_background = (unsigned) opt.max_background;
	if (opt.congestion_threshold >= 0)
		conn->congestion_threshold = (unsigned) opt.congestion_threshold;
	/*
	 * No attribute or name caching, so that hard links and every change show
	 * at once; then no attribute revalidation before each read either (only
	 * this mount changes the backing files), or every read would cost a
	 * GETATTR round trip more.
	 */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->use_ino = 1;
	cfg->nullpath_ok = 1;
	cfg->hard_remove = 1;		/* no .fuse_hidden files left in directories */
	return NULL;
}

static int
sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	if (is_stats(path) || (fi && fi->fh == STATS_FH))
	{
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		return 0;
	}
	if (is_control(path) || (fi && fi->fh == CONTROL_FH))
	{
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFREG | 0200;
		st->st_nlink = 1;
		return 0;
	}
	if (fi)
		return fstat((int) fi->fh, st) == 0 ? 0 : -errno;
	return fstatat(base_fd, rel(path), st, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

static int
sf_readlink(const char *path, char *buf, size_t size)
{
	ssize_t		n = readlinkat(base_fd, rel(path), buf, size - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int
sf_mknod(const char *path, mode_t mode, dev_t rdev)
{
	if (mknodat(base_fd, rel(path), mode, rdev) != 0)
		return -errno;
	return own(path);
}

static int
sf_mkdir(const char *path, mode_t mode)
{
	if (mkdirat(base_fd, rel(path), mode) != 0)
		return -errno;
	return own(path);
}

static int
sf_unlink(const char *path)
{
	return unlinkat(base_fd, rel(path), 0) == 0 ? 0 : -errno;
}

static int
sf_rmdir(const char *path)
{
	return unlinkat(base_fd, rel(path), AT_REMOVEDIR) == 0 ? 0 : -errno;
}

static int
sf_symlink(const char *target, const char *path)
{
	if (symlinkat(target, base_fd, rel(path)) != 0)
		return -errno;
	return own(path);
}

static int
sf_rename(const char *from, const char *to, unsigned int flags)
{
	return renameat2(base_fd, rel(from), base_fd, rel(to), flags) == 0 ? 0 : -errno;
}

static int
sf_link(const char *from, const char *to)
{
	return linkat(base_fd, rel(from), base_fd, rel(to), 0) == 0 ? 0 : -errno;
}

static int
sf_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	if (fi)
		return fchmod((int) fi->fh, mode) == 0 ? 0 : -errno;
	return fchmodat(base_fd, rel(path), mode, 0) == 0 ? 0 : -errno;
}

static int
sf_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	if (fi)
		return fchown((int) fi->fh, uid, gid) == 0 ? 0 : -errno;
	return fchownat(base_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

static int
sf_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	int			fd,
				rc;

	if (is_control(path) || (fi && fi->fh == CONTROL_FH))
		return 0;				/* echo cut > .slowfs-control truncates first */
	if (fi)
		return (rc = cache_through((int) fi->fh)) != 0 ? rc :
			ftruncate((int) fi->fh, size) == 0 ? 0 : -errno;
	fd = openat(base_fd, rel(path), O_WRONLY);
	if (fd < 0)
		return -errno;
	rc = cache_through(fd);
	if (rc == 0)
		rc = ftruncate(fd, size) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static int
sf_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	if (fi)
		return futimens((int) fi->fh, tv) == 0 ? 0 : -errno;
	return utimensat(base_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : -errno;
}

static int
sf_open(const char *path, struct fuse_file_info *fi)
{
	int			fd;

	if (is_stats(path))
	{
		if ((fi->flags & O_ACCMODE) != O_RDONLY)
			return -EACCES;
		fi->fh = STATS_FH;
		fi->direct_io = 1;		/* fresh figures on every read */
		return 0;
	}
	if (is_control(path))
	{
		if ((fi->flags & O_ACCMODE) != O_WRONLY)
			return -EACCES;
		fi->fh = CONTROL_FH;
		fi->direct_io = 1;
		return 0;
	}
	fd = openat(base_fd, rel(path), fi->flags & ~O_DIRECT);
	if (fd < 0)
		return -errno;
	fi->fh = (uint64_t) fd;
	return 0;
}

static int
sf_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int			fd = openat(base_fd, rel(path), (fi->flags & ~O_DIRECT) | O_CREAT, mode);
	int			rc;

	if (fd < 0)
		return -errno;
	rc = own(path);
	if (rc != 0)
	{
		close(fd);
		return rc;
	}
	fi->fh = (uint64_t) fd;
	return 0;
}

static int
sf_read_stats(char *buf, size_t size, off_t off)
{
	char		text[1024];
	int			len;

	pthread_mutex_lock(&cache_lock);
	len = snprintf(text, sizeof(text),
				   "reads %ld\nwrites %ld\nin_flight %ld\nmax_in_flight %ld\n"
				   "mode %s\ncached_writes %ld\ncached_bytes %zu\ncached_acked %ld\n"
				   "flushes %ld\ndsync_writes %ld\ncuts %ld\ndropped_writes %ld\n"
				   "dropped_acked %ld\ntorn %ld\ntail_reads %ld\nfsyncs %ld\nfdatasyncs %ld\n",
				   atomic_load(&n_reads), atomic_load(&n_writes),
				   atomic_load(&in_flight), atomic_load(&max_in_flight),
				   cache_mode_names[cache_mode], cache_writes, cache_bytes, cache_acked,
				   n_flushes, n_dsync_writes, n_cuts, n_dropped, n_dropped_acked, n_torn,
				   atomic_load(&n_tail_reads), atomic_load(&n_fsyncs), atomic_load(&n_fdatasyncs));
	pthread_mutex_unlock(&cache_lock);

	if (off >= len)
		return 0;
	if ((size_t) (len - off) < size)
		size = (size_t) (len - off);
	memcpy(buf, text + off, size);
	return (int) size;
}

static int
sf_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct timespec deadline;
	ssize_t		n;

	(void) path;
	if (fi->fh == STATS_FH)
		return sf_read_stats(buf, size, off);
	deadline = delay_start(read_delay(), &n_reads);
	n = pread((int) fi->fh, buf, size, off);
	if (n < 0)
		n = -errno;
	else if (cfiles != NULL || cache_mode != CACHE_NONE)
		cache_overlay((int) fi->fh, buf, (size_t) n, off);
	delay_end(&deadline);
	return (int) n;
}

static int
sf_write(const char *path, const char *buf, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	struct timespec deadline;
	ssize_t		n;

	(void) path;
	if (fi->fh == CONTROL_FH)
	{
		int			rc = control(buf, size);

		return rc < 0 ? rc : (int) size;
	}
	deadline = delay_start(__atomic_load_n(&opt.write_delay_us, __ATOMIC_RELAXED), &n_writes);
	if (cache_mode != CACHE_NONE)
		n = cache_write((int) fi->fh, buf, size, off, fi->flags);
	else if ((n = pwrite((int) fi->fh, buf, size, off)) < 0)
		n = -errno;
	delay_end(&deadline);
	return (int) n;
}

static int
sf_statfs(const char *path, struct statvfs *st)
{
	(void) path;
	return fstatvfs(base_fd, st) == 0 ? 0 : -errno;
}

static int
sf_release(const char *path, struct fuse_file_info *fi)
{
	(void) path;
	if (fi->fh != STATS_FH && fi->fh != CONTROL_FH)
		close((int) fi->fh);
	return 0;
}

static int
sf_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct timespec deadline;
	int			rc = 0;

	(void) path;
	if (fi->fh == STATS_FH || fi->fh == CONTROL_FH)
		return 0;
	/* fsync's delay and fdatasync's: the kernel says which (FUSE_FSYNC_FDATASYNC) */
	deadline = delay_start(__atomic_load_n(datasync ? &opt.fdatasync_delay_us : &opt.fsync_delay_us,
										   __ATOMIC_RELAXED),
						   datasync ? &n_fdatasyncs : &n_fsyncs);
	if (cache_mode != CACHE_NONE || cfiles != NULL)
		rc = cache_flush((int) fi->fh);
	if (rc == 0 && cache_mode != CACHE_LYING &&
		(datasync ? fdatasync((int) fi->fh) : fsync((int) fi->fh)) != 0)
		rc = -errno;
	delay_end(&deadline);
	return rc;
}

static int
sf_opendir(const char *path, struct fuse_file_info *fi)
{
	int			fd = openat(base_fd, rel(path), O_RDONLY | O_DIRECTORY);
	DIR		   *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (d == NULL)
	{
		int			e = errno;

		close(fd);
		return -e;
	}
	fi->fh = (uint64_t) (uintptr_t) d;
	return 0;
}

static int
sf_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		   struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	DIR		   *d = (DIR *) (uintptr_t) fi->fh;
	struct dirent *e;

	(void) path;
	(void) off;
	(void) flags;
	/* the whole listing at offset 0: libfuse keeps it for later offsets */
	rewinddir(d);
	while ((e = readdir(d)) != NULL)
	{
		struct stat st;

		memset(&st, 0, sizeof(st));
		st.st_ino = e->d_ino;
		st.st_mode = (mode_t) DTTOIF(e->d_type);
		if (filler(buf, e->d_name, &st, 0, 0))
			break;
	}
	return 0;
}

static int
sf_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void) path;
	closedir((DIR *) (uintptr_t) fi->fh);
	return 0;
}

static int
sf_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
	int			fd = dirfd((DIR *) (uintptr_t) fi->fh);

	(void) path;
	return (datasync ? fdatasync(fd) : fsync(fd)) == 0 ? 0 : -errno;
}

static int
sf_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
	int			rc = cache_through((int) fi->fh);

	(void) path;
	if (rc != 0)
		return rc;
	return fallocate((int) fi->fh, mode, off, len) == 0 ? 0 : -errno;
}

static const struct fuse_operations sf_ops = {
	.init = sf_init,
	.getattr = sf_getattr,
	.readlink = sf_readlink,
	.mknod = sf_mknod,
	.mkdir = sf_mkdir,
	.unlink = sf_unlink,
	.rmdir = sf_rmdir,
	.symlink = sf_symlink,
	.rename = sf_rename,
	.link = sf_link,
	.chmod = sf_chmod,
	.chown = sf_chown,
	.truncate = sf_truncate,
	.utimens = sf_utimens,
	.open = sf_open,
	.create = sf_create,
	.read = sf_read,
	.write = sf_write,
	.statfs = sf_statfs,
	.release = sf_release,
	.fsync = sf_fsync,
	.opendir = sf_opendir,
	.readdir = sf_readdir,
	.releasedir = sf_releasedir,
	.fsyncdir = sf_fsyncdir,
	.fallocate = sf_fallocate,
};

/* The first non-option argument is the backing directory */
static int
take_backing(void *data, const char *arg, int key, struct fuse_args *args)
{
	(void) data;
	(void) args;
	if (key == FUSE_OPT_KEY_NONOPT && opt.backing == NULL)
	{
		opt.backing = strdup(arg);
		return 0;
	}
	return 1;
}

int
main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_cmdline_opts co;
	struct fuse_loop_config *loop;
	struct fuse *fuse;
	int			rc = 1;

	/* 256 daemon threads unless -o max_threads= says otherwise (later wins) */
	fuse_opt_add_arg(&args, argv[0]);
	fuse_opt_add_arg(&args, "-omax_threads=256");
	for (int i = 1; i < argc; i++)
		fuse_opt_add_arg(&args, argv[i]);
	if (fuse_opt_parse(&args, &opt, option_spec, take_backing) != 0 ||
		fuse_parse_cmdline(&args, &co) != 0)
		return 1;
	if (co.show_help || opt.backing == NULL || co.mountpoint == NULL)
	{
		fprintf(stderr, "usage: %s BACKING_DIR MOUNTPOINT [-f] [-o read_delay_us=N,write_delay_us=N,"
				"max_background=N,congestion_threshold=N,cache=none|honest|lying,cache_mb=N,...]\n", argv[0]);
		if (co.show_help)
			fuse_cmdline_help();
		return co.show_help ? 0 : 1;
	}
	for (int m = 0; opt.cache && m <= CACHE_LYING; m++)
		if (strcmp(opt.cache, cache_mode_names[m]) == 0)
		{
			cache_mode = (enum cache_mode) m;
			free(opt.cache);
			opt.cache = NULL;
			break;
		}
	if (opt.cache)
	{
		fprintf(stderr, "slowfs: cache=%s: the cache is none, honest or lying\n", opt.cache);
		return 1;
	}
	base_fd = open(opt.backing, O_RDONLY | O_DIRECTORY);
	if (base_fd < 0)
	{
		fprintf(stderr, "slowfs: cannot open backing directory %s: %s\n",
				opt.backing, strerror(errno));
		return 1;
	}
	/* sleep to the microsecond, not the default 50 us late (threads inherit) */
	prctl(PR_SET_TIMERSLACK, 1UL);
	umask(0);					/* the kernel already applied the caller's umask */

	/*
	 * fuse_main() would do the same, but libfuse 3.14's drops max_threads
	 * (fixed in 3.14.1): the daemon's threads must never be the limit.
	 */
	fuse = fuse_new(&args, &sf_ops, sizeof(sf_ops), NULL);
	if (fuse == NULL)
		goto out;
	if (fuse_mount(fuse, co.mountpoint) != 0)
		goto out_destroy;
	if (fuse_daemonize(co.foreground) != 0 ||
		fuse_set_signal_handlers(fuse_get_session(fuse)) != 0)
		goto out_unmount;
	loop = fuse_loop_cfg_create();
	fuse_loop_cfg_set_clone_fd(loop, (unsigned) co.clone_fd);
	fuse_loop_cfg_set_max_threads(loop, co.max_threads);
	rc = co.singlethread ? fuse_loop(fuse) : fuse_loop_mt(fuse, loop);
	fuse_loop_cfg_destroy(loop);
	fuse_remove_signal_handlers(fuse_get_session(fuse));
out_unmount:
	fuse_unmount(fuse);
out_destroy:
	fuse_destroy(fuse);
out:
	free(co.mountpoint);
	fuse_opt_free_args(&args);
	return rc ? 1 : 0;
}
