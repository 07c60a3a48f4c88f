/*
 * remote.c
 *		The fleet's connections to other PostgreSQL servers, each step with a
 *		time bound of ranread's own; and connection strings read by libpq's
 *		own rules, so that no password is ever stored, shown or logged.
 *
 * Why not dblink.  PostgreSQL 15's dblink connects with PQconnectdb and
 * reads results with PQgetResult, both of which wait in libpq without ever
 * looking at the backend's interrupts: a node whose server is frozen (a
 * stopped process, a host gone from the network) holds the caller in
 * dblink_connect or dblink_get_result through cancel, statement_timeout and
 * pg_terminate_backend, for as long as the node stays frozen; and
 * dblink_cancel_query (PQcancel) blocks the same way on such a node.  Here
 * every step uses libpq's asynchronous calls (PQconnectStartParams and
 * PQconnectPoll, PQsendQuery, PQconsumeInput) on non-blocking sockets, and
 * every wait is the server's own (a WaitEventSet on the sockets, the latch
 * and postmaster death), followed by CHECK_FOR_INTERRUPTS: a cancel, a
 * statement_timeout or a terminate ends any wait at once, and each wait has
 * a deadline given by the caller.
 *
 * A connection has a name (the fleet's plpgsql names them) and lives in
 * this backend's registry until it is closed, the top-level transaction
 * ends, or the backend exits: none outlives its call.  Its states:
 *	 connecting  its host names looked up (see "Host names" below), then
 *				 PQconnectPoll under way, until its deadline: the conninfo's
 *				 connect_timeout, or RANREAD_CONNECT_TIMEOUT (10 s) when it
 *				 gives none or 0 (libpq's "no bound"), at most
 *				 RANREAD_CONNECT_TIMEOUT_MAX (60 s)
 *	 idle		 connected, nothing in flight
 *	 busy		 a query sent, its outcome not read yet
 *	 done		 its outcome read (value, or the node's error), not taken yet
 *	 broken		 unusable: its error says why
 *
 * What a node may send.  Rows are read one at a time (single-row mode) and
 * only the first column of the first row is kept; an answer whose rows
 * pass RANREAD_MAX_RESULT_BYTES (64 MB), or over TCP whose bytes received
 * do (one huge row libpq is still gathering), breaks the connection with an
 * error naming the node and the limit.  A node's NOTICEs and WARNINGs are
 * dropped, never printed into this server's log.
 *
 * A cancel that cannot block.  PQcancel connects to the node and waits for
 * it, which is what a frozen node never answers.  ranread_remote_cancel
 * instead opens a fresh connection of its own (asynchronously, under the
 * same deadline, to the very host and port the busy one is on) and asks the
 * node to pg_cancel_backend() the busy session (its pid and, over TCP, the
 * client port of our end); a node that does not answer within the deadline
 * is given up.
 *
 * Last words.  A coordinator that is terminated (FATAL) runs no plpgsql
 * exception handler.  ranread_remote_last_words gives a connection (the
 * fleet's recorder) a statement to send when it is closed, whether by the
 * call, at the end of the transaction or when the backend exits, unless the
 * call cleared it after recording its end: it is sent without waiting (the
 * recorder's own backend runs and commits it), so that the fleet's rows do
 * not stay 'running' after their coordinator is gone.
 *
 * Passwords.  Connection strings are read with PQconninfoParse, which knows
 * key = value strings and URIs (with percent-encoding and query
 * parameters) exactly as the connection will, and every option libpq
 * marks secret (dispchar "*": password, sslpassword) is a password.  What
 * is stored and shown is rebuilt from the parsed options without them
 * (ranread_conninfo_strip); names are host:port (ranread_conninfo_name);
 * messages are scrubbed of every spelling of each password
 * (ranread_conninfo_scrub); and ranread_conninfo_hide takes the passwords
 * out of the text of the running statement as the server logs it
 * (log_min_error_statement's STATEMENT line) and shows it
 * (pg_stat_activity), so that a password typed into a call reaches neither.
 * A string libpq cannot read is refused without quoting any of it.
 *
 * Non-superusers get dblink's rule: the connection string must give a
 * password and the server must have asked for it, so that nobody connects
 * as the server's operating-system user (peer, trust, ~/.pgpass).
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <linux/tcp.h>

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/array.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "libpq-fe.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_remote_connect);
PG_FUNCTION_INFO_V1(ranread_remote_send);
PG_FUNCTION_INFO_V1(ranread_remote_wait);
PG_FUNCTION_INFO_V1(ranread_remote_result);
PG_FUNCTION_INFO_V1(ranread_remote_query);
PG_FUNCTION_INFO_V1(ranread_remote_cancel);
PG_FUNCTION_INFO_V1(ranread_remote_probe);
PG_FUNCTION_INFO_V1(ranread_remote_state);
PG_FUNCTION_INFO_V1(ranread_remote_close);
PG_FUNCTION_INFO_V1(ranread_remote_last_words);
PG_FUNCTION_INFO_V1(ranread_conninfo_problem);
PG_FUNCTION_INFO_V1(ranread_conninfo_has_password);
PG_FUNCTION_INFO_V1(ranread_conninfo_strip);
PG_FUNCTION_INFO_V1(ranread_conninfo_name);
PG_FUNCTION_INFO_V1(ranread_conninfo_scrub);
PG_FUNCTION_INFO_V1(ranread_conninfo_hide);

/* ranread's connect timeout when a connection string gives none (ms) */
#define RANREAD_CONNECT_TIMEOUT 10000
/* the longest one a connection string may ask for (ms) */
#define RANREAD_CONNECT_TIMEOUT_MAX 60000
/* what one answer of a node may take in this backend (bytes) */
#define RANREAD_MAX_RESULT_BYTES (64 * 1024 * 1024)
/* connections open at once in one backend, the cancels' included */
#define RANREAD_MAX_REMOTES		512

#define SCRUBBED	"********"

typedef enum RemoteState
{
	RS_CONNECTING,
	RS_IDLE,
	RS_BUSY,
	RS_DONE,
	RS_BROKEN
} RemoteState;

static const char *const state_names[] = {"connecting", "idle", "busy", "done", "broken"};

/* One connection; every string malloc'd, so that it outlives any context */
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

static Remote *remotes[RANREAD_MAX_REMOTES];
static int	nremotes = 0;
static bool callbacks_set = false;
/* the statement's text without its passwords (ranread_conninfo_hide) */
static char *hidden_query = NULL;

/* ---------------------------------------------------------------------
 * Connection strings
 * --------------------------------------------------------------------- */

/* Is this keyword one libpq keeps secret (a password)? */
static bool
secret_keyword(const char *kw)
{
	static char **secret = NULL;
	static int	nsecret = -1;

	if (nsecret < 0)
	{
		PQconninfoOption *all = PQconninfoParse("", NULL);
		int			n = 0;

		if (all == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		for (PQconninfoOption *o = all; o->keyword; o++)
			if (o->dispchar && o->dispchar[0] == '*')
				n++;
		secret = MemoryContextAllocZero(TopMemoryContext, sizeof(char *) * (n + 1));
		n = 0;
		for (PQconninfoOption *o = all; o->keyword; o++)
			if (o->dispchar && o->dispchar[0] == '*')
				secret[n++] = MemoryContextStrdup(TopMemoryContext, o->keyword);
		PQconninfoFree(all);
		nsecret = n;
	}
	for (int i = 0; i < nsecret; i++)
		if (strcmp(secret[i], kw) == 0)
			return true;
	return false;
}

/*
 * What is wrong with a connection string libpq cannot read, in words that
 * quote none of it (libpq's own message quotes the text, which may hold a
 * password in a spelling libpq does not know).
 */
static const char *
parse_problem(const char *errmsg)
{
	if (errmsg == NULL)
		return "libpq cannot read it";
	if (strstr(errmsg, "invalid connection option") || strstr(errmsg, "invalid URI query parameter"))
		return "a keyword libpq does not know (its keywords are lower case: host, port, dbname, user ...)";
	if (strstr(errmsg, "missing \"=\""))
		return "a word without \"= value\" (a connection string is keyword = value pairs, or a postgresql:// URI)";
	if (strstr(errmsg, "unterminated quoted string"))
		return "a quoted value without its closing quote";
	if (strstr(errmsg, "URI") || strstr(errmsg, "percent"))
		return "a malformed postgresql:// URI";
	if (strstr(errmsg, "invalid") && strstr(errmsg, "value"))
		return "a value libpq refuses";
	return "libpq cannot read it";
}

/* The parsed options, or NULL with *problem set */
static PQconninfoOption *
parse_conninfo(const char *conninfo, const char **problem)
{
	char	   *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(conninfo, &err);

	*problem = NULL;
	if (opts == NULL)
	{
		*problem = parse_problem(err);
		if (err)
			PQfreemem(err);
	}
	return opts;
}

static bool
is_uri(const char *s)
{
	return strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* %XX decoded (an invalid escape stays), palloc'd */
static char *
uri_decode(const char *s, int len)
{
	char	   *out = palloc(len + 1);
	int			o = 0;

	for (int i = 0; i < len; i++)
	{
		if (s[i] == '%' && i + 2 < len &&
			hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0)
		{
			out[o++] = (char) (hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		}
		else
			out[o++] = s[i];
	}
	out[o] = '\0';
	return out;
}

static List *
add_spelling(List *l, const char *s, int len)
{
	StringInfoData a,
				b,
				c;
	char	   *raw;

	if (len <= 0)
		return l;
	raw = pnstrdup(s, len);
	initStringInfo(&a);
	initStringInfo(&b);
	initStringInfo(&c);
	for (const char *p = raw; *p; p++)
	{
		/* as in an SQL literal ('' for '), an escape string (\\ for \), both */
		appendStringInfoChar(&a, *p);
		if (*p == '\'')
			appendStringInfoChar(&a, '\'');
		appendStringInfoChar(&b, *p);
		if (*p == '\\')
			appendStringInfoChar(&b, '\\');
		appendStringInfoChar(&c, *p);
		if (*p == '\'' || *p == '\\')
			appendStringInfoChar(&c, *p);
	}
	l = lappend(l, raw);
	if (strcmp(a.data, raw) != 0)
		l = lappend(l, a.data);
	if (strcmp(b.data, raw) != 0)
		l = lappend(l, b.data);
	if (strcmp(c.data, raw) != 0 && strcmp(c.data, a.data) != 0 && strcmp(c.data, b.data) != 0)
		l = lappend(l, c.data);
	return l;
}

/*
 * The secrets of a URI connection string as written in it:
 * scheme://user:password@... as libpq looks for it, and every query
 * parameter (?...&password=...) whose name decodes to a secret.
 */
static List *
uri_secret_spellings(List *l, const char *s)
{
	const char *start = s + (strncmp(s, "postgresql://", 13) == 0 ? 13 : 11);
	const char *p = start;
	const char *q;

	/* scheme://user:password@..., as libpq looks for it */
	while (*p && *p != '@' && *p != '/')
		p++;
	if (*p == '@')
	{
		const char *colon = memchr(start, ':', p - start);

		if (colon)
		{
			l = add_spelling(l, colon + 1, p - colon - 1);
			l = add_spelling(l, colon, p - colon + 1);	/* ":secret@" */
		}
		p++;
	}
	else
		p = start;
	/* ?...&password=...: every parameter whose name decodes to a secret */
	q = strchr(p, '?');
	while (q && *q)
	{
		const char *k = q + 1;
		const char *end = strchr(k, '&');
		const char *eq;

		if (end == NULL)
			end = s + strlen(s);
		eq = memchr(k, '=', end - k);
		if (eq && secret_keyword(uri_decode(k, eq - k)))
		{
			l = add_spelling(l, eq + 1, end - eq - 1);
			l = add_spelling(l, k, end - k);
		}
		q = *end ? end : NULL;
	}
	return l;
}

/*
 * The end of the value that starts at p in a keyword = value string, as
 * libpq scans it: a single-quoted value up to its closing quote, a bare one
 * up to white space, a backslash escaping the character after it.
 */
static const char *
keyword_value_end(const char *p)
{
	if (*p == '\'')
	{
		p++;
		while (*p && *p != '\'')
		{
			if (*p == '\\' && p[1])
				p++;
			p++;
		}
		if (*p)
			p++;
	}
	else
	{
		while (*p && !isspace((unsigned char) *p))
		{
			if (*p == '\\' && p[1])
				p++;
			p++;
		}
	}
	return p;
}

/*
 * The secrets of a keyword = value connection string as written in it (the
 * value, and the whole keyword = value), the pairs scanned as libpq scans
 * them.
 */
static List *
keyword_secret_spellings(List *l, const char *s)
{
	const char *p = s;

	while (*p)
	{
		const char *kw,
				   *kwend,
				   *vstart;
		char	   *key;

		if (isspace((unsigned char) *p))
		{
			p++;
			continue;
		}
		kw = p;
		while (*p && *p != '=' && !isspace((unsigned char) *p))
			p++;
		kwend = p;
		while (*p && isspace((unsigned char) *p))
			p++;
		if (*p != '=')
			break;
		p++;
		while (*p && isspace((unsigned char) *p))
			p++;
		vstart = p;
		p = keyword_value_end(p);
		key = pnstrdup(kw, kwend - kw);
		if (secret_keyword(key))
		{
			l = add_spelling(l, vstart, p - vstart);
			l = add_spelling(l, kw, p - kw);
		}
	}
	return l;
}

/*
 * The passwords of a connection string libpq reads, in every spelling they
 * may take in text: as libpq reads them, as written in the string (quoted,
 * escaped, percent-encoded), and those quoted for SQL.
 */
static List *
secret_spellings(const char *conninfo, PQconninfoOption *opts)
{
	List	   *l = NIL;

	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && secret_keyword(o->keyword))
			l = add_spelling(l, o->val, strlen(o->val));

	if (is_uri(conninfo))
		return uri_secret_spellings(l, conninfo);
	return keyword_secret_spellings(l, conninfo);
}

/* Longest first, so that a spelling containing another goes whole */
static int
by_length_desc(const ListCell *a, const ListCell *b)
{
	int			la = strlen((char *) lfirst(a));
	int			lb = strlen((char *) lfirst(b));

	return (la < lb) - (la > lb);
}

/* text with every occurrence of each of spellings replaced by with */
static char *
replace_all(const char *text, List *spellings, const char *with)
{
	char	   *cur = pstrdup(text);
	ListCell   *lc;

	list_sort(spellings, by_length_desc);
	foreach(lc, spellings)
	{
		const char *s = lfirst(lc);
		int			sl = strlen(s);
		StringInfoData out;
		const char *p = cur;
		const char *hit;

		if (sl == 0 || strstr(cur, s) == NULL)
			continue;
		initStringInfo(&out);
		while ((hit = strstr(p, s)) != NULL)
		{
			CHECK_FOR_INTERRUPTS();
			appendBinaryStringInfo(&out, p, hit - p);
			appendStringInfoString(&out, with);
			p = hit + sl;
		}
		appendStringInfoString(&out, p);
		cur = out.data;
	}
	return cur;
}

/* A text to replace in the statement's text, and with what */
typedef struct Pattern
{
	const char *from;
	const char *to;
	int			len;
	bool		literal;		/* only as a whole SQL literal: 'from' */
} Pattern;

static List *
add_patterns(List *pats, List *spellings, const char *to, bool literal)
{
	ListCell   *lc;

	foreach(lc, spellings)
	{
		Pattern    *p = palloc(sizeof(Pattern));

		p->from = lfirst(lc);
		p->to = to;
		p->len = strlen(p->from);
		p->literal = literal;
		if (p->len > 0)
			pats = lappend(pats, p);
	}
	return pats;
}

static int
pattern_longer(const ListCell *a, const ListCell *b)
{
	int			la = ((Pattern *) lfirst(a))->len;
	int			lb = ((Pattern *) lfirst(b))->len;

	return (la < lb) - (la > lb);
}

/*
 * text with every pattern replaced in one pass, the longest that matches
 * at each place first: no replacement is looked at again, and none spoils
 * another's match
 */
static char *
replace_once(const char *text, List *pats)
{
	StringInfoData out;
	const char *p = text;
	const char *start = text;
	int			n = strlen(text);

	list_sort(pats, pattern_longer);
	initStringInfo(&out);
	while (*p)
	{
		ListCell   *lc;
		Pattern    *hit = NULL;

		CHECK_FOR_INTERRUPTS();
		foreach(lc, pats)
		{
			Pattern    *pt = lfirst(lc);

			if (pt->from[0] != *p || pt->len > n - (p - start) ||
				memcmp(p, pt->from, pt->len) != 0)
				continue;
			if (pt->literal && !(p > start && p[-1] == '\'' && p[pt->len] == '\''))
				continue;
			hit = pt;
			break;
		}
		if (hit)
		{
			appendStringInfoString(&out, hit->to);
			p += hit->len;
		}
		else
			appendStringInfoChar(&out, *p++);
	}
	return out.data;
}

/* A value quoted for a connection string, when it needs quotes */
static void
append_value(StringInfo out, const char *v)
{
	bool		plain = *v != '\0';

	for (const char *p = v; *p && plain; p++)
		if (isspace((unsigned char) *p) || *p == '\'' || *p == '\\')
			plain = false;
	if (plain)
	{
		appendStringInfoString(out, v);
		return;
	}
	appendStringInfoChar(out, '\'');
	for (const char *p = v; *p; p++)
	{
		if (*p == '\'' || *p == '\\')
			appendStringInfoChar(out, '\\');
		appendStringInfoChar(out, *p);
	}
	appendStringInfoChar(out, '\'');
}

/* The options as keyword = value pairs, without the secret ones */
static char *
rebuild(PQconninfoOption *opts)
{
	StringInfoData out;

	initStringInfo(&out);
	for (PQconninfoOption *o = opts; o->keyword; o++)
	{
		if (o->val == NULL || secret_keyword(o->keyword))
			continue;
		if (out.len > 0)
			appendStringInfoChar(&out, ' ');
		appendStringInfo(&out, "%s=", o->keyword);
		append_value(&out, o->val);
	}
	return out.data;
}

static const char *
opt_value(PQconninfoOption *opts, const char *kw)
{
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, kw) == 0)
			return o->val;
	return NULL;
}

static bool
has_secret(PQconninfoOption *opts)
{
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && o->val[0] && secret_keyword(o->keyword))
			return true;
	return false;
}

/* host:port as libpq will choose them (defaults from its environment) */
static char *
conninfo_name(PQconninfoOption *opts)
{
	const char *host = opt_value(opts, "host");
	const char *port = opt_value(opts, "port");
	const char *service = opt_value(opts, "service");
	StringInfoData out;
	char	  **ports = NULL;
	int			nports = 0;
	char	   *h,
			   *pcopy,
			   *tok,
			   *save = NULL;
	int			k = 0;

	if (host == NULL || host[0] == '\0')
		host = opt_value(opts, "hostaddr");
	if ((host == NULL || host[0] == '\0') && service && service[0])
		return psprintf("service=%s", service);
	if (host == NULL || host[0] == '\0')
		host = getenv("PGHOST");
	if (host == NULL || host[0] == '\0')
		host = DEFAULT_PGSOCKET_DIR[0] ? DEFAULT_PGSOCKET_DIR : "localhost";
	if (port == NULL || port[0] == '\0')
		port = getenv("PGPORT");
	if (port == NULL || port[0] == '\0')
		port = DEF_PGPORT_STR;

	pcopy = pstrdup(port);
	ports = palloc(sizeof(char *) * (strlen(port) + 1));
	for (tok = strtok_r(pcopy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		ports[nports++] = tok;
	initStringInfo(&out);
	h = pstrdup(host);
	save = NULL;
	for (tok = strtok_r(h, ",", &save); tok; tok = strtok_r(NULL, ",", &save), k++)
	{
		const char *pt = nports == 0 ? DEF_PGPORT_STR : nports == 1 ? ports[0] : k < nports ? ports[k] : "?";

		if (out.len > 0)
			appendStringInfoChar(&out, ',');
		appendStringInfo(&out, "%s:%s", tok, pt[0] ? pt : DEF_PGPORT_STR);
	}
	if (out.len == 0)
		appendStringInfo(&out, "%s:%s", host, port);
	return out.data;
}

/*
 * ranread_conninfo_problem(conninfo text) RETURNS text
 *
 * NULL when libpq reads the string; else what is wrong with it, quoting
 * none of it.
 */
Datum
ranread_conninfo_problem(PG_FUNCTION_ARGS)
{
	char	   *s = text_to_cstring(PG_GETARG_TEXT_PP(0));
	const char *problem;
	PQconninfoOption *opts = parse_conninfo(s, &problem);

	if (opts)
	{
		PQconninfoFree(opts);
		PG_RETURN_NULL();
	}
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}

/* The options, or an error (22023) saying what is wrong, quoting nothing */
static PQconninfoOption *
parse_or_error(const char *s)
{
	const char *problem;
	PQconninfoOption *opts = parse_conninfo(s, &problem);

	if (opts == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid connection string: %s", problem),
				 errhidestmt(true),
				 errhint("A connection string is libpq's: keyword = value pairs such as 'host=db2 port=5432 dbname=app', or a postgresql:// URI.")));
	return opts;
}

/*
 * The text that fn makes of the options libpq reads from the first argument
 * (a connection string); an error when libpq cannot read it.
 */
static Datum
conninfo_as_text(FunctionCallInfo fcinfo, char *(*fn) (PQconninfoOption *opts))
{
	PQconninfoOption *opts = parse_or_error(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	char	   *r = fn(opts);

	PQconninfoFree(opts);
	PG_RETURN_TEXT_P(cstring_to_text(r));
}

/*
 * ranread_conninfo_has_password(conninfo text) RETURNS boolean
 *
 * Whether libpq would take a password (or another secret) from it; an
 * error when libpq cannot read it.
 */
Datum
ranread_conninfo_has_password(PG_FUNCTION_ARGS)
{
	PQconninfoOption *opts = parse_or_error(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	bool		r = has_secret(opts);

	PQconninfoFree(opts);
	PG_RETURN_BOOL(r);
}

/*
 * ranread_conninfo_strip(conninfo text) RETURNS text
 *
 * The connection string as it may be stored and shown: the options libpq
 * reads from it, as keyword = value pairs, without any password.
 */
Datum
ranread_conninfo_strip(PG_FUNCTION_ARGS)
{
	return conninfo_as_text(fcinfo, rebuild);
}

/*
 * ranread_conninfo_name(conninfo text) RETURNS text
 *
 * A node's name in rows and charts: host:port (each of a host list), as
 * libpq will choose them.
 */
Datum
ranread_conninfo_name(PG_FUNCTION_ARGS)
{
	return conninfo_as_text(fcinfo, conninfo_name);
}

/*
 * ranread_conninfo_scrub(msg text, conninfo text) RETURNS text
 *
 * A message with every spelling of the connection string's passwords
 * blanked out.  With a string libpq cannot read, the message is withheld.
 */
Datum
ranread_conninfo_scrub(PG_FUNCTION_ARGS)
{
	char	   *msg;
	char	   *ci;
	const char *problem;
	PQconninfoOption *opts;
	List	   *sp;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	msg = text_to_cstring(PG_GETARG_TEXT_PP(0));
	ci = text_to_cstring(PG_GETARG_TEXT_PP(1));
	opts = parse_conninfo(ci, &problem);
	if (opts == NULL)
		PG_RETURN_TEXT_P(cstring_to_text("(a message withheld: it may hold a password of an unreadable connection string)"));
	sp = secret_spellings(ci, opts);
	PQconninfoFree(opts);
	PG_RETURN_TEXT_P(cstring_to_text(replace_all(msg, sp, SCRUBBED)));
}

/* A plain word (a name of ranread_nodes): [A-Za-z0-9_.-], 1 to 63 bytes */
static bool
plain_word(const char *s)
{
	int			n = strlen(s);

	if (n < 1 || n > 63)
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char) *p) || *p == '_' || *p == '.' || *p == '-'))
			return false;
	return true;
}

/*
 * ranread_conninfo_hide(conninfos text[]) RETURNS void
 *
 * Take the passwords of these connection strings, and any string libpq
 * cannot read whole, out of the running statement's text as the server
 * logs it (the STATEMENT line of an error, a cancel or a terminate) and
 * shows it (pg_stat_activity.query).  The fleet calls this first, before
 * anything can fail.  What log_statement logged before the call began is
 * the server's: docs/fleet.md says to prefer ranread_nodes and a password
 * file.
 */
Datum
ranread_conninfo_hide(PG_FUNCTION_ARGS)
{
	ArrayType  *arr;
	Datum	   *elems;
	bool	   *nulls;
	int			n;
	List	   *pats = NIL;
	char	   *q;

	if (PG_ARGISNULL(0) || debug_query_string == NULL)
		PG_RETURN_VOID();
	arr = PG_GETARG_ARRAYTYPE_P(0);
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
	for (int i = 0; i < n; i++)
	{
		char	   *ci;
		const char *problem;
		PQconninfoOption *opts;

		CHECK_FOR_INTERRUPTS();
		if (nulls[i])
			continue;
		ci = TextDatumGetCString(elems[i]);
		if (ci[0] == '\0')
			continue;
		opts = parse_conninfo(ci, &problem);
		if (opts == NULL && plain_word(ci))
			continue;			/* a node's name, or an unknown one: no secret */
		if (opts == NULL)
		{
			/*
			 * unreadable: any of it may be a password; a short one (no room
			 * for much of a secret) only as a whole literal, lest it spoil
			 * the rest of the text
			 */
			pats = add_patterns(pats, add_spelling(NIL, ci, strlen(ci)),
								"(unreadable connection string)", strlen(ci) < 8);
			continue;
		}
		if (has_secret(opts))
		{
			pats = add_patterns(pats, add_spelling(NIL, ci, strlen(ci)), rebuild(opts), false);
			pats = add_patterns(pats, secret_spellings(ci, opts), SCRUBBED, false);
		}
		PQconninfoFree(opts);
	}
	if (pats == NIL)
		PG_RETURN_VOID();
	q = replace_once(debug_query_string, pats);
	if (strcmp(q, debug_query_string) != 0)
	{
		char	   *copy = MemoryContextStrdup(TopMemoryContext, q);
		char	   *old = hidden_query;

		debug_query_string = copy;
		hidden_query = copy;
		if (old)
			pfree(old);
		if (pgstat_track_activities)
		{
			uint64		qid = pgstat_get_my_query_id();

			pgstat_report_activity(STATE_RUNNING, copy);
			pgstat_report_query_id(qid, true);
		}
	}
	PG_RETURN_VOID();
}

/* ---------------------------------------------------------------------
 * The registry
 * --------------------------------------------------------------------- */

static char *
xstrdup(const char *s)
{
	char	   *r = strdup(s ? s : "");

	if (r == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	return r;
}

static void set_broken(Remote *r, const char *why);

/* ---------------------------------------------------------------------
 * Host names, looked up without blocking
 *
 * libpq looks host names up with getaddrinfo inside PQconnectStartParams
 * and PQconnectPoll, which waits for the resolver without ever looking at
 * the backend's interrupts: a name server that does not answer would hold
 * the call through cancel, statement_timeout and terminate.  So ranread
 * looks each host name of a connection string up itself, with glibc's
 * getaddrinfo_a, all at once, checking for interrupts every few
 * milliseconds and within the connection's deadline; then it connects with
 * hostaddr, one entry per address found, and the host name kept beside it
 * (libpq uses it for TLS's checks and the password file, as it would have).
 * A lookup still running when the call gives it up is cancelled, or left
 * to glibc's helper thread to finish (its memory is freed later).  Not
 * covered: host names that come from a service file (service=...), which
 * libpq reads itself; docs/fleet.md says to give those a hostaddr.
 * --------------------------------------------------------------------- */

typedef struct Lookups
{
	int			n;				/* entries of the host list */
	char	  **host;			/* per entry, malloc'd ("" for none) */
	char	  **hostaddr;
	char	  **port;
	bool		one_port;		/* a single port for every entry */
	struct gaicb *cbs;			/* per entry; ar_name NULL: no lookup */
	struct gaicb **list;		/* those with a lookup */
	int			nlist;
	struct addrinfo hints;
} Lookups;

/* lookups given up while glibc's helper still runs them */
static Lookups *orphans[64];
static int	norphans = 0;

static void
lookups_free(Lookups *l)
{
	for (int i = 0; i < l->n; i++)
	{
		free(l->host[i]);
		free(l->hostaddr[i]);
		free(l->port[i]);
		free((char *) l->cbs[i].ar_name);
		if (l->cbs[i].ar_result)
			freeaddrinfo(l->cbs[i].ar_result);
	}
	free(l->host);
	free(l->hostaddr);
	free(l->port);
	free(l->cbs);
	free(l->list);
	free(l);
}

static bool
lookups_running(Lookups *l)
{
	for (int i = 0; i < l->nlist; i++)
		if (gai_error(l->list[i]) == EAI_INPROGRESS)
			return true;
	return false;
}

/* Free the orphans whose lookups have ended */
static void
orphans_sweep(void)
{
	for (int i = 0; i < norphans;)
	{
		if (lookups_running(orphans[i]))
		{
			i++;
			continue;
		}
		lookups_free(orphans[i]);
		orphans[i] = orphans[--norphans];
	}
}

/* Give up a remote's lookups: cancelled, or left to finish as an orphan */
static void
lookups_abandon(Remote *r)
{
	Lookups    *l = r->lookups;

	if (l == NULL)
		return;
	r->lookups = NULL;
	for (int i = 0; i < l->nlist; i++)
		(void) gai_cancel(l->list[i]);
	if (!lookups_running(l))
	{
		lookups_free(l);
		return;
	}
	orphans_sweep();
	if (norphans < (int) lengthof(orphans))
		orphans[norphans++] = l;
	/* else: a few bytes leaked rather than freed under glibc's helper */
}

/* The entries of a comma-separated list, as libpq splits it (no escapes) */
static char **
split_commas(const char *s, int *n)
{
	int			count = 1;
	char	  **out;
	const char *p = s;

	for (const char *c = s; *c; c++)
		if (*c == ',')
			count++;
	out = calloc(count, sizeof(char *));
	if (out == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	for (int i = 0; i < count; i++)
	{
		const char *e = strchr(p, ',');
		int			len = e ? e - p : (int) strlen(p);
		char	   *v = malloc(len + 1);

		if (v == NULL)
			ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
		memcpy(v, p, len);
		v[len] = '\0';
		out[i] = v;
		p = e ? e + 1 : p + len;
	}
	*n = count;
	return out;
}

/* Does libpq need the resolver for this entry of the host list? */
static bool
needs_lookup(const char *host, const char *hostaddr)
{
	unsigned char buf[sizeof(struct in6_addr)];

	if (hostaddr[0] != '\0' || host[0] == '\0' || host[0] == '/' || host[0] == '@')
		return false;
	return inet_pton(AF_INET, host, buf) != 1 && inet_pton(AF_INET6, host, buf) != 1;
}

static int
kw_index(char **kw, const char *name)
{
	for (int i = 0; kw[i]; i++)
		if (strcmp(kw[i], name) == 0)
			return i;
	return -1;
}

static void free_options(Remote *r);
static void connect_now(Remote *r, const char *const *kw, const char *const *vals);

/*
 * Start the lookups of the host names in r->ckw/r->cval, if any need one;
 * false when none does (connect at once).  Errors of getaddrinfo_a itself
 * break the remote.
 */
static bool
lookups_start(Remote *r)
{
	int			ih = kw_index(r->ckw, "host");
	int			ia = kw_index(r->ckw, "hostaddr");
	int			ip = kw_index(r->ckw, "port");
	const char *hosts = ih >= 0 ? r->cval[ih] : NULL;
	int			nh,
				na = 0,
				np = 0;
	char	  **ha = NULL;
	char	  **pa = NULL;
	Lookups    *l;
	bool		any = false;
	int			rc;

	if (hosts == NULL || hosts[0] == '\0')
		hosts = getenv("PGHOST");
	if (hosts == NULL || hosts[0] == '\0')
		return false;
	l = calloc(1, sizeof(Lookups));
	if (l == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	l->host = split_commas(hosts, &nh);
	l->n = nh;
	if (ia >= 0 && r->cval[ia][0])
		ha = split_commas(r->cval[ia], &na);
	if (ip >= 0 && r->cval[ip][0])
		pa = split_commas(r->cval[ip], &np);
	l->hostaddr = calloc(nh, sizeof(char *));
	l->port = calloc(nh, sizeof(char *));
	l->cbs = calloc(nh, sizeof(struct gaicb));
	l->list = calloc(nh, sizeof(struct gaicb *));
	if (!l->hostaddr || !l->port || !l->cbs || !l->list)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	l->one_port = np <= 1;
	for (int i = 0; i < nh; i++)
	{
		l->hostaddr[i] = xstrdup(ha && i < na ? ha[i] : "");
		l->port[i] = xstrdup(np == 1 ? pa[0] : pa && i < np ? pa[i] : "");
	}
	for (int i = 0; i < na; i++)
		free(ha[i]);
	for (int i = 0; i < np; i++)
		free(pa[i]);
	free(ha);
	free(pa);
	/* lists libpq will refuse (counts that differ): its own error, no lookup */
	if ((na > 0 && na != nh) || (np > 1 && np != nh))
	{
		lookups_free(l);
		return false;
	}
	l->hints.ai_family = AF_UNSPEC;
	l->hints.ai_socktype = SOCK_STREAM;
	for (int i = 0; i < nh; i++)
		if (needs_lookup(l->host[i], l->hostaddr[i]))
		{
			l->cbs[i].ar_name = xstrdup(l->host[i]);
			l->cbs[i].ar_request = &l->hints;
			l->list[l->nlist++] = &l->cbs[i];
			any = true;
		}
	if (!any)
	{
		lookups_free(l);
		return false;
	}
	orphans_sweep();
	rc = getaddrinfo_a(GAI_NOWAIT, l->list, l->nlist, NULL);
	if (rc != 0)
	{
		/* some may have started (EAI_AGAIN): set_broken gives them up */
		const char *why = rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc);

		r->lookups = l;
		set_broken(r, psprintf("could not start the lookup of host name \"%s\": %s",
							   l->list[0]->ar_name, why));
		return true;
	}
	r->lookups = l;
	return true;
}

/* The host, hostaddr and port lists a finished lookup connects to */
typedef struct Entries
{
	StringInfoData host;
	StringInfoData hostaddr;
	StringInfoData port;
	int			n;
} Entries;

static void
entries_add(Entries *e, const char *host, const char *hostaddr, const char *port)
{
	appendStringInfo(&e->host, "%s%s", e->n ? "," : "", host);
	appendStringInfo(&e->hostaddr, "%s%s", e->n ? "," : "", hostaddr);
	appendStringInfo(&e->port, "%s%s", e->n ? "," : "", port);
	e->n++;
}

/*
 * Host i's entries: one for each address its lookup found (IPv4 or IPv6,
 * each once), or the first error of the lookups in *first_error when it
 * found none.
 */
static void
entries_of_lookup(Entries *e, Lookups *l, int i, char **first_error)
{
	List	   *seen = NIL;
	int			err = gai_error(&l->cbs[i]);

	if (err != 0)
	{
		if (*first_error == NULL)
			*first_error = psprintf("could not translate host name \"%s\" to address: %s",
									l->host[i], err == EAI_SYSTEM ? "system error" : gai_strerror(err));
		return;
	}
	for (struct addrinfo *ai = l->cbs[i].ar_result; ai; ai = ai->ai_next)
	{
		char		buf[NI_MAXHOST];
		ListCell   *lc;
		bool		dup = false;

		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		if (getnameinfo(ai->ai_addr, ai->ai_addrlen, buf, sizeof(buf), NULL, 0, NI_NUMERICHOST) != 0)
			continue;
		foreach(lc, seen)
			if (strcmp(lfirst(lc), buf) == 0)
				dup = true;
		if (dup)
			continue;
		seen = lappend(seen, pstrdup(buf));
		entries_add(e, l->host[i], buf, l->port[i]);
	}
	if (seen == NIL && *first_error == NULL)
		*first_error = psprintf("could not translate host name \"%s\" to address: no address found",
								l->host[i]);
}

/* Connect with the remote's options, host, hostaddr and port replaced by e */
static void
connect_to_entries(Remote *r, Entries *e)
{
	int			ih = -1,
				ia = -1,
				ip = -1,
				nkw = 0;
	const char **kw;
	const char **vals;

	for (int i = 0; r->ckw[i]; i++)
		nkw++;
	kw = palloc0(sizeof(char *) * (nkw + 4));
	vals = palloc0(sizeof(char *) * (nkw + 4));
	for (int i = 0; i < nkw; i++)
	{
		kw[i] = r->ckw[i];
		vals[i] = r->cval[i];
		if (strcmp(kw[i], "host") == 0)
			ih = i;
		else if (strcmp(kw[i], "hostaddr") == 0)
			ia = i;
		else if (strcmp(kw[i], "port") == 0)
			ip = i;
	}
	if (ih < 0)
	{
		kw[nkw] = "host";
		ih = nkw++;
	}
	if (ia < 0)
	{
		kw[nkw] = "hostaddr";
		ia = nkw++;
	}
	vals[ih] = e->host.data;
	vals[ia] = e->hostaddr.data;
	/* one port for every entry stays one; a list follows the entries */
	if (ip >= 0 && strchr(vals[ip], ',') != NULL)
		vals[ip] = e->port.data;
	kw[nkw] = NULL;
	vals[nkw] = NULL;
	connect_now(r, kw, vals);
}

/* The lookups are over: connect to every address found, or break */
static void
lookups_finish(Remote *r)
{
	Lookups    *l = r->lookups;
	Entries		e;
	char	   *first_error = NULL;

	initStringInfo(&e.host);
	initStringInfo(&e.hostaddr);
	initStringInfo(&e.port);
	e.n = 0;
	for (int i = 0; i < l->n; i++)
	{
		if (l->cbs[i].ar_name == NULL)
			entries_add(&e, l->host[i], l->hostaddr[i], l->port[i]);
		else
			entries_of_lookup(&e, l, i, &first_error);
	}
	lookups_free(l);
	r->lookups = NULL;
	if (e.n == 0)
	{
		set_broken(r, first_error ? first_error : "no address to connect to");
		return;
	}
	connect_to_entries(r, &e);
	free_options(r);
}

/* A copy of s with the remote's passwords blanked out, malloc'd */
static char *
scrubbed(Remote *r, const char *s)
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
	out = l ? replace_all(t, l, SCRUBBED) : t;
	return xstrdup(out);
}

static void
clear_outcome(Remote *r)
{
	free(r->value);
	free(r->message);
	free(r->detail);
	r->value = r->message = r->detail = NULL;
	r->failed = false;
	r->sqlstate[0] = '\0';
}

/* Close the remote's connection, if any, and give back its file descriptor */
static void
close_connection(Remote *r)
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

/*
 * Keep v, the first column of an answer's first row, as the remote's value;
 * a value not valid in this database's encoding (from a server whose
 * encoding converts nothing, as SQL_ASCII) is an answer that failed, since
 * nothing here could hold it
 */
static void
take_value(Remote *r, const char *v)
{
	free(r->value);
	r->value = NULL;
	if (v == NULL)
		return;
	if (!pg_verifymbstr(v, strlen(v), true))
	{
		r->failed = true;
		strlcpy(r->sqlstate, "22021", sizeof(r->sqlstate));
		r->message = xstrdup("the server answered with bytes that are not valid in this database's encoding");
		return;
	}
	r->value = xstrdup(v);
}

/* The remote broke: keep why, close its connection */
static void
set_broken(Remote *r, const char *why)
{
	char	   *m = scrubbed(r, why && why[0] ? why : "the connection was lost");

	clear_outcome(r);
	r->failed = true;
	strlcpy(r->sqlstate, "08006", sizeof(r->sqlstate));
	r->message = m;
	r->state = RS_BROKEN;
	lookups_abandon(r);
	free_options(r);
	close_connection(r);
}

static void
free_remote(Remote *r)
{
	/* its last words, sent without waiting: its own server runs them */
	if (r->last_words && r->conn && r->state == RS_IDLE &&
		PQstatus(r->conn) == CONNECTION_OK && PQsendQuery(r->conn, r->last_words))
		(void) PQflush(r->conn);
	lookups_abandon(r);
	free_options(r);
	free(r->last_words);
	free(r->queued);
	free(r->host);
	free(r->port);
	free(r->hostaddr);
	close_connection(r);
	clear_outcome(r);
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

static Remote *
find_remote(const char *name)
{
	for (int i = 0; i < nremotes; i++)
		if (strcmp(remotes[i]->name, name) == 0)
			return remotes[i];
	return NULL;
}

static void
drop_remote(Remote *r)
{
	for (int i = 0; i < nremotes; i++)
		if (remotes[i] == r)
		{
			remotes[i] = remotes[--nremotes];
			break;
		}
	free_remote(r);
}

/*
 * The end of every connection, each with its last words (sent without
 * waiting).  Never throws: it runs at transaction end and at backend exit.
 */
static void
remote_end_all(void)
{
	while (nremotes > 0)
		free_remote(remotes[--nremotes]);
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

static void
set_callbacks(void)
{
	if (callbacks_set)
		return;
	RegisterXactCallback(remote_xact_callback, NULL);
	before_shmem_exit(remote_exit_callback, (Datum) 0);
	callbacks_set = true;
}

static void
check_name(const char *name)
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
	List	   *sp = secret_spellings(conninfo, opts);
	ListCell   *lc;

	r->secrets = calloc(list_length(sp) + 1, sizeof(char *));
	if (r->secrets == NULL)
		ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
	foreach(lc, sp)
		r->secrets[r->nsecrets++] = xstrdup(lfirst(lc));
	r->conninfo = xstrdup(conninfo);
}

/*
 * The connect timeout, and why it is that: the string's connect_timeout
 * (libpq's rules), else ranread's; timeout_ms (>= 0) when shorter.  The
 * deadline runs from now.
 */
static void
remote_set_timeout(Remote *r, PQconninfoOption *opts, int timeout_ms)
{
	const char *ct = opt_value(opts, "connect_timeout");

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
		r->ckw[i] = xstrdup(kw[i]);
		r->cval[i] = xstrdup(vals[i]);
	}
}

/*
 * A new remote, connecting; its outcome tells a failure.  pin: the server
 * another remote connected to (a cancel's connection goes to that one host
 * of a host list, never to another that could have a session of that pid).
 */
static Remote *
remote_start(const char *name, const char *conninfo, int timeout_ms, bool registered,
			 Remote *pin)
{
	Remote	   *r = remote_new(name, registered);
	const char *problem;
	PQconninfoOption *opts;

	opts = parse_conninfo(conninfo, &problem);
	if (opts == NULL)
	{
		set_broken(r, psprintf("invalid connection string: %s", problem));
		return r;
	}
	remote_keep_secrets(r, conninfo, opts);

	/* dblink's rule for non-superusers: a password given, and asked for */
	if (!superuser() && !has_secret(opts))
	{
		PQconninfoFree(opts);
		set_broken(r, "a password is required: a role that is not a superuser must give one in the connection string (and the server must ask for it)");
		return r;
	}
	remote_set_timeout(r, opts, timeout_ms);
	remote_keep_options(r, opts, pin);
	PQconninfoFree(opts);
	r->state = RS_CONNECTING;
	if (lookups_start(r))
		return r;
	connect_now(r, (const char *const *) r->ckw, (const char *const *) r->cval);
	free_options(r);
	return r;
}

static void
free_options(Remote *r)
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

/*
 * A node's NOTICEs and WARNINGs: dropped.  libpq's default prints them to
 * this backend's stderr, that is raw into the server log (no prefix, a
 * node's newlines kept, as many as a node cares to send); what a node has
 * to say that matters comes back as its answer or its error.
 */
static void
drop_notice(void *arg, const PGresult *res)
{
}

/* Connect with these options, without waiting */
static void
connect_now(Remote *r, const char *const *kw, const char *const *vals)
{
	if (!AcquireExternalFD())
	{
		set_broken(r, "too many files open in this backend for one more connection");
		return;
	}
	r->have_fd = true;
	r->conn = PQconnectStartParams(kw, vals, 0);
	if (r->conn == NULL)
	{
		set_broken(r, "out of memory");
		return;
	}
	PQsetNoticeReceiver(r->conn, drop_notice, NULL);
	if (PQstatus(r->conn) == CONNECTION_BAD)
	{
		set_broken(r, PQerrorMessage(r->conn));
		return;
	}
	r->state = RS_CONNECTING;
	r->poll = PGRES_POLLING_WRITING;
}

static bool remote_send(Remote *r, const char *sql);

/* The connection is up: checks, then idle (or busy with a queued query) */
static void
remote_connected(Remote *r)
{
	if (PQsetnonblocking(r->conn, 1) != 0)
	{
		set_broken(r, PQerrorMessage(r->conn));
		return;
	}
	if (!superuser() && !PQconnectionUsedPassword(r->conn))
	{
		set_broken(r, "a password is required: the server did not ask for the password given, and a role that is not a superuser may not connect without one");
		return;
	}
	r->pid = PQbackendPID(r->conn);
	r->host = PQhost(r->conn) ? xstrdup(PQhost(r->conn)) : NULL;
	r->port = PQport(r->conn) ? xstrdup(PQport(r->conn)) : NULL;
	r->hostaddr = PQhostaddr(r->conn) && PQhostaddr(r->conn)[0] ? xstrdup(PQhostaddr(r->conn)) : NULL;
	r->local_port = -1;
	{
		struct sockaddr_storage ss;
		socklen_t	len = sizeof(ss);

		if (getsockname(PQsocket(r->conn), (struct sockaddr *) &ss, &len) == 0)
		{
			if (ss.ss_family == AF_INET)
				r->local_port = ntohs(((struct sockaddr_in *) &ss)->sin_port);
			else if (ss.ss_family == AF_INET6)
				r->local_port = ntohs(((struct sockaddr_in6 *) &ss)->sin6_port);
		}
	}
	r->state = RS_IDLE;
	if (r->queued)
	{
		char	   *q = r->queued;

		r->queued = NULL;
		(void) remote_send(r, q);
		free(q);
	}
}

/* Bytes the socket has received so far (TCP; 0 on a Unix socket) */
static uint64
tcp_received(Remote *r)
{
	struct tcp_info ti;
	socklen_t	len = sizeof(ti);

	if (r->conn == NULL || r->local_port < 0 || PQsocket(r->conn) < 0)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(PQsocket(r->conn), IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
		len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
		return 0;
	return ti.tcpi_bytes_received;
}

/*
 * Has the answer in flight passed ranread's limit?  Its rows as read, and
 * over TCP every byte received since the query was sent (a single row
 * libpq is still gathering counts there).  Then the connection is broken:
 * a node cannot make this backend's memory grow without bound.
 */
static bool
over_limit(Remote *r)
{
	uint64		tcp;

	if (r->result_bytes <= RANREAD_MAX_RESULT_BYTES)
	{
		tcp = tcp_received(r);
		if (tcp == 0 || tcp < r->tcp_base ||
			tcp - r->tcp_base <= (uint64) RANREAD_MAX_RESULT_BYTES + 1024 * 1024)
			return false;
	}
	set_broken(r, psprintf("the server at %s:%s sent more than %d MB for one answer, ranread's limit: the connection was closed",
						   r->host ? r->host : "?", r->port ? r->port : "?",
						   RANREAD_MAX_RESULT_BYTES / (1024 * 1024)));
	return true;
}

/* One result of a query, into the outcome */
static void
remote_take(Remote *r, PGresult *res)
{
	switch (PQresultStatus(res))
	{
		case PGRES_SINGLE_TUPLE:
			/* the first row of each result set: the last set's is the value */
			for (int f = 0; f < PQnfields(res); f++)
				r->result_bytes += PQgetlength(res, 0, f) + 4;
			r->result_bytes += 16;
			if (!r->failed && !r->in_set)
				take_value(r, PQnfields(res) > 0 && !PQgetisnull(res, 0, 0) ? PQgetvalue(res, 0, 0) : NULL);
			r->in_set = true;
			break;
		case PGRES_TUPLES_OK:
			/* the end of a result set (all of it when not one row at a time) */
			if (!r->failed && !r->in_set)
				take_value(r, PQntuples(res) > 0 && PQnfields(res) > 0 && !PQgetisnull(res, 0, 0)
						   ? PQgetvalue(res, 0, 0) : NULL);
			r->in_set = false;
			break;
		case PGRES_COMMAND_OK:
		case PGRES_EMPTY_QUERY:
			break;
		case PGRES_COPY_IN:
		case PGRES_COPY_OUT:
		case PGRES_COPY_BOTH:
			if (!r->failed)
			{
				r->failed = true;
				strlcpy(r->sqlstate, "08P01", sizeof(r->sqlstate));
				r->message = xstrdup("the server began a COPY, which ranread never asks for");
			}
			break;
		default:
			if (!r->failed)
			{
				const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
				const char *m = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
				const char *d = PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL);

				r->failed = true;
				strlcpy(r->sqlstate, st && strlen(st) == 5 ? st : "08006", sizeof(r->sqlstate));
				r->message = scrubbed(r, m ? m : PQresultErrorMessage(res));
				r->detail = d ? scrubbed(r, d) : NULL;
			}
			break;
	}
	PQclear(res);
}

/*
 * Progress on a remote without blocking.  ready: its socket reported ready
 * for what it waited for (PQconnectPoll may be called only then).
 */
static void
remote_step(Remote *r, bool ready)
{
	if (r->state == RS_CONNECTING && r->lookups)
	{
		if (!lookups_running(r->lookups))
		{
			lookups_finish(r);
			return;
		}
		if (r->deadline != 0 && GetCurrentTimestamp() >= r->deadline)
		{
			const char *name = "";

			for (int i = 0; i < r->lookups->nlist; i++)
				if (gai_error(r->lookups->list[i]) == EAI_INPROGRESS)
				{
					name = r->lookups->list[i]->ar_name;
					break;
				}
			set_broken(r, psprintf("the lookup of host name \"%s\" did not finish within %d ms (%s)",
								   name, r->timeout_ms, r->timeout_why));
		}
		return;
	}
	if (r->state == RS_CONNECTING)
	{
		if (ready && r->conn)
		{
			r->poll = PQconnectPoll(r->conn);
			if (r->poll == PGRES_POLLING_OK)
			{
				remote_connected(r);
				return;
			}
			if (r->poll == PGRES_POLLING_FAILED)
			{
				set_broken(r, PQerrorMessage(r->conn));
				return;
			}
		}
		if (r->deadline != 0 && GetCurrentTimestamp() >= r->deadline)
			set_broken(r, psprintf("the server did not answer the connection within %d ms (%s)",
								   r->timeout_ms, r->timeout_why));
		return;
	}
	if (r->state != RS_BUSY)
		return;
	if (r->flushing)
	{
		int			f = PQflush(r->conn);

		if (f < 0)
		{
			set_broken(r, PQerrorMessage(r->conn));
			return;
		}
		r->flushing = f == 1;
	}
	if (!PQconsumeInput(r->conn))
	{
		set_broken(r, PQerrorMessage(r->conn));
		return;
	}
	if (over_limit(r))
		return;
	while (!PQisBusy(r->conn))
	{
		PGresult   *res = PQgetResult(r->conn);

		if (res == NULL)
		{
			r->state = RS_DONE;
			break;
		}
		remote_take(r, res);
		CHECK_FOR_INTERRUPTS();
		if (over_limit(r))
			return;
	}
	if (r->state == RS_DONE && PQstatus(r->conn) == CONNECTION_BAD)
	{
		/* keep the outcome (the error that ended it), drop the connection */
		close_connection(r);
	}
}

static bool
remote_waiting(Remote *r)
{
	return r->state == RS_CONNECTING || r->state == RS_BUSY;
}

/*
 * One wait for any of the remotes to make progress, at most timeout_ms
 * (-1: no bound; a connecting remote's deadline shortens it), then the
 * progress made.  Interrupts are served here.
 */
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
static void
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
static long
ms_left(TimestampTz until)
{
	long		left;

	if (until == 0)
		return -1;
	left = (long) ((until - GetCurrentTimestamp()) / 1000);
	return Max(left, 0);
}

static TimestampTz
deadline_in(int timeout_ms)
{
	if (timeout_ms < 0)
		return 0;
	return TimestampTzPlusMilliseconds(GetCurrentTimestamp(), timeout_ms);
}

/* Wait until no remote of rs is waiting any more, or until */
static void
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
		left = ms_left(until);
		if (left == 0)
			return;
		remote_wait_once(rs, n, left);
	}
}

/*
 * Progress on one remote until it waits no more (true: it answered, failed
 * or broke) or until passes first (false: it is still waiting).
 */
static bool
remote_await(Remote **r, TimestampTz until)
{
	for (;;)
	{
		long		left;

		if (remote_waiting(*r))
			remote_step(*r, false);
		if (!remote_waiting(*r))
			return true;
		left = ms_left(until);
		if (left == 0)
			return false;
		remote_wait_once(r, 1, left);
	}
}

static Remote *
get_remote(text *t)
{
	char	   *name = text_to_cstring(t);
	Remote	   *r = find_remote(name);

	if (r == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("there is no connection named \"%s\"", name)));
	return r;
}

/* A text[] argument as C strings; NULL elements NULL */
static char **
text_array(ArrayType *arr, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **out;

	if (ARR_NDIM(arr) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("a one-dimensional array is needed")));
	deconstruct_array(arr, TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, n);
	out = palloc0(sizeof(char *) * (*n + 1));
	for (int i = 0; i < *n; i++)
		out[i] = nulls[i] ? NULL : TextDatumGetCString(elems[i]);
	return out;
}

static int
timeout_arg(FunctionCallInfo fcinfo, int argno)
{
	int			t;

	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return -1;
	t = PG_GETARG_INT32(argno);
	return t < 0 ? 0 : t;
}

/* ---------------------------------------------------------------------
 * SQL functions
 * --------------------------------------------------------------------- */

/* A one-dimensional array of n elements of type (text or boolean) */
static ArrayType *
result_array(Datum *out, bool *outnull, int n, Oid type)
{
	int			dims[1] = {n};
	int			lbs[1] = {1};

	Assert(type == TEXTOID || type == BOOLOID);
	if (type == BOOLOID)
		return construct_md_array(out, outnull, n == 0 ? 0 : 1, dims, lbs,
								  BOOLOID, 1, true, TYPALIGN_CHAR);
	return construct_md_array(out, outnull, n == 0 ? 0 : 1, dims, lbs,
							  TEXTOID, -1, false, TYPALIGN_INT);
}

/*
 * ranread_remote_connect(names text[], conninfos text[], timeout_ms integer,
 *						  wait boolean) RETURNS text[]
 *
 * Connect each name to its server, all at once, each within its
 * connection string's connect_timeout (ranread's 10 s when it gives none)
 * and within timeout_ms (NULL: no more bound).  Returns, per name, NULL when
 * connected, else why not (without its passwords).  A name already open is
 * closed first.  With wait false, returns at once: NULL for those still
 * connecting, whose first query (ranread_remote_send) waits for the
 * connection, and ranread_remote_wait reports them when they fail.
 */
Datum
ranread_remote_connect(PG_FUNCTION_ARGS)
{
	int			n,
				m;
	char	  **names;
	char	  **cis;
	int			timeout = timeout_arg(fcinfo, 2);
	bool		wait = PG_NARGS() < 4 || PG_ARGISNULL(3) || PG_GETARG_BOOL(3);
	Remote	  **rs;
	Datum	   *out;
	bool	   *outnull;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("names and conninfos of ranread_remote_connect must not be null")));
	names = text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	cis = text_array(PG_GETARG_ARRAYTYPE_P(1), &m);
	if (n != m)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ranread_remote_connect needs as many connection strings as names, not %d and %d", m, n)));
	set_callbacks();
	for (int i = 0; i < n; i++)
	{
		Remote	   *old;

		if (names[i] == NULL || cis[i] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("names and conninfos of ranread_remote_connect must not hold a null")));
		check_name(names[i]);
		if ((old = find_remote(names[i])) != NULL)
			drop_remote(old);
	}
	rs = palloc0(sizeof(Remote *) * (n + 1));
	for (int i = 0; i < n; i++)
		rs[i] = remote_start(names[i], cis[i], timeout, true, NULL);
	if (wait)
		remote_wait_all(rs, n, 0);

	out = palloc(sizeof(Datum) * (n + 1));
	outnull = palloc(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
	{
		outnull[i] = rs[i]->state != RS_BROKEN;
		out[i] = outnull[i] ? (Datum) 0 :
			PointerGetDatum(cstring_to_text(rs[i]->message ? rs[i]->message : "the connection failed"));
	}
	PG_RETURN_ARRAYTYPE_P(result_array(out, outnull, n, TEXTOID));
}

/* Send a query on an idle remote; false (and broken) when it cannot */
static bool
remote_send(Remote *r, const char *sql)
{
	int			f;

	if (r->state == RS_DONE)
	{
		clear_outcome(r);
		r->state = RS_IDLE;
	}
	if (r->state == RS_CONNECTING && r->queued == NULL)
	{
		r->queued = xstrdup(sql);
		return true;
	}
	if (r->state == RS_BUSY || r->state == RS_CONNECTING)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("connection \"%s\" is %s: its outcome must be read first", r->name, state_names[r->state])));
	if (r->state != RS_IDLE || r->conn == NULL)
		return false;
	clear_outcome(r);
	if (!PQsendQuery(r->conn, sql))
	{
		set_broken(r, PQerrorMessage(r->conn));
		return false;
	}
	/* rows one at a time, each dropped once read: see remote_take */
	(void) PQsetSingleRowMode(r->conn);
	r->in_set = false;
	r->result_bytes = 0;
	r->tcp_base = tcp_received(r);
	f = PQflush(r->conn);
	if (f < 0)
	{
		set_broken(r, PQerrorMessage(r->conn));
		return false;
	}
	r->flushing = f == 1;
	r->state = RS_BUSY;
	return true;
}

/*
 * ranread_remote_send(name text, sql text) RETURNS text
 *
 * Send a query without waiting for it.  NULL when sent; else why not (the
 * connection is broken).
 */
Datum
ranread_remote_send(PG_FUNCTION_ARGS)
{
	Remote	   *r = get_remote(PG_GETARG_TEXT_PP(0));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));

	if (remote_send(r, sql))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(r->message ? r->message : "the connection is closed"));
}

/*
 * ranread_remote_wait(names text[], timeout_ms integer) RETURNS text[]
 *
 * Wait, at most timeout_ms (NULL: until one is ready), until the outcome of
 * at least one of the named connections is ready (its query answered,
 * failed, or its connection broken); returns the names that are ready, in
 * their order (empty when the time ran out).
 */
Datum
ranread_remote_wait(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names = text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	TimestampTz until = deadline_in(timeout_arg(fcinfo, 1));
	Remote	  **rs = palloc0(sizeof(Remote *) * (n + 1));
	int			nr = 0;
	ArrayBuildState *astate = NULL;

	for (int i = 0; i < n; i++)
		if (names[i])
		{
			Remote	   *r = find_remote(names[i]);

			if (r == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_OBJECT),
						 errmsg("there is no connection named \"%s\"", names[i])));
			rs[nr++] = r;
		}
	for (;;)
	{
		bool		ready = false;
		bool		waiting = false;
		long		left;

		for (int i = 0; i < nr; i++)
		{
			if (remote_waiting(rs[i]))
			{
				remote_step(rs[i], false);
				waiting = waiting || remote_waiting(rs[i]);
			}
			if (rs[i]->state == RS_DONE || rs[i]->state == RS_BROKEN)
				ready = true;
		}
		if (ready || !waiting)
			break;
		left = ms_left(until);
		if (left == 0)
			break;
		remote_wait_once(rs, nr, left);
	}
	astate = initArrayResult(TEXTOID, CurrentMemoryContext, false);
	for (int i = 0; i < nr; i++)
		if (rs[i]->state == RS_DONE || rs[i]->state == RS_BROKEN)
			astate = accumArrayResult(astate, PointerGetDatum(cstring_to_text(rs[i]->name)),
									  false, TEXTOID, CurrentMemoryContext);
	PG_RETURN_DATUM(makeArrayResult(astate, CurrentMemoryContext));
}

/* The outcome as jsonb; taken (the remote is idle again) unless busy */
static Datum
outcome_jsonb(Remote *r)
{
	StringInfoData b;

	initStringInfo(&b);
	appendStringInfo(&b, "{\"state\": ");
	if (r->state == RS_DONE)
		escape_json(&b, r->failed ? "error" : "ok");
	else
		escape_json(&b, state_names[r->state]);
	if (r->state == RS_DONE && !r->failed)
	{
		appendStringInfoString(&b, ", \"value\": ");
		if (r->value)
			escape_json(&b, r->value);
		else
			appendStringInfoString(&b, "null");
	}
	if (r->failed)
	{
		appendStringInfoString(&b, ", \"sqlstate\": ");
		escape_json(&b, r->sqlstate);
		appendStringInfoString(&b, ", \"message\": ");
		escape_json(&b, r->message ? r->message : "");
		if (r->detail)
		{
			appendStringInfoString(&b, ", \"detail\": ");
			escape_json(&b, r->detail);
		}
	}
	appendStringInfoChar(&b, '}');
	if (r->state == RS_DONE)
	{
		clear_outcome(r);
		r->state = r->conn ? RS_IDLE : RS_BROKEN;
		if (r->state == RS_BROKEN)
		{
			r->failed = true;
			strlcpy(r->sqlstate, "08006", sizeof(r->sqlstate));
			r->message = xstrdup("the connection was lost");
		}
	}
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(b.data));
}

/*
 * ranread_remote_result(name text, timeout_ms integer) RETURNS jsonb
 *
 * The outcome of the query in flight, waiting at most timeout_ms (NULL:
 * until it comes): {"state": "ok", "value": ...} (the first column of the
 * first row, or null), {"state": "error", "sqlstate", "message", "detail"}
 * (the node's error), {"state": "broken", ...} (the connection is lost),
 * {"state": "busy"} (no answer yet) or {"state": "idle"} (nothing sent).
 */
Datum
ranread_remote_result(PG_FUNCTION_ARGS)
{
	Remote	   *r = get_remote(PG_GETARG_TEXT_PP(0));
	TimestampTz until = deadline_in(timeout_arg(fcinfo, 1));

	(void) remote_await(&r, until);
	PG_RETURN_DATUM(outcome_jsonb(r));
}

/*
 * ranread_remote_query(name text, sql text, timeout_ms integer) RETURNS text
 *
 * A query and its answer (the first column of the first row), within
 * timeout_ms (NULL: no bound).  The node's error is raised with its
 * SQLSTATE, but for a cancel there (57000, so that plpgsql's WHEN OTHERS
 * tells it from a cancel of this call) and an internal error (38000); a
 * connection that is lost, or does not answer in time (then closed),
 * raises 08006.
 */
Datum
ranread_remote_query(PG_FUNCTION_ARGS)
{
	Remote	   *r = get_remote(PG_GETARG_TEXT_PP(0));
	char	   *sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int			timeout = timeout_arg(fcinfo, 2);
	TimestampTz until = deadline_in(timeout);
	char	   *value;

	if (!remote_send(r, sql))
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("%s", r->message ? r->message : "the connection is closed")));
	if (!remote_await(&r, until))
		set_broken(r, psprintf("the server did not answer within %d ms", timeout));
	if (r->state == RS_BROKEN || r->failed)
	{
		char		st[6];
		char	   *m = pstrdup(r->message ? r->message : "the query failed");
		char	   *d = r->detail ? pstrdup(r->detail) : NULL;

		strlcpy(st, r->sqlstate[0] ? r->sqlstate : "08006", sizeof(st));
		if (st[0] == 'X' && st[1] == 'X')
			strlcpy(st, "38000", sizeof(st));
		if (strcmp(st, "57014") == 0)
			strlcpy(st, "57000", sizeof(st));
		if (r->state == RS_DONE)
		{
			clear_outcome(r);
			r->state = r->conn ? RS_IDLE : RS_BROKEN;
		}
		ereport(ERROR,
				(errcode(MAKE_SQLSTATE(st[0], st[1], st[2], st[3], st[4])),
				 errmsg("%s", m),
				 d ? errdetail("%s", d) : 0));
	}
	value = r->value ? pstrdup(r->value) : NULL;
	clear_outcome(r);
	r->state = r->conn ? RS_IDLE : RS_BROKEN;
	if (value == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(value));
}

/*
 * A query on a fresh connection to the very server each named connection
 * is on (same connection string, pinned to its host and port), all at
 * once, everything within timeout_ms: the outcome of each in side[i] (NULL
 * where sqls[i] is NULL or the named one is not busy), to be freed by the
 * caller (free_remote).
 */
static void
side_queries(char **names, int n, char **sqls, int timeout, Remote **side)
{
	TimestampTz until = deadline_in(timeout);
	bool	   *sent = palloc0(sizeof(bool) * (n + 1));

	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? find_remote(names[i]) : NULL;

		if (r == NULL || sqls[i] == NULL || r->state != RS_BUSY || r->conninfo == NULL || r->pid == 0)
			continue;
		side[i] = remote_start("side", r->conninfo, timeout, false, r);
	}
	for (;;)
	{
		bool		waiting = false;
		long		left;
		Remote	  **live = palloc0(sizeof(Remote *) * (n + 1));
		int			nl = 0;

		for (int i = 0; i < n; i++)
		{
			if (side[i] == NULL)
				continue;
			if (side[i]->state == RS_IDLE && !sent[i])
			{
				sent[i] = true;
				if (!remote_send(side[i], sqls[i]))
					continue;
			}
			if (remote_waiting(side[i]))
			{
				waiting = true;
				live[nl++] = side[i];
			}
		}
		if (!waiting)
			break;
		left = ms_left(until);
		if (left == 0)
			break;
		remote_wait_once(live, nl, left);
	}
}

/*
 * side_queries, then each answer (the first column of the first row, in
 * this memory context), or NULL where there is none: no query, no answer in
 * time, or a failure.  The side connections are closed whatever happens.
 */
static char **
side_answers(char **names, int n, char **sqls, int timeout)
{
	Remote	  **side = palloc0(sizeof(Remote *) * (n + 1));
	char	  **answers = palloc0(sizeof(char *) * (n + 1));

	PG_TRY();
	{
		side_queries(names, n, sqls, timeout, side);
		for (int i = 0; i < n; i++)
			if (side[i] && side[i]->state == RS_DONE && !side[i]->failed && side[i]->value)
				answers[i] = pstrdup(side[i]->value);
	}
	PG_FINALLY();
	{
		for (int i = 0; i < n; i++)
			if (side[i])
				free_remote(side[i]);
	}
	PG_END_TRY();
	return answers;
}

/*
 * ranread_remote_cancel(names text[], timeout_ms integer) RETURNS boolean[]
 *
 * Cancel the query in flight on each named connection: a fresh connection
 * to its server (same connection string) asks pg_cancel_backend() of the
 * busy session, all at once, everything within timeout_ms.  Per name,
 * whether the server took the cancel; a server that does not answer in
 * time is given up (false).  Nothing here can wait longer.
 */
Datum
ranread_remote_cancel(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names = text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	int			timeout = timeout_arg(fcinfo, 1);
	char	  **sqls = palloc0(sizeof(char *) * (n + 1));
	char	  **answers;
	Datum	   *out = palloc0(sizeof(Datum) * (n + 1));
	bool	   *outnull = palloc0(sizeof(bool) * (n + 1));

	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? find_remote(names[i]) : NULL;

		/* that session: its pid and, over TCP, our end's port */
		if (r)
			sqls[i] = psprintf("SELECT pg_catalog.pg_cancel_backend(a.pid) FROM pg_catalog.pg_stat_activity a"
							   " WHERE a.pid = %d AND (%d < 0 OR a.client_port = %d)",
							   r->pid, r->local_port, r->local_port);
	}
	answers = side_answers(names, n, sqls, timeout);
	for (int i = 0; i < n; i++)
		out[i] = BoolGetDatum(answers[i] && strcmp(answers[i], "t") == 0);
	PG_RETURN_ARRAYTYPE_P(result_array(out, outnull, n, BOOLOID));
}

/*
 * ranread_remote_probe(names text[], sql text, timeout_ms integer) RETURNS text[]
 *
 * Ask the server of each busy named connection a question on a fresh
 * connection (as ranread_remote_cancel does), all at once, everything
 * within timeout_ms: per name, the answer (the first column of the first
 * row), or NULL when the connection is not busy, or its server did not
 * answer in time or failed.  A fleet run by iterations uses it to tell a
 * node at work from a frozen one.
 */
Datum
ranread_remote_probe(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names;
	char	   *sql;
	int			timeout = timeout_arg(fcinfo, 2);
	char	  **sqls;
	char	  **answers;
	Datum	   *out;
	bool	   *outnull;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("names and sql of ranread_remote_probe must not be null")));
	names = text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	sqls = palloc0(sizeof(char *) * (n + 1));
	out = palloc0(sizeof(Datum) * (n + 1));
	outnull = palloc0(sizeof(bool) * (n + 1));
	for (int i = 0; i < n; i++)
		sqls[i] = sql;
	answers = side_answers(names, n, sqls, timeout);
	for (int i = 0; i < n; i++)
	{
		outnull[i] = answers[i] == NULL;
		if (!outnull[i])
			out[i] = PointerGetDatum(cstring_to_text(answers[i]));
	}
	PG_RETURN_ARRAYTYPE_P(result_array(out, outnull, n, TEXTOID));
}

/*
 * ranread_remote_state(name text) RETURNS text
 *
 * connecting, idle, busy, done, broken, or NULL when there is no such
 * connection.  A busy one is checked for news first, without waiting.
 */
Datum
ranread_remote_state(PG_FUNCTION_ARGS)
{
	Remote	   *r = find_remote(text_to_cstring(PG_GETARG_TEXT_PP(0)));

	if (r == NULL)
		PG_RETURN_NULL();
	if (r->state == RS_BUSY)
		remote_step(r, false);
	PG_RETURN_TEXT_P(cstring_to_text(state_names[r->state]));
}

/*
 * ranread_remote_close(names text[]) RETURNS void
 *
 * Close the named connections that are open (without waiting for anything:
 * a query in flight is abandoned, and its server sees the connection go).
 */
Datum
ranread_remote_close(PG_FUNCTION_ARGS)
{
	int			n;
	char	  **names;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	names = text_array(PG_GETARG_ARRAYTYPE_P(0), &n);
	for (int i = 0; i < n; i++)
	{
		Remote	   *r = names[i] ? find_remote(names[i]) : NULL;

		if (r)
			drop_remote(r);
	}
	PG_RETURN_VOID();
}

/*
 * ranread_remote_last_words(name text, sql text) RETURNS void
 *
 * The statement to send on the named connection when it is closed, by
 * ranread_remote_close, at the end of the transaction or when this backend
 * exits (a terminate), unless the call clears it first (sql NULL): see the
 * top of this file.  It is sent only on a connection with nothing in
 * flight, and without waiting for it.
 */
Datum
ranread_remote_last_words(PG_FUNCTION_ARGS)
{
	Remote	   *r;

	if (PG_ARGISNULL(0))
		PG_RETURN_VOID();
	r = get_remote(PG_GETARG_TEXT_PP(0));
	free(r->last_words);
	r->last_words = PG_ARGISNULL(1) ? NULL : xstrdup(text_to_cstring(PG_GETARG_TEXT_PP(1)));
	PG_RETURN_VOID();
}
