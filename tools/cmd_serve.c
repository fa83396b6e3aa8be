/* fcast serve: the forecasting service (serve/server_run.h, docs/serving.md).
 * Loads every model of --models, serves them over HTTP until SIGTERM or
 * SIGINT, then drains: readiness turns false at once, the listening socket
 * closes, requests in flight finish (up to --drain-timeout), exit 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "server_run.h"
#include "stop_signals.h"

/* SIGHUP: re-read the models directory (set by the signals' thread, acted
 * on by the main loop). */
static volatile sig_atomic_t reload_asked;

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int serve(const fc_serve_options *a) {
    /* serve's own lines, not training's (which speak of checkpoints): what
     * the server does on the signal, and what a second one cuts short */
    const volatile sig_atomic_t *stop = stop_signals_install_saying(
        "\nfcast serve: stopping: no new connections are accepted, the requests in flight finish, then the server "
        "exits (signal again to stop at once)\n",
        "fcast serve: stopped at once, without waiting for the requests in flight\n");
    stop_signals_watch_hup(&reload_asked);
    fc_server *s = NULL;
    if (fc_server_start(a, &s) != FC_OK) return cli_fail("serve");
    fprintf(stderr, "fcast serve: %zu model(s) from %s on http://%s:%u/ (ready)\n", fc_server_model_count(s),
            a->models, a->host, fc_server_port(s));
    while (!*stop) {
        sleep_ms(50);
        if (!reload_asked) continue;
        reload_asked = 0;
        fprintf(stderr, "fcast serve: SIGHUP: re-reading %s\n", a->models);
        fc_server_reload(s);
    }
    fprintf(stderr, "fcast serve: signal %d: draining the requests in flight, up to --drain-timeout %zu s\n",
            stop_signals_received(), a->drain_timeout);
    fc_server_drain(s);
    fc_server_stop(s);
    fprintf(stderr, "fcast serve: stopped\n");
    return 0;
}

int cmd_serve(int argc, char **argv, int first) {
    fc_serve_options a;
    fc_serve_defaults(&a);
    arg_spec specs[] = {
        {"models", ARG_STR, &a.models, "DIR", "directory of model files (*.safetensors), each served under its name", 1, 0},
        {"host", ARG_STR, &a.host, "ADDR", "address to listen on (default 127.0.0.1: this machine only)", 0, 0},
        {"port", ARG_SIZE, &a.port, "N", "port (default 8080; 0: any free port, printed at start)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads of the forecasts (default 0: all cores but one)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"memory-limit", ARG_STR, &a.memory_limit, "SIZE", "refuse to start when the models exceed SIZE", 0, 0},
        {"max-batch-windows", ARG_SIZE, &a.max_batch_windows, "N", "series per batched forward pass (default 1024)", 0, 0},
        {"max-queue-delay-us", ARG_SIZE, &a.max_queue_delay_us, "US", "wait up to US for a batch to fill (default 0)", 0, 0},
        {"max-queue", ARG_SIZE, &a.max_queue, "N", "requests waiting at most; more get 503 (default 1024)", 0, 0},
        {"max-connections", ARG_SIZE, &a.max_connections, "N", "open connections at most (default 256), and 4 more "
         "for health probes", 0, 0},
        {"max-body", ARG_STR, &a.max_body, "SIZE", "request body at most (default 16MiB; more: 413)", 0, 0},
        {"max-series", ARG_SIZE, &a.max_series, "N", "series in one request at most (default 100000)", 0, 0},
        {"max-points", ARG_SIZE, &a.max_points, "N", "points in one request at most, after gap filling (default 0: "
                                                     "10000000, or what --memory-limit leaves for them when less)", 0, 0},
        {"timeout", ARG_SIZE, &a.timeout, "S", "close a connection idle for S seconds, or whose request "
         "headers are not in S seconds after its accept (default 30)", 0, 0},
        {"request-timeout", ARG_DOUBLE, &a.request_timeout, "S", "a forecast not started after S seconds in the queue "
         "is answered 503 (default 30; 0: never)", 0, 0},
        {"drain-timeout", ARG_SIZE, &a.drain_timeout, "S", "on SIGTERM, wait up to S seconds for requests in flight", 0, 0},
        {"auth-token-file", ARG_IN, &a.auth_token_file, "FILE", "require Authorization: Bearer <the token in FILE> "
         "(all endpoints but health)", 0, 0},
        {"quiet", ARG_FLAG, &a.quiet, NULL, "no access log", 0, 0},
        {0},
    };
    int rc = args_parse("serve", "Serve forecasts of the models in a directory over HTTP (docs/serving.md).", specs,
                        argc, argv, first);
    if (rc) return args_exit(rc);
    return serve(&a);
}
