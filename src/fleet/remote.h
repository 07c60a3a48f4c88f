/*
 * remote.h
 *		The fleet's connections to other PostgreSQL servers (src/fleet/):
 *		what the files of this folder share.
 *
 * Why ranread has connections of its own, and not dblink's.  PostgreSQL
 * 15's dblink connects with PQconnectdb and reads results with
 * PQgetResult, both of which wait in libpq without ever looking at the
 * backend's interrupts: a node whose server is frozen (a stopped process, a
 * host gone from the network) holds the caller in dblink_connect or
 * dblink_get_result through cancel, statement_timeout and
 * pg_terminate_backend, for as long as the node stays frozen; and
 * dblink_cancel_query (PQcancel) blocks the same way on such a node.  Here
 * every step uses libpq's asynchronous calls (PQconnectStartParams and
 * PQconnectPoll, PQsendQuery, PQconsumeInput) on non-blocking sockets, and
 * every wait is the server's own (a WaitEventSet on the sockets, the latch
 * and postmaster death), followed by CHECK_FOR_INTERRUPTS: a cancel, a
 * statement_timeout or a terminate ends any wait at once, and each wait has
 * a deadline given by the caller.
 *
 * The folder, by concern:
 *	 registry.c    a connection's record (Remote) from its start to its
 *				   end: the backend's list of them, their last words, the
 *				   end of all of them with the transaction or the backend
 *	 lookup.c	   host names looked up without blocking (getaddrinfo_a)
 *	 progress.c    a connection's progress without blocking: connecting,
 *				   sending, reading an answer within ranread's limits
 *	 wait.c		   the waits: every one bounded and interruptible
 *	 cancel.c	   the cancel that cannot block, and the probe of a busy
 *				   node, each on a connection of its own: one made
 *				   ahead (a spare), or a fresh one
 *	 remote_sql.c  the SQL functions ranread_remote_*
 *	 conninfo.c    connection strings read by libpq's rules: what is wrong
 *				   with one, its name, its text stored and shown without
 *				   passwords; the SQL functions ranread_conninfo_*
 *	 secrets.c	   every spelling a password may take in text, and text
 *				   with those spellings replaced
 * The coordinator that uses them is PL/pgSQL: sql/code/51_fleet_loop.sql.
 *
 * A connection has a name (the fleet's plpgsql names them) and lives in
 * this backend's registry until it is closed, the top-level transaction
 * ends, or the backend exits: none outlives its call.  Its states:
 *	 connecting  its host names looked up (lookup.c), then PQconnectPoll
 *				 under way, until its deadline: the conninfo's
 *				 connect_timeout, or RANREAD_CONNECT_TIMEOUT (10 s) when it
 *				 gives none or 0 (libpq's "no bound"), at most
 *				 RANREAD_CONNECT_TIMEOUT_MAX (60 s)
 *	 idle		 connected, nothing in flight
 *	 busy		 a query sent, its outcome not read yet
 *	 done		 its outcome read (value, or the node's error), not taken yet
 *	 broken		 unusable: its error says why
 *
 * Every string a Remote holds is malloc'd, so that it outlives any memory
 * context; its passwords are zeroed before they are freed.
 *
 * Copyright (c) the ranread authors
 */
#ifndef RANREAD_FLEET_REMOTE_H
#define RANREAD_FLEET_REMOTE_H

#include "postgres.h"

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/array.h"
#include "utils/timestamp.h"

#include "libpq-fe.h"

/* PG_FUNCTION_INFO_V1 that exports the SQL function too (src/sqlfunc.h) */
#include "sqlfunc.h"

/* ranread's connect timeout when a connection string gives none (ms) */
#define RANREAD_CONNECT_TIMEOUT 10000
/* the longest one a connection string may ask for (ms) */
#define RANREAD_CONNECT_TIMEOUT_MAX 60000
/* what one answer of a node may take in this backend (bytes) */
#define RANREAD_MAX_RESULT_BYTES (64 * 1024 * 1024)
/* connections open at once in one backend, the cancels' included */
#define RANREAD_MAX_REMOTES		512

/* what a password is replaced with in any text shown */
#define SCRUBBED	"********"

typedef enum RemoteState
{
	RS_CONNECTING,
	RS_IDLE,
	RS_BUSY,
	RS_DONE,
	RS_BROKEN
} RemoteState;

extern const char *const remote_state_names[];

struct Lookups;

/* One connection */
typedef struct Remote
{
	char		name[NAMEDATALEN];
	PGconn	   *conn;
	bool		have_fd;		/* counted by AcquireExternalFD */
	RemoteState state;
	PostgresPollingStatusType poll; /* while connecting */
	TimestampTz deadline;		/* while connecting; 0: none */
	int			timeout_ms;		/* the connect timeout, for its message */
	const char *timeout_why;	/* where that came from */
	bool		flushing;		/* a query's bytes still to send */
	int			pid;			/* the node's backend */
	int			local_port;		/* our end's TCP port; -1 on a Unix socket */
	char	   *host;			/* where it connected (PQhost, PQport, PQhostaddr) */
	char	   *port;
	char	   *hostaddr;
	char	   *conninfo;		/* for a cancel's fresh connection */
	char	  **secrets;		/* spellings to scrub from its messages */
	int			nsecrets;
	char	   *last_words;		/* sent when it is closed (ranread_remote_last_words) */
	char	   *queued;			/* a query to send once connected */
	/* connected ahead to the same server, for a cancel (cancel.c) */
	struct Remote *spare;
	/* while its host names are looked up (RS_CONNECTING, conn NULL) */
	struct Lookups *lookups;
	char	  **ckw;			/* the connection's options, malloc'd */
	char	  **cval;
	/* the answer being read: its rows' bytes, the socket's count at the send */
	bool		in_set;			/* a row of the current result set seen */
	int64		result_bytes;
	uint64		tcp_base;
	/* the outcome of the last query (RS_DONE), or why it broke */
	bool		failed;
	char	   *value;			/* first column of the first row; NULL */
	char		sqlstate[6];
	char	   *message;
	char	   *detail;
} Remote;

/* secrets.c */
extern bool conninfo_secret_keyword(const char *kw);
extern List *conninfo_add_spelling(List *l, const char *s, int len);
extern List *conninfo_secret_spellings(const char *conninfo, PQconninfoOption *opts);
extern char *conninfo_replace_all(const char *text, List *spellings, const char *with);
extern List *conninfo_add_patterns(List *pats, List *spellings, const char *to, bool literal);
extern char *conninfo_replace_once(const char *text, List *pats);

/* conninfo.c */
extern PQconninfoOption *conninfo_parse(const char *conninfo, const char **problem);
extern const char *conninfo_opt(PQconninfoOption *opts, const char *kw);
extern bool conninfo_has_secret(PQconninfoOption *opts);

/* registry.c */
extern char *remote_strdup(const char *s);
extern char *remote_scrubbed(Remote *r, const char *s);
extern void remote_clear_outcome(Remote *r);
extern void remote_close_connection(Remote *r);
extern void remote_set_broken(Remote *r, const char *why);
extern void remote_free_options(Remote *r);
extern void remote_free(Remote *r);
extern Remote *remote_find(const char *name);
extern void remote_drop(Remote *r);
extern void remote_drop_spare(Remote *r);
extern void remote_set_callbacks(void);
extern void remote_check_name(const char *name);
extern Remote *remote_start(const char *name, const char *conninfo, int timeout_ms,
							bool registered, Remote *pin);

/* lookup.c */
extern bool lookups_start(Remote *r);
extern bool lookups_running(struct Lookups *l);
extern const char *lookups_pending(struct Lookups *l);
extern void lookups_finish(Remote *r);
extern void lookups_abandon(Remote *r);

/* progress.c */
extern void remote_connect_now(Remote *r, const char *const *kw, const char *const *vals);
extern bool remote_send(Remote *r, const char *sql);
extern void remote_step(Remote *r, bool ready);
extern bool remote_waiting(Remote *r);

/* wait.c */
extern long remote_ms_left(TimestampTz until);
extern TimestampTz remote_deadline_in(int timeout_ms);
extern void remote_wait_once(Remote **rs, int n, long timeout_ms);
extern void remote_wait_all(Remote **rs, int n, TimestampTz until);
extern bool remote_await(Remote **r, TimestampTz until);

/* remote_sql.c: the arguments of the SQL functions */
extern Remote *remote_get(text *t);
extern char **remote_text_array(ArrayType *arr, int *n);
extern int	remote_timeout_arg(FunctionCallInfo fcinfo, int argno);
extern ArrayType *remote_result_array(Datum *out, bool *outnull, int n, Oid type);

#endif							/* RANREAD_FLEET_REMOTE_H */
