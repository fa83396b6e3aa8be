/* The quant endpoints of fcast serve (docs/serving.md): the computations of
 * `fcast quant option`, `implied-vol`, `indicators`, `portfolio` and
 * `backtest`, with the CLI's parameter names, defaults and messages, run on
 * the CPU in the request's thread (the quant library's own OpenMP loops).
 * Option and indicators are answered here; the others in their own files
 * (quant_handlers.h), through this file's route table.
 *
 *   POST /v1/quant/option       {"call": true, "S": 100, "K": 105, "sigma": 0.25, "T": 1, ...}
 *                               -> the object `fcast quant option --json` prints, byte for byte
 *   POST /v1/quant/indicators   {"close": [...], "ind": "sma:20,rsi:14", "nan": "poison"}
 *                               -> {"sma_20": [...], "rsi_14": [...]}: one array per column of
 *                                  `fcast quant indicators`' CSV, null where its cell is empty
 *   POST /v1/quant/implied-vol  {"call": true, "price": 10.45, "S": 100, ...} or arrays
 *   POST /v1/quant/portfolio    {"returns": {"DAX": [...], ...}, "long-only": true, ...}
 *   POST /v1/quant/backtest     {"close": {"DAX": [...]}, "rule": "cross(sma:10, sma:50)", ...}
 *                               -> the object each command's --json prints
 *
 * Errors are {"error": "..."} naming the field: 400 malformed JSON, a
 * wrong type, an unknown key or an invalid parameter (the quant library's
 * messages); 413 more than 10,000,000 values, or more Monte Carlo work than
 * a request may take (100,000,000 paths, 10^9 path steps); 415 a body
 * that is not JSON; 405 another method than POST. */
#ifndef FC_SERVE_QUANT_ROUTES_H
#define FC_SERVE_QUANT_ROUTES_H

#include "http_server.h"

/* Values in one request: close's points, and the cells of the answer. */
#define FC_QUANT_MAX_VALUES 10000000u
/* Monte Carlo work of one request, where the CLI allows minutes: on this
 * project's 2 cores, 10^8 European paths take 3 s and 10^9 Asian path
 * steps (paths x fixings) 18 s. */
#define FC_QUANT_MAX_PATHS 100000000ull
#define FC_QUANT_MAX_PATH_STEPS 1000000000ull

/* Answers the POSTs above; returns 1 when rq->path is one of them (rs
 * filled, 405 for another method, 415 for a body that is not JSON), 0
 * otherwise. */
int fc_quant_route(const fc_http_request *rq, fc_http_response *rs);

#endif
