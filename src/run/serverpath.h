/*
 * serverpath.h
 *		The server path (serverpath.c, engine_bufmgr.c): reading a target's
 *		blocks through PostgreSQL's buffer manager, shared buffers and the
 *		page cache, to measure what PostgreSQL itself gets from the storage
 *		(docs/design.md, "The server path").
 */
#ifndef RANREAD_SERVERPATH_H
#define RANREAD_SERVERPATH_H

#include "ranread.h"
#include "batch.h"

#include "lib/stringinfo.h"

/* A batch whose reads came from caches more than this share is flagged */
#define SERVERPATH_MOSTLY_CACHED	50.0

/* What the caches answered of a group's (or the batch's) server-path reads */
typedef struct ServerCounts
{
	bool		server;			/* some stream read on the server path */
	uint64		reads;			/* measured reads of those streams */
	uint64		shared_hits;	/* found in shared buffers */
	uint64		cache_hits;		/* else in the page cache before asked for */
	double		cache_pct;		/* both, in % of reads; NaN without reads */
} ServerCounts;

/* checks, before anything runs (workload.c, params.c) */
extern void serverpath_check_prefetch(GroupParams *g, bool given, const char *whose);
extern void serverpath_check_prefetch_default(const BatchParams *p, const char *fn);
extern void serverpath_check_batch(BatchParams *p, const char *fn);
extern void serverpath_resolve(BatchParams *p, const char *fn);

/* the leader (leader.c) */
extern void serverpath_evict(BatchParams *p);
extern void serverpath_start_notice(const BatchParams *p, int level);
extern void serverpath_report(BatchShared *bs, int level);

/* the history (history.c) */
extern int	serverpath_ring_buffers(void);
extern void serverpath_counts(BatchShared *bs, int group, ServerCounts *c);
extern const char *serverpath_path_name(const BatchParams *p, int group);
extern int	serverpath_prefetch(const BatchParams *p, int group);
extern char *serverpath_settings_json(const BatchParams *p);
extern void serverpath_notes(BatchShared *bs, StringInfo s);

#endif							/* RANREAD_SERVERPATH_H */
