/*
 * lookup.c
 *		Host names looked up without blocking (src/fleet/remote.h).
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
 * libpq reads itself; docs/fleet.md, "Fleet" says to give those a hostaddr.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"

#include "remote.h"

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

bool
lookups_running(Lookups *l)
{
	for (int i = 0; i < l->nlist; i++)
		if (gai_error(l->list[i]) == EAI_INPROGRESS)
			return true;
	return false;
}

/* The host name of a lookup still running ("" when none is) */
const char *
lookups_pending(Lookups *l)
{
	for (int i = 0; i < l->nlist; i++)
		if (gai_error(l->list[i]) == EAI_INPROGRESS)
			return l->list[i]->ar_name;
	return "";
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
void
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


/*
 * Start the lookups of the host names in r->ckw/r->cval, if any need one;
 * false when none does (connect at once).  Errors of getaddrinfo_a itself
 * break the remote.
 */
bool
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
		l->hostaddr[i] = remote_strdup(ha && i < na ? ha[i] : "");
		l->port[i] = remote_strdup(np == 1 ? pa[0] : pa && i < np ? pa[i] : "");
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
			l->cbs[i].ar_name = remote_strdup(l->host[i]);
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
		remote_set_broken(r, psprintf("could not start the lookup of host name \"%s\": %s",
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
	remote_connect_now(r, kw, vals);
}

/* The lookups are over: connect to every address found, or break */
void
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
		remote_set_broken(r, first_error ? first_error : "no address to connect to");
		return;
	}
	connect_to_entries(r, &e);
	remote_free_options(r);
}

