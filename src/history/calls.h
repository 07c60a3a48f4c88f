/*
 * calls.h
 *		The sweeps, studies, latency-target searches and fleets that run now
 *		(calls.c): registered by the call itself, for ranread_reset, the
 *		views and ranread_run_step's checks.
 */
#ifndef RANREAD_CALLS_H
#define RANREAD_CALLS_H

#include "postgres.h"

#include "utils/timestamp.h"

typedef enum RanreadCallKind
{
	CALL_SWEEP = 0,
	CALL_STUDY,
	CALL_LATENCY_TARGET,
	CALL_FLEET
} RanreadCallKind;

#define RANREAD_NCALL_KINDS	(CALL_FLEET + 1)

/* calls registered at once in the cluster, at most */
#define RANREAD_MAX_CALLS	256
/* of them, registered by one session at once (a fleet sweep: 1 + its steps) */
#define RANREAD_MAX_CALLS_PER_SESSION 16

typedef struct RanreadCallInfo
{
	RanreadCallKind kind;
	int64		id;
	int			pid;
	Oid			role;
	TimestampTz started_at;
	bool		ended;			/* returned; its entry stays until its transaction ends */
} RanreadCallInfo;

extern const char *ranread_call_kind_name(RanreadCallKind kind);
extern RanreadCallKind ranread_call_kind_of(const char *name);
extern bool ranread_call_mine(RanreadCallKind kind, int64 id);
extern bool ranread_call_in_progress(void);
extern int	ranread_calls_running(RanreadCallInfo *out, int max, bool mine);
extern uint64 ranread_calls_mark(void);
extern void ranread_calls_end_since(uint64 mark);

#endif							/* RANREAD_CALLS_H */
