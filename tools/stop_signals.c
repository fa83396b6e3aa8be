/* SIGINT / SIGTERM handling for long commands (see stop_signals.h). */
#include "stop_signals.h"

#include <string.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t stop_flag, first_signal;
/* What the signals say: set before the handlers are installed, read by them. */
static const char *on_first, *on_again;

static void say(const char *text) {
    ssize_t ignored = write(STDERR_FILENO, text, strlen(text));   /* async-signal-safe */
    (void)ignored;
}

static void on_stop_signal(int sig) {
    if (!stop_flag) {
        first_signal = sig;
        stop_flag = 1;
        say(on_first);
        return;
    }
    fcast_abandon_writes();
    say(on_again);
    _exit(CLI_EXIT_INTERRUPTED);
}

static void on_default_signal(int sig) {
    fcast_abandon_writes();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The handlers run on a stack of their own (SA_ONSTACK). oneDNN's JIT
 * kernels point the stack pointer into their heap scratch space for a
 * while; a signal landing then had the kernel write its frame (some KB
 * with the AVX-512 state) below it, over other heap blocks, and the run
 * crashed in malloc while writing its checkpoint (tests/cli_checkpoint.sh,
 * SIGINT: one run in three or four on Zen 4). Process-directed signals go
 * to the main thread, which holds this stack. */
static void use_signal_stack(void) {
    static char stack[1 << 16];
    static int done;
    if (done) return;
    stack_t ss = {.ss_sp = stack, .ss_size = sizeof stack, .ss_flags = 0};
    done = sigaltstack(&ss, NULL) == 0;
}

static void handle(void (*handler)(int), int flags) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    use_signal_stack();
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);   /* each handler holds the other signal back: a SIGTERM landing inside the */
    sigaddset(&sa.sa_mask, SIGINT);    /* SIGINT handler (before stop_flag is set) would else count as */
    sigaddset(&sa.sa_mask, SIGTERM);   /* the first signal too, and the second of two would be lost */
    sa.sa_flags = flags | SA_ONSTACK;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void stop_signals_default(void) { handle(on_default_signal, SA_RESETHAND); }

const volatile sig_atomic_t *stop_signals_install_saying(const char *first, const char *again) {
    on_first = first;
    on_again = again;
    handle(on_stop_signal, SA_RESTART);   /* reads and writes in progress carry on */
    return &stop_flag;
}

const volatile sig_atomic_t *stop_signals_install(void) {
    return stop_signals_install_saying("\nfcast: stopping after this step and writing a checkpoint (signal again to "
                                       "stop at once)\n", "fcast: stopped at once; the last complete checkpoint is "
                                       "kept\n");
}

int stop_signals_received(void) { return first_signal; }
