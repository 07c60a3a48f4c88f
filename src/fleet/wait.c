/*
 * wait.c
 *		The fleet's waits on its connections: every one bounded by a
 *		deadline and interruptible (src/fleet/remote.h).
 *
 * One wait is the server's own WaitEventSet on the sockets of the
 * connections that wait (for a connection to come up, or an answer), the
 * latch and postmaster death, shortened by the deadline of any connection
 * still connecting (and to 10 ms while a host name is being looked up,
 * which has no socket), then CHECK_FOR_INTERRUPTS: a cancel, a
 * statement_timeout or a terminate ends any wait at once.  After it, every
 * connection makes the progress it can (progress.c).  The loops here wait
 * again until no connection waits any more or their deadline passes.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include "miscadmin.h"
#include "storage/latch.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "remote.h"

/* The wait itself: ready events into ev, their count returned */
static int
wait_sockets(Remote **rs, int n, long timeout_ms, WaitEvent *ev)
{
	WaitEventSet *volatile set = NULL;
	volatile int nev = 0;

	PG_TRY();
	{
		set = CreateWaitEventSet(CurrentMemoryContext, n + 2);
		AddWaitEventToSet(set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
		AddWaitEventToSet(set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
		for (int i = 0; i < n; i++)
		{
			Remote	   *r = rs[i];
			uint32		events = 0;

			if (r->conn == NULL || PQsocket(r->conn) < 0)
				continue;
			if (r->state == RS_CONNECTING)
				events = r->poll == PGRES_POLLING_READING ? WL_SOCKET_READABLE : WL_SOCKET_WRITEABLE;
			else if (r->state == RS_BUSY)
				events = WL_SOCKET_READABLE | (r->flushing ? WL_SOCKET_WRITEABLE : 0);
			if (events != 0)
				AddWaitEventToSet(set, events, PQsocket(r->conn), NULL, r);
		}
		nev = WaitEventSetWait(set, timeout_ms, ev, n + 2, PG_WAIT_EXTENSION);
	}
	PG_CATCH();
	{
		if (set)
			FreeWaitEventSet(set);
		PG_RE_THROW();
	}
	PG_END_TRY();
	FreeWaitEventSet(set);
	return nev;
}

/*
 * One wait for any of the remotes to make progress, at most timeout_ms
 * (-1: no bound; a connecting remote's deadline shortens it), then the
 * progress made.  Interrupts are served here.
 */
void
remote_wait_once(Remote **rs, int n, long timeout_ms)
{
	WaitEvent  *ev = palloc(sizeof(WaitEvent) * (n + 2));
	TimestampTz now = GetCurrentTimestamp();
	long		wait = timeout_ms;
	int			nev;

	for (int i = 0; i < n; i++)
	{
		Remote	   *r = rs[i];

		/* a lookup ends without a socket to wait on: look again soon */
		if (r->state == RS_CONNECTING && r->lookups && (wait < 0 || wait > 10))
			wait = 10;
		if (r->state == RS_CONNECTING && r->deadline != 0)
		{
			long		left = (long) ((r->deadline - now) / 1000);

			left = Max(left, 0) + 1;
			if (wait < 0 || left < wait)
				wait = left;
		}
	}
	nev = wait_sockets(rs, n, wait, ev);
	ResetLatch(MyLatch);
	CHECK_FOR_INTERRUPTS();
	for (int e = 0; e < nev; e++)
		if (ev[e].user_data)
			remote_step((Remote *) ev[e].user_data, true);
	/* deadlines, and input libpq may hold already */
	for (int i = 0; i < n; i++)
		if (remote_waiting(rs[i]))
			remote_step(rs[i], false);
	pfree(ev);
}

/* Milliseconds from now to an absolute deadline (0: none, -1 returned) */
long
remote_ms_left(TimestampTz until)
{
	long		left;

	if (until == 0)
		return -1;
	left = (long) ((until - GetCurrentTimestamp()) / 1000);
	return Max(left, 0);
}

TimestampTz
remote_deadline_in(int timeout_ms)
{
	if (timeout_ms < 0)
		return 0;
	return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
}

/* Wait until no remote of rs is waiting any more, or until */
void
remote_wait_all(Remote **rs, int n, TimestampTz until)
{
	for (;;)
	{
		bool		any = false;
		long		left;

		for (int i = 0; i < n; i++)
			if (remote_waiting(rs[i]))
				any = true;
		if (!any)
			return;
		left = remote_ms_left(until);
		if (left == 0)
			return;
		remote_wait_once(rs, n, left);
	}
}

/*
 * Progress on one remote until it waits no more (true: it answered, failed
 * or broke) or until passes first (false: it is still waiting).
 */
bool
remote_await(Remote **r, TimestampTz until)
{
	for (;;)
	{
		long		left;

		if (remote_waiting(*r))
			remote_step(*r, false);
		if (!remote_waiting(*r))
			return true;
		left = remote_ms_left(until);
		if (left == 0)
			return false;
		remote_wait_once(r, 1, left);
	}
}

