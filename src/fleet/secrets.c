/*
 * secrets.c
 *		Every spelling a password may take in text, and text with those
 *		spellings replaced (src/fleet/remote.h).
 *
 * A password is whatever libpq keeps secret: every option its
 * PQconninfoParse marks with dispchar "*" (password, sslpassword).  It may
 * appear in a message or in a statement's text as libpq read it, as it was
 * written in the connection string (quoted, escaped, percent-encoded in a
 * URI, as a user:password@ or a ?password= query parameter), and quoted
 * once more for SQL (a literal's '' or an escape string's \\).  Each
 * spelling is found here by scanning the string as libpq scans it; the
 * replacements take the longest spelling first, so that a spelling that
 * holds another goes whole.  conninfo.c uses them to scrub messages and to
 * take passwords out of the running statement's text.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "utils/memutils.h"

#include "remote.h"

/* Is this keyword one libpq keeps secret (a password)? */
bool
conninfo_secret_keyword(const char *kw)
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

List *
conninfo_add_spelling(List *l, const char *s, int len)
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
			l = conninfo_add_spelling(l, colon + 1, p - colon - 1);
			l = conninfo_add_spelling(l, colon, p - colon + 1);	/* ":secret@" */
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
		if (eq && conninfo_secret_keyword(uri_decode(k, eq - k)))
		{
			l = conninfo_add_spelling(l, eq + 1, end - eq - 1);
			l = conninfo_add_spelling(l, k, end - k);
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
		if (conninfo_secret_keyword(key))
		{
			l = conninfo_add_spelling(l, vstart, p - vstart);
			l = conninfo_add_spelling(l, kw, p - kw);
		}
	}
	return l;
}

/*
 * The passwords of a connection string libpq reads, in every spelling they
 * may take in text: as libpq reads them, as written in the string (quoted,
 * escaped, percent-encoded), and those quoted for SQL.
 */
List *
conninfo_secret_spellings(const char *conninfo, PQconninfoOption *opts)
{
	List	   *l = NIL;

	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && conninfo_secret_keyword(o->keyword))
			l = conninfo_add_spelling(l, o->val, strlen(o->val));

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
char *
conninfo_replace_all(const char *text, List *spellings, const char *with)
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

List *
conninfo_add_patterns(List *pats, List *spellings, const char *to, bool literal)
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
char *
conninfo_replace_once(const char *text, List *pats)
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

