/*
 * errcontext.c
 *		The CONTEXT of every message without the frames of ranread_internal:
 *		an emit_log_hook, installed once per backend by _PG_init (ranread.c).
 *
 * The same hook gives PostgreSQL's own "permission denied for function
 * ranread_run" (raised before any code of ranread runs) the hint a DBA
 * needs: the ranread_grant call that gives the role that kind of use
 * (README, "Privileges").  Only where the library is loaded in the
 * session: after any call of ranread's, or with session_preload_libraries.
 *
 * It reads nothing of ranread's but the name of its internal schema, so
 * that the module's init can install it without depending on the
 * functions whose frames it trims (forward.c and the PL/pgSQL behind
 * them).
 */
#include "postgres.h"

#include "libpq/libpq-be.h"
#include "miscadmin.h"
#include "utils/builtins.h"

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
 * PostgreSQL's "permission denied for KIND ranread_..." names no grant:
 * the hint names the kind of use that gives it, for the role that logged
 * in (no catalog is read while an error goes out): a table or view is
 * 'report', the probe's functions 'probe', the exports 'export', any
 * other function 'run' (which holds 'report' and 'probe').
 */
static void
permission_hint(ErrorData *ed)
{
	static const char *const objects[] = {"function ", "view ", "table ", "schema ", "sequence "};
	const char *prefix = "permission denied for ";
	const char *p;
	const char *kind = NULL;
	const char *role;

	if (strncmp(ed->message, prefix, strlen(prefix)) != 0)
		return;
	p = ed->message + strlen(prefix);
	for (int i = 0; i < lengthof(objects); i++)
		if (strncmp(p, objects[i], strlen(objects[i])) == 0)
		{
			p += strlen(objects[i]);
			kind = i == 0 ? "run" : "report";
			break;
		}
	if (kind == NULL || strncmp(p, "ranread_", 8) != 0)
		return;
	if (strncmp(p, "ranread_probe", 13) == 0 && strncmp(p, "ranread_probes", 14) != 0 &&
		strcmp(kind, "run") == 0)
		kind = "probe";
	else if (strncmp(p, "ranread_export", 14) == 0)
		kind = "export";
	role = MyProcPort && MyProcPort->user_name ? MyProcPort->user_name : "role";
	ed->hint = psprintf("A superuser gives it: SELECT ranread_grant(%s, '%s'); 'report' reads the history, 'probe' runs the probe, 'run' runs batches (README, \"Privileges\").",
						quote_literal_cstr(role), kind);
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
	if (ed->sqlerrcode == ERRCODE_INSUFFICIENT_PRIVILEGE && ed->hint == NULL && ed->message != NULL)
		permission_hint(ed);
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
