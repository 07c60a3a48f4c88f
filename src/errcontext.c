/*
 * errcontext.c
 *		The CONTEXT of every message without the frames of ranread_internal:
 *		an emit_log_hook, installed once per backend by _PG_init (ranread.c).
 *
 * It reads nothing of ranread's but the name of its internal schema, so
 * that the module's init can install it without depending on the
 * functions whose frames it trims (forward.c and the PL/pgSQL behind
 * them).
 */
#include "postgres.h"

#include "errcontext.h"

/* A CONTEXT line that names this marks a frame of the extension's internals */
#define INTERNAL_MARK "ranread_internal."

/*
 * The frames of ranread_internal in a message's CONTEXT, dropped as the
 * message goes out (the server log and the client alike): the user calls
 * the functions of the extension's schema, and the PL/pgSQL functions of
 * ranread_internal behind them (a profile's checks, a study's steps, a
 * chart's queries) are no frame of theirs.  What stays is the function the
 * user called, with its line, the keys of a spec, and the caller's own
 * frames.  An internal error (XX000) keeps its whole stack.  A caught
 * error is not emitted, so GET STACKED DIAGNOSTICS still sees every frame.
 */
static emit_log_hook_type prev_emit_log_hook = NULL;

/* Does the line at p start a frame of a function: PL/pgSQL or SQL? */
static bool
frame_header(const char *p, bool internal)
{
	static const char *const kinds[] = {"PL/pgSQL function ", "SQL function \""};

	for (int i = 0; i < lengthof(kinds); i++)
		if (strncmp(p, kinds[i], strlen(kinds[i])) == 0)
			return !internal ||
				strncmp(p + strlen(kinds[i]), INTERNAL_MARK, strlen(INTERNAL_MARK)) == 0;
	return false;
}

/*
 * Frames are innermost first, and the statement a frame was running (a
 * "SQL statement" entry, which may span lines) comes after the frame it
 * called: everything up to the first frame of a function not in
 * ranread_internal that follows the outermost internal one goes.
 */
static void
errcontext_emit_log(ErrorData *ed)
{
	if (ed->context != NULL && ERRCODE_TO_CATEGORY(ed->sqlerrcode) != ERRCODE_INTERNAL_ERROR &&
		strstr(ed->context, INTERNAL_MARK) != NULL)
	{
		char	   *last = NULL;
		char	   *keep = NULL;

		for (char *p = ed->context; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (frame_header(p, true))
				last = p;
		for (char *p = last; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (p != last && frame_header(p, false))
			{
				keep = p;
				break;
			}
		if (last != NULL)
			ed->context = keep ? pstrdup(keep) : NULL;
	}
	if (prev_emit_log_hook)
		prev_emit_log_hook(ed);
}

/* Install the hook, once per backend (_PG_init) */
void
errcontext_install_hook(void)
{
	prev_emit_log_hook = emit_log_hook;
	emit_log_hook = errcontext_emit_log;
}
