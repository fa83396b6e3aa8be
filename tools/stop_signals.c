/* SIGINT / SIGTERM (and SIGHUP) handling for every command (see
 * stop_signals.h).
 *
 * The signals are blocked in every thread from the start of main, so the
 * threads made later (OpenMP's and oneDNN's workers, the server's, MPI's)
 * inherit the mask, and one thread of ours takes them with sigwait. No
 * handler runs on another thread's stack, ever: oneDNN's JIT kernels point
 * the stack pointer into their heap scratch space for a while, and a signal
 * delivered then had its frame (some KB with the AVX-512 state) written
 * below it, over other heap blocks. A SIGINT during training then crashed
 * in malloc while the checkpoint was written (tests/cli_checkpoint.sh, 3
 * runs in 4 once the heap's layout moved). An alternate signal stack would
 * have covered the main thread only: a signal goes to any thread that does
 * not block it, a worker too. And the waiting thread may print and decide
 * in plain code, where a handler may call only what is async-signal-safe.
 *
 * A child process gets the signals back (fc_bench_run_script spawns with
 * an empty mask); a forked probe (cpu_probe.c) exits on its own. */
#include "stop_signals.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static sigset_t watched;
static volatile sig_atomic_t stop_flag, first_signal, stopping_mode;
static volatile sig_atomic_t *hup_flag;   /* SIGHUP's flag when a command watches it (serve) */
/* What the signals say in stopping mode: set before it is turned on. */
static const char *on_first, *on_again;

static void say(const char *text) {
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));
    (void)ignored;
}

/* The signal ends the process as it would have without fcast, once the
 * temporary file of a write in progress is gone. */
static void die_by(int sig) {
    fcast_abandon_writes();
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);   /* this thread's, unblocked: the default action ends the process */
    _exit(128 + sig);
}

static void take(int sig) {
    if (sig == SIGHUP && hup_flag) {
        *hup_flag = 1;
        return;
    }
    if (!__atomic_load_n(&stopping_mode, __ATOMIC_ACQUIRE) || sig == SIGHUP) die_by(sig);
    if (!stop_flag) {
        say(on_first);   /* before the flag: the command's own lines about the stop come after it */
        first_signal = sig;
        stop_flag = 1;
        return;
    }
    fcast_abandon_writes();
    say(on_again);
    _exit(CLI_EXIT_INTERRUPTED);
}

static void *wait_for_signals(void *arg) {
    (void)arg;
    for (;;) {
        int sig = 0;
        if (sigwait(&watched, &sig) == 0) take(sig);
    }
    return NULL;
}

void stop_signals_default(void) {
    sigemptyset(&watched);
    sigaddset(&watched, SIGINT);
    sigaddset(&watched, SIGTERM);
    sigaddset(&watched, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &watched, NULL) != 0) return;   /* left as the system has them */
    pthread_t t;
    if (pthread_create(&t, NULL, wait_for_signals, NULL) == 0) pthread_detach(t);
    else pthread_sigmask(SIG_UNBLOCK, &watched, NULL);   /* no thread to take them: the defaults act */
}

const volatile sig_atomic_t *stop_signals_install_saying(const char *first, const char *again) {
    on_first = first;
    on_again = again;
    __atomic_store_n(&stopping_mode, 1, __ATOMIC_RELEASE);   /* the lines are set before the waiter reads them */
    return &stop_flag;
}

const volatile sig_atomic_t *stop_signals_install(void) {
    return stop_signals_install_saying("\nfcast: stopping after this step and writing a checkpoint (signal again to "
                                       "stop at once)\n", "fcast: stopped at once; the last complete checkpoint is "
                                       "kept\n");
}

void stop_signals_watch_hup(volatile sig_atomic_t *flag) { hup_flag = flag; }

int stop_signals_received(void) { return first_signal; }
