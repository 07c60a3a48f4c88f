/*
 * registry.c
 *		A connection's record (Remote) from its start to its end, and this
 *		backend's list of them (src/fleet/remote.h).
 *
 * A connection lives in the registry until it is closed
 * (ranread_remote_close), the top-level transaction ends, or the backend
 * exits: a transaction callback and a before_shmem_exit callback end every
 * one, so that none outlives its call.  A cancel's or a probe's connection
 * (cancel.c) is never registered: its caller frees it.
 *
 * Starting one.  The connection string is parsed (conninfo.c), its
 * passwords' spellings kept to scrub every message of the connection
 * (secrets.c), its connect timeout set (the string's connect_timeout, or
 * ranread's own when it gives none or 0, never more than 60 s), its host
 * names looked up without blocking (lookup.c), and libpq told to connect
 * without waiting (progress.c).  Non-superusers get dblink's rule: the
 * connection string must give a password and the server must have asked
 * for it, so that nobody connects as the server's operating-system user
 * (peer, trust, ~/.pgpass).
 *
 * Last words.  A coordinator that is terminated (FATAL) runs no plpgsql
 * exception handler.  ranread_remote_last_words gives a connection (the
 * fleet's recorder) a statement to send when it is freed here, whether by
 * the call, at the end of the transaction or when the backend exits, unless
 * the call cleared it after recording its end: it is sent without waiting
 * (the recorder's own backend runs and commits it), so that the fleet's
 * rows do not stay 'running' after their coordinator is gone.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <errno.h>
#include <stdlib.h>

#include "access/xact.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/memutils.h"

#include "remote.h"

const char *const remote_state_names[] = {"connecting", "idle", "busy", "done", "broken"};

static Remote *remotes[RANREAD_MAX_REMOTES];
static int	nremotes = 0;
static bool callbacks_set = false;

char *
remote_strdup(const char *s)
{
	char	   *r = strdup(s ? s : "");

	if (r == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return r;
}

/* A copy of s with the remote's passwords blanked out, malloc'd */
char *
remote_scrubbed(Remote *r, const char *s)
{
	List	   *l = NIL;
	char	   *t;
	char	   *out;
	int			len;

	if (s == NULL)
		return NULL;
	/* libpq's messages end with a newline; one line reads better */
	t = pstrdup(s);
	len = strlen(t);
	while (len > 0 && (t[len - 1] == '\n' || t[len - 1] == ' '))
		t[--len] = '\0';
	for (char *p = t; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	/* a server of another encoding (SQL_ASCII sends its bytes as they are) */
	if (!pg_verifymbstr(t, len, true))
		for (char *p = t; *p; p++)
			if (IS_HIGHBIT_SET(*p))
				*p = '?';
	for (int i = 0; i < r->nsecrets; i++)
		l = lappend(l, r->secrets[i]);
	out = l ? conninfo_replace_all(t, l, SCRUBBED) : t;
	return remote_strdup(out);
}

void
remote_clear_outcome(Remote *r)
{
	free(r->value);
	free(r->message);
	free(r->detail);
	r->value = r->message = r->detail = NULL;
	r->failed = false;
	r->sqlstate[0] = '\0';
}

/* Close the remote's connection, if any, and give back its file descriptor */
void
remote_close_connection(Remote *r)
{
	if (r->conn)
	{
		PQfinish(r->conn);
		r->conn = NULL;
	}
	if (r->have_fd)
	{
		ReleaseExternalFD();
		r->have_fd = false;
	}
}


/* The remote broke: keep why, close its connection */
void
remote_set_broken(Remote *r, const char *why)
{
	char	   *m = remote_scrubbed(r, why && why[0] ? why : "the connection was lost");

	remote_clear_outcome(r);
	r->failed = true;
	strlcpy(r->sqlstate, "08006", sizeof(r->sqlstate));
	r->message = m;
	r->state = RS_BROKEN;
	lookups_abandon(r);
	remote_free_options(r);
	remote_close_connection(r);
	remote_drop_spare(r);
}

/* The remote's spare connection (cancel.c), if any, closed */
void
remote_drop_spare(Remote *r)
{
	if (r->spare)
	{
		Remote	   *s = r->spare;

		r->spare = NULL;
		remote_free(s);
	}
}

void
remote_free(Remote *r)
{
	/* its last words, sent without waiting: its own server runs them */
	if (r->last_words && r->conn && r->state == RS_IDLE &&
		PQstatus(r->conn) == CONNECTION_OK && PQsendQuery(r->conn, r->last_words))
		(void) PQflush(r->conn);
	remote_drop_spare(r);
	lookups_abandon(r);
	remote_free_options(r);
	free(r->last_words);
	free(r->queued);
	free(r->host);
	free(r->port);
	free(r->hostaddr);
	remote_close_connection(r);
	remote_clear_outcome(r);
	if (r->conninfo)
	{
		explicit_bzero(r->conninfo, strlen(r->conninfo));
		free(r->conninfo);
	}
	for (int i = 0; i < r->nsecrets; i++)
	{
		explicit_bzero(r->secrets[i], strlen(r->secrets[i]));
		free(r->secrets[i]);
	}
	free(r->secrets);
	free(r);
}

Remote *
remote_find(const char *name)
{
	for (int i = 0; i < nremotes; i++)
		if (strcmp(remotes[i]->name, name) == 0)
			return remotes[i];
	return NULL;
}

void
remote_drop(Remote *r)
{
	for (int i = 0; i < nremotes; i++)
		if (remotes[i] == r)
		{
			remotes[i] = remotes[--nremotes];
			break;
		}
	remote_free(r);
}

/*
 * The end of every connection, each with its last words (sent without
 * waiting).  Never throws: it runs at transaction end and at backend exit.
 */
static void
remote_end_all(void)
{
	while (nremotes > 0)
		remote_free(remotes[--nremotes]);
}

static void
remote_xact_callback(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PREPARE)
		remote_end_all();
}

static void
remote_exit_callback(int code, Datum arg)
{
	remote_end_all();
}

void
remote_set_callbacks(void)
{
	if (callbacks_set)
		return;
	RegisterXactCallback(remote_xact_callback, NULL);
	before_shmem_exit(remote_exit_callback, (Datum) 0);
	callbacks_set = true;
}

void
remote_check_name(const char *name)
{
	if (name[0] == '\0' || strlen(name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a connection name must have 1 to %d bytes", NAMEDATALEN - 1)));
}

/* A new remote, broken until it connects, in the list when registered */
static Remote *
remote_new(const char *name, bool registered)
{
	Remote	   *r;

	if (registered && nremotes >= RANREAD_MAX_REMOTES)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("too many connections open at once: at most %d", RANREAD_MAX_REMOTES)));
	r = calloc(1, sizeof(Remote));
	if (r == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	strlcpy(r->name, name, sizeof(r->name));
	r->state = RS_BROKEN;
	if (registered)
		remotes[nremotes++] = r;
	return r;
}

/* The remote keeps (malloc'd) its connection string and its secrets' spellings */
static void
remote_keep_secrets(Remote *r, const char *conninfo, PQconninfoOption *opts)
{
	List	   *sp = conninfo_secret_spellings(conninfo, opts);
	ListCell   *lc;

	r->secrets = calloc(list_length(sp) + 1, sizeof(char *));
	if (r->secrets == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	foreach(lc, sp)
		r->secrets[r->nsecrets++] = remote_strdup(lfirst(lc));
	r->conninfo = remote_strdup(conninfo);
}

/*
 * The connect timeout, and why it is that: the string's connect_timeout
 * (libpq's rules), else ranread's; timeout_ms (>= 0) when shorter.  The
 * deadline runs from now.
 */
static void
remote_set_timeout(Remote *r, PQconninfoOption *opts, int timeout_ms)
{
	const char *ct = conninfo_opt(opts, "connect_timeout");

	r->timeout_ms = RANREAD_CONNECT_TIMEOUT;
	r->timeout_why = "ranread's connect timeout, as the connection string gives none";
	if (ct && ct[0])
	{
		char	   *end;
		long		secs;

		errno = 0;
		secs = strtol(ct, &end, 10);
		if (errno != 0 || end == ct || secs > RANREAD_CONNECT_TIMEOUT_MAX / 1000)
		{
			/* libpq's 0 is no bound; ranread keeps one of its own */
			r->timeout_ms = RANREAD_CONNECT_TIMEOUT_MAX;
			r->timeout_why = "ranread's longest connect timeout, shorter than its connect_timeout";
			if (errno == 0 && end == ct)
			{
				r->timeout_ms = RANREAD_CONNECT_TIMEOUT;
				r->timeout_why = "ranread's connect timeout, as its connect_timeout is no number";
			}
		}
		else if (secs <= 0)
			r->timeout_why = "ranread's connect timeout, as its connect_timeout of 0 would set no bound";
		else
		{
			r->timeout_ms = Max(secs, 2) * 1000;
			r->timeout_why = "its connect_timeout";
		}
	}
	if (timeout_ms >= 0 && timeout_ms < r->timeout_ms)
	{
		r->timeout_ms = timeout_ms;
		r->timeout_why = "the time left to the call";
	}
	r->deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(), r->timeout_ms);
}

/*
 * The options the remote connects with, kept (malloc'd) while host names
 * are looked up: the string's, with pin's host, port and hostaddr in place
 * of its own, text in this database's encoding (as dblink's) and ranread as
 * the fallback application name.
 */
static void
remote_keep_options(Remote *r, PQconninfoOption *opts, Remote *pin)
{
	const char **kw;
	const char **vals;
	int			n = 0,
				k = 0;

	for (PQconninfoOption *o = opts; o->keyword; o++)
		n++;
	kw = palloc0(sizeof(char *) * (n + 6));
	vals = palloc0(sizeof(char *) * (n + 6));
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || strcmp(o->keyword, "client_encoding") == 0)
			continue;
		if (pin && (strcmp(o->keyword, "host") == 0 || strcmp(o->keyword, "port") == 0 ||
					strcmp(o->keyword, "hostaddr") == 0))
			continue;
		kw[k] = o->keyword;
		vals[k++] = o->val;
	}
	if (pin && pin->host)
	{
		kw[k] = "host";
		vals[k++] = pin->host;
	}
	if (pin && pin->port)
	{
		kw[k] = "port";
		vals[k++] = pin->port;
	}
	if (pin && pin->hostaddr)
	{
		kw[k] = "hostaddr";
		vals[k++] = pin->hostaddr;
	}
	kw[k] = "client_encoding";
	vals[k++] = GetDatabaseEncodingName();
	kw[k] = "fallback_application_name";
	vals[k++] = "ranread";

	r->ckw = calloc(k + 1, sizeof(char *));
	r->cval = calloc(k + 1, sizeof(char *));
	if (r->ckw == NULL || r->cval == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int i = 0; i < k; i++)
	{
		r->ckw[i] = remote_strdup(kw[i]);
		r->cval[i] = remote_strdup(vals[i]);
	}
}

/*
 * A new remote, connecting; its outcome tells a failure.  pin: the server
 * another remote connected to (a cancel's connection goes to that one host
 * of a host list, never to another that could have a session of that pid).
 */
Remote *
remote_start(const char *name, const char *conninfo, int timeout_ms, bool registered,
			 Remote *pin)
{
	Remote	   *r = remote_new(name, registered);
	const char *problem;
	PQconninfoOption *opts;

	opts = conninfo_parse(conninfo, &problem);
	if (opts == NULL)
	{
		remote_set_broken(r, psprintf("invalid connection string: %s", problem));
		return r;
	}
	remote_keep_secrets(r, conninfo, opts);

	/* dblink's rule for non-superusers: a password given, and asked for */
	if (!superuser() && !conninfo_has_secret(opts))
	{
		PQconninfoFree(opts);
		remote_set_broken(r, "a password is required: a role that is not a superuser must give one in the connection string (and the server must ask for it)");
		return r;
	}
	remote_set_timeout(r, opts, timeout_ms);
	remote_keep_options(r, opts, pin);
	PQconninfoFree(opts);
	r->state = RS_CONNECTING;
	if (lookups_start(r))
		return r;
	remote_connect_now(r, (const char *const *) r->ckw, (const char *const *) r->cval);
	remote_free_options(r);
	return r;
}

void
remote_free_options(Remote *r)
{
	if (r->ckw)
		for (int i = 0; r->ckw[i]; i++)
		{
			free(r->ckw[i]);
			explicit_bzero(r->cval[i], strlen(r->cval[i]));
			free(r->cval[i]);
		}
	free(r->ckw);
	free(r->cval);
	r->ckw = r->cval = NULL;
}

