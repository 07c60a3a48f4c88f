/*
 * sanitize.c
 *		Built only into a sanitizer build (make SANITIZE=..., docs/building.md,
 *		"Sanitizer build"): UndefinedBehaviorSanitizer's options.
 *
 * The runtime reads UBSAN_OPTIONS from /proc/self/environ when it starts,
 * which, loaded with this library, is in a backend whose process title
 * has already overwritten that memory: the options in the environment are
 * lost.  These defaults are not: every report prints its stack and aborts
 * the process (the build has no recovery), so the postmaster restarts the
 * server and the tests fail; no core file.  (AddressSanitizer's runtime
 * is preloaded into the postmaster and reads ASAN_OPTIONS before any
 * backend exists; see test/sanitize.)
 */
#include "postgres.h"

PGDLLEXPORT const char *__ubsan_default_options(void);

const char *
__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1:abort_on_error=1:disable_coredump=1";
}
