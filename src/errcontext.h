/*
 * errcontext.h
 *		The CONTEXT of messages without the frames of ranread_internal
 *		(errcontext.c).
 */
#ifndef RANREAD_ERRCONTEXT_H
#define RANREAD_ERRCONTEXT_H

extern void errcontext_install_hook(void);

#endif							/* RANREAD_ERRCONTEXT_H */
