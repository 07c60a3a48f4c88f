/*
 * placement.c
 *		Which background worker drives which process (stream) of a batch.
 *
 * A process stands for a backend or an fio job: an independent stream of
 * I/O that never waits for another's (docs/design.md, "Processes, streams,
 * workers, engines").  A worker that drives several streams reaps them
 * together, so they cannot be wholly independent: whatever holds the
 * worker up holds all of them up.  Two ways were measured (bench/streams,
 * bench/RESULTS-streams.md has the figures and commands):
 *
 *	 - A device that completes the requests it was handed together (a virtio
 *	   disk whose host answers a batch of descriptors with one interrupt)
 *	   makes the streams of one worker a convoy: they complete together, the
 *	   worker re-arms them together, the host takes them as one batch again.
 *	   8 KiB reads beside a 1 MiB scan in one worker came back with the
 *	   scan's latencies to the microsecond, and each did exactly as many I/Os
 *	   as one slot of the scan; in workers of their own, even on one CPU,
 *	   they did not.
 *	 - A device that completes in the submitter's own time (zram; FUSE,
 *	   whose submit blocks once its requests in flight are at its limit)
 *	   makes the streams of one worker wait in turn for each other's I/O.
 *
 * So: a worker drives the streams of one group only (groups never share a
 * worker, unless fewer workers started than there are groups), and by
 * default every process gets a worker of its own, as an fio job's process
 * or a backend would be; where the server has fewer free worker slots
 * (max_worker_processes) than processes, the streams of a group share its
 * workers evenly (one more in some).  The workers argument asks for fewer.
 * Each group gets at least one worker, then one at a time to the group
 * with the most streams per worker, so that no worker drives many more
 * streams than another.  Within a group the division is contiguous (the
 * WorkerSlot's range).  The NOTICE says the division, and the history keeps
 * it: each process's worker (ranread_results.worker) and each group's count
 * of workers (ranread_groups.workers).
 */
#include "postgres.h"

#include <limits.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "placement.h"

/*
 * The workers a batch asks for: one per process, or the workers argument,
 * within max_worker_processes (the launch takes what is free of them)
 */
int
placement_want(const BatchParams *p, int asked, bool one_stream_per_worker)
{
	int			want = p->processes;

	if (asked > 0 && !one_stream_per_worker)
		want = asked;
	/* a worker drives at least one stream (placement_divide) */
	return Max(1, Min(Min(want, p->processes), max_worker_processes));
}

/* Workers first .. first + nw - 1 drive streams [stream, stream + n), evenly */
static void
divide_range(BatchShared *bs, int first, int nw, int stream, int n)
{
	for (int i = 0; i < nw; i++)
	{
		WorkerSlot *w = &bs->workers[first + i];

		w->first_stream = stream + (int) ((int64) n * i / nw);
		w->nstreams = stream + (int) ((int64) n * (i + 1) / nw) - w->first_stream;
	}
}

/*
 * How many of n workers each group gets (n at least the groups, at most the
 * processes): one each, then one at a time to the group whose workers
 * drive the most streams each (the earlier group on a tie)
 */
static void
group_shares(const BatchParams *p, int n, int *share)
{
	for (int g = 0; g < p->ngroups; g++)
		share[g] = 1;
	for (int left = n - p->ngroups; left > 0; left--)
	{
		int			best = -1;

		for (int g = 0; g < p->ngroups; g++)
		{
			if (share[g] >= p->groups[g].processes)
				continue;
			if (best < 0 ||
				(int64) p->groups[g].processes * share[best] >
				(int64) p->groups[best].processes * share[g])
				best = g;
		}
		if (best < 0)
			break;
		share[best]++;
	}
}

/*
 * Divide the batch's streams among the nworkers that started: each group
 * its own workers when there are at least as many as groups, else all the
 * streams over all the workers in one contiguous division (groups then
 * share, and the NOTICE says so).  Workers beyond the processes get none
 * and run nothing (the engines and worker_prepare take a worker without
 * streams).  The one place streams are assigned, whoever made the batch.
 */
void
placement_divide(BatchShared *bs, int nworkers)
{
	BatchParams *p = &bs->p;
	int			n = Min(nworkers, p->processes);
	int			share[RANREAD_MAX_GROUPS];
	int			w = 0;

	p->nworkers = nworkers;
	if (n < p->ngroups)
	{
		divide_range(bs, 0, n, 0, p->processes);
		w = n;
	}
	else
	{
		group_shares(p, n, share);
		for (int g = 0; g < p->ngroups; g++)
		{
			divide_range(bs, w, share[g], p->groups[g].first_stream, p->groups[g].processes);
			w += share[g];
		}
	}
	for (; w < nworkers; w++)
	{
		bs->workers[w].first_stream = p->processes;
		bs->workers[w].nstreams = 0;
	}
}

/* The worker (0-based) that drives stream s; -1 if none */
int
placement_worker_of(const BatchShared *bs, int s)
{
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		const WorkerSlot *w = &bs->workers[i];

		if (s >= w->first_stream && s < w->first_stream + w->nstreams)
			return i;
	}
	return -1;
}

/* Does worker w drive some stream of group g? */
static bool
drives_group(const WorkerSlot *w, const GroupParams *g)
{
	return w->nstreams > 0 && w->first_stream < g->first_stream + g->processes &&
		g->first_stream < w->first_stream + w->nstreams;
}

/* The workers that drive some stream of group g */
int
placement_group_workers(const BatchShared *bs, int g)
{
	int			n = 0;

	for (int i = 0; i < bs->p.nworkers; i++)
		if (drives_group(&bs->workers[i], &bs->p.groups[g]))
			n++;
	return n;
}

/* Does some worker drive streams of more than one group? */
bool
placement_groups_share(const BatchShared *bs)
{
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		int			groups = 0;

		for (int g = 0; g < bs->p.ngroups; g++)
			if (drives_group(&bs->workers[i], &bs->p.groups[g]))
				groups++;
		if (groups > 1)
			return true;
	}
	return false;
}

/* The fewest and most streams of group g (all groups: g < 0) in one worker */
static void
streams_per_worker(const BatchShared *bs, int g, int *lo, int *hi)
{
	*lo = INT_MAX;
	*hi = 0;
	for (int i = 0; i < bs->p.nworkers; i++)
	{
		const WorkerSlot *w = &bs->workers[i];
		int			n = w->nstreams;

		if (g >= 0)
		{
			const GroupParams *gp = &bs->p.groups[g];

			n = Min(w->first_stream + w->nstreams, gp->first_stream + gp->processes) -
				Max(w->first_stream, gp->first_stream);
		}
		if (n <= 0)
			continue;
		*lo = Min(*lo, n);
		*hi = Max(*hi, n);
	}
	if (*hi == 0)
		*lo = 0;
}

/* ", one each", " 8 each", " 2 to 3 each" (processes per worker) */
static void
append_each(StringInfo s, int lo, int hi)
{
	if (hi <= 1)
		appendStringInfoString(s, "one process each");
	else if (lo == hi)
		appendStringInfo(s, "%d processes each", hi);
	else
		appendStringInfo(s, "%d to %d processes each", lo, hi);
}

/*
 * The division as a sentence, for the start NOTICE's detail: "Each process
 * has a worker of its own.", "The processes share the workers, 8 processes
 * each.", "Each group has workers of its own: oltp 7 (2 to 3 processes
 * each), scan 1 (one process each).", or that groups share.
 */
char *
placement_words(const BatchShared *bs)
{
	const BatchParams *p = &bs->p;
	int			lo,
				hi;
	StringInfoData s;

	initStringInfo(&s);
	streams_per_worker(bs, -1, &lo, &hi);
	if (hi <= 1)
		appendStringInfoString(&s, "Each process has a worker of its own.");
	else if (p->ngroups == 1 && !p->mix)
	{
		appendStringInfoString(&s, "The processes share the workers, ");
		append_each(&s, lo, hi);
		appendStringInfoChar(&s, '.');
	}
	else if (placement_groups_share(bs))
	{
		appendStringInfoString(&s, "The groups share workers, ");
		append_each(&s, lo, hi);
		appendStringInfoString(&s, ": a group's latency may include the waits of another's I/O.");
	}
	else
	{
		appendStringInfoString(&s, "Each group has workers of its own:");
		for (int g = 0; g < p->ngroups; g++)
		{
			streams_per_worker(bs, g, &lo, &hi);
			appendStringInfo(&s, "%s %s %d (", g ? "," : "", p->groups[g].label,
							 placement_group_workers(bs, g));
			append_each(&s, lo, hi);
			appendStringInfoChar(&s, ')');
		}
		appendStringInfoChar(&s, '.');
	}
	return s.data;
}
