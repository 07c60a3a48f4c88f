/*
 * engine.h
 *		The I/O engines behind one interface: io_uring (engine_uring.c), one
 *		ring per worker for all its streams, synchronous pread/pwrite
 *		(engine_sync.c), one stream per worker and one I/O at a time, and the
 *		buffer manager (engine_bufmgr.c), the server path's: one stream per
 *		worker reading the target's blocks through shared buffers.
 *
 * An engine is a table of what it can do and the operations that do it.
 * The leader chooses one per batch (leader.c: ranread.engine, what the
 * server allows, then the streams as divided: workers that each keep a
 * single I/O in flight run the synchronous engine, a plain syscall costing
 * less than a ring), checks the batch against its limits, and records it in
 * BatchParams.engine; the history and the leader's NOTICE name it by name.
 * Each worker then calls prepare, run and release of that engine, and no
 * code asks again which one it is.  Setup's fill (fill.c) uses the same
 * operations in the calling backend to write a new target: a sequential
 * stream of writes only, whose pages io_prepare makes.
 *
 * An engine includes io.h and nothing above it: it learns what to do from
 * the Worker (streams, slots, files), does every I/O through the steps of
 * io.h (io_may_issue, io_prepare, io_stamp, io_complete), and tells its
 * owner how it went through them (io_report, io_error and friends).
 */
#ifndef RANREAD_ENGINE_H
#define RANREAD_ENGINE_H

#include "batch.h"

struct Worker;

typedef struct EngineOps
{
	/* the name the history records (batches.engine) and the NOTICE says */
	const char *name;

	/* limits, which the leader checks before any worker starts */
	int			max_queue_depth;	/* I/Os in flight per stream */
	bool		one_stream_per_worker;

	/* Can this server run it?  If not, why gets the reason. */
	bool		(*available) (char *why, int whylen);

	/*
	 * Once the files are open and the slots have their buffers, make the
	 * engine's state: whatever may fail or take time, before the worker
	 * counts itself ready.  May ereport.  Optional.
	 */
	void		(*prepare) (struct Worker *w);

	/*
	 * The hot loop: drive every slot until its stream has no I/O left or
	 * io_stopping().  Never ereports, and allocates only to say why it
	 * failed (io_error(), io_engine_error(), which stop it); calls
	 * io_report() once a second and at the end (the owner's progress,
	 * which may send a NOTICE).  Returns with every slot idle (unless the
	 * device hangs, which is an engine error); called again, it goes on
	 * where it stopped.
	 */
	void		(*run) (struct Worker *w);

	/*
	 * Give back what prepare made.  Safe after an ERROR thrown out of run
	 * (it waits a while for I/O still in flight).  Optional.
	 */
	void		(*release) (struct Worker *w);
} EngineOps;

extern const EngineOps engine_uring_ops;
extern const EngineOps engine_sync_ops;
extern const EngineOps engine_bufmgr_ops;

/* The engine a batch records (never ENGINE_AUTO) */
static inline const EngineOps *
engine_ops(RanreadEngine engine)
{
	Assert(engine == ENGINE_URING || engine == ENGINE_SYNC || engine == ENGINE_BUFMGR);
	return engine == ENGINE_SYNC ? &engine_sync_ops :
		engine == ENGINE_BUFMGR ? &engine_bufmgr_ops : &engine_uring_ops;
}

/*
 * The engine of one worker: the batch's, but a worker whose stream reads
 * through shared buffers (the server path: the leader gives such a worker
 * that one stream) runs the buffer manager's, in a batch that mixes paths
 * too.
 */
static inline const EngineOps *
engine_of_worker(const BatchParams *p, int first_stream, int nstreams)
{
	if (nstreams > 0 && p->groups[batch_group_of(p, first_stream)].path == PATH_SERVER)
		return &engine_bufmgr_ops;
	return engine_ops(p->engine);
}

#endif							/* RANREAD_ENGINE_H */
