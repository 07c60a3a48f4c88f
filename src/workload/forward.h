/*
 * forward.h
 *		The SQL functions that take a workload, read by name (forward.c): their
 *		arguments packed into a spec, the null check of the workload's
 *		options, the privileges a call needs, and ranread_forward, which hands
 *		a call on to its implementation in ranread_internal.
 */
#ifndef RANREAD_FORWARD_H
#define RANREAD_FORWARD_H

#include "workload.h"

/* One input argument of the called function, as its pg_proc entry has it */
typedef struct ForwardArg
{
	char	   *name;
	Oid			type;
	bool		default_null;	/* its SQL default is NULL */
	const WorkloadOption *option;	/* the workload option of its name and
									 * type; NULL: an argument of its own */
} ForwardArg;

/* The called function's arguments, kept in fn_extra between calls */
typedef struct ForwardInfo
{
	Oid			fn_oid;
	char	   *fn;				/* its name, as errors say it */
	int			nargs;
	ForwardArg *args;
	struct ForwardImpl *impl;	/* ranread_forward: its implementation */
} ForwardInfo;

extern ForwardInfo *forward_info(FunctionCallInfo fcinfo);
extern int	forward_arg(const ForwardInfo *fi, const char *name);
extern void forward_require_options(FunctionCallInfo fcinfo, const ForwardInfo *fi, const char *fn);
extern Jsonb *forward_args(FunctionCallInfo fcinfo, const ForwardInfo *fi, bool options_only,
						   const char *label);
extern Jsonb *forward_spec(FunctionCallInfo fcinfo, const ForwardInfo *fi, const char *caller,
						   const char *label);
extern void forward_check_privileges(const char *doing, const char *fn,
									 const char *const *needs, int nneeds);

#endif							/* RANREAD_FORWARD_H */
