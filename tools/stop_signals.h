/* Safe termination of long commands (docs/operations.md, "Stopping a run").
 * The first SIGINT or SIGTERM asks the work to stop at its next safe point
 * (training: after the current step, with a checkpoint); a second one stops
 * at once, removing the temporary file of any write in progress, so what is
 * left on disk is the last complete checkpoint and model file. */
#ifndef FC_TOOLS_STOP_SIGNALS_H
#define FC_TOOLS_STOP_SIGNALS_H

#include <signal.h>

/* For every command, at the start of main, before any other thread exists:
 * SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by one
 * thread of their own (sigwait), never by a handler on a working thread's
 * stack (stop_signals.c says why). By default a signal removes the
 * temporary file of a write in progress, then ends the process as it would
 * have. Commands with a safe point to stop at (train) turn on stopping
 * below. */
void stop_signals_default(void);

/* Stopping: the first SIGINT or SIGTERM sets the flag returned, a second
 * ends the process at once (exit 130). Training's lines (a checkpoint after
 * this step; kept by a second signal). */
const volatile sig_atomic_t *stop_signals_install(void);
/* The same with the command's own lines: `first` on the first signal,
 * `again` on the second, before exit 130. Both must outlive the handlers
 * (literals). */
const volatile sig_atomic_t *stop_signals_install_saying(const char *first, const char *again);

/* SIGHUP sets *flag instead of ending the process (serve: re-read the
 * models). */
void stop_signals_watch_hup(volatile sig_atomic_t *flag);

/* The signal that set the flag (SIGINT or SIGTERM), 0 if none. */
int stop_signals_received(void);

#endif
