/*
 * limits.c
 *		ranread_limits: the limits ranread_run enforces (ranread.h), as a row,
 *		so that ranread_sweep (plpgsql) can refuse a max_processes it could
 *		never reach before its first batch runs.
 *
 * The limits are compile-time constants of the library, so the function is
 * IMMUTABLE: the numbers change only with a new build, and a new build comes
 * with a new extension version.
 *
 * Copyright (c) the ranread authors
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "fmgr.h"
#include "funcapi.h"

#include "ranread.h"

PG_FUNCTION_INFO_V1(ranread_limits);

/*
 * ranread_limits(OUT max_processes int, OUT max_queue_depth int,
 *				  OUT max_inflight int, OUT max_inflight_bytes bigint)
 *
 * Return the limits ranread_run checks, as one row.
 */
Datum
ranread_limits(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type of ranread_limits must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = Int32GetDatum(RANREAD_MAX_PROCESSES);
	values[1] = Int32GetDatum(RANREAD_MAX_QUEUE_DEPTH);
	values[2] = Int32GetDatum(RANREAD_MAX_INFLIGHT);
	values[3] = Int64GetDatum(RANREAD_MAX_INFLIGHT_BYTES);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
