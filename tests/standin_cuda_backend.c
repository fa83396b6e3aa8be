/* A stand-in for libfcast-cuda.so that runs (the contract is in
 * src/backend/backend.h): the CPU backend's operations behind the CUDA
 * backend's entry point, so that tests/gpu_parity.sh, which a GPU runs now
 * and then, runs in make test too (ctest gpu_parity_standin) and cannot rot
 * between GPU runs: its probe, flags and file names are exercised on every
 * CI run (issue 33: a probe that passed --max-steps twice skipped on every
 * GPU for months, and an eval check read a file no loop wrote).
 *
 * It also enforces what cuBLASLt needs of a dense layer's 16-bit operands,
 * as the CUDA backend's own arithmetic sees them (fc_lt_alignment): every
 * one at 16 bytes or more. An H200 refused N-HiTS at --input-size 24 in
 * fp16 with "cublasLtMatmulAlgoGetHeuristic ... CUBLAS_STATUS_INVALID_VALUE
 * ... 2-byte aligned"; here that is a refusal with the same description,
 * through the loader's report, as the CUDA backend's would be.
 *
 * The library holds its own copy of the engine (linked from fcastobj: the
 * fcast binary exports nothing), so an error the CPU code inside it sets is
 * its own; the entries it wraps hand theirs to the caller's report. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cuda_dense_plan.h"
#include "core/error.h"

enum { MIN_ALIGN = 16 };   /* bytes: the 16-bit operands cuBLASLt's heuristics accepted on the H200 */

fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report, fc_backend **out, char *why,
                                 size_t why_cap);

static fc_error_fn report;

/* The inner CPU call's failure, told to the caller's error state. */
static fc_status told(fc_status st) { return st == FC_OK ? st : report(st, "%s", fc_last_error()); }

static fc_status refuse_operand(const fc_linear_call *c, const char *what, const void *p) {
    return report(FC_ERR_BACKEND, "CUDA stand-in: cuBLASLt would find no algorithm for the %s linear (B=%zu I=%zu "
                  "O=%zu): %s is %lld-byte aligned, 16-bit operands need %d", fc_precision_name(c->prec), c->B, c->I,
                  c->O, what, (long long)fc_lt_alignment(p), MIN_ALIGN);
}

static fc_status check_operands(const fc_linear_call *c, const void *dy_low) {
    if (c->prec == FC_PREC_FP32) return FC_OK;
    const void *ops[3] = {c->x_low, c->w_low, dy_low};
    const char *names[3] = {"x_low", "w_low", "dy_low"};
    for (int i = 0; i < 3; i++)
        if (ops[i] && fc_lt_alignment(ops[i]) < MIN_ALIGN) return refuse_operand(c, names[i], ops[i]);
    return FC_OK;
}

static fc_status (*cpu_forward)(fc_backend *, const fc_linear_call *);
static fc_status (*cpu_backward)(fc_backend *, const fc_linear_call *, float *, void *, float *, float *, float *);

static fc_status standin_forward(fc_backend *be, const fc_linear_call *c) {
    FC_TRY(check_operands(c, NULL));
    return told(cpu_forward(be, c));
}

static fc_status standin_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, float *dx,
                                  float *dw, float *db) {
    FC_TRY(check_operands(c, dy_low));
    return told(cpu_backward(be, c, dy, dy_low, dx, dw, db));
}

fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report_to, fc_backend **out, char *why,
                                 size_t why_cap) {
    *out = NULL;
    if (abi != FC_BACKEND_ABI) {
        snprintf(why, why_cap, "CUDA stand-in: built for backend ABI %d, fcast has %d", FC_BACKEND_ABI, abi);
        return FC_ERR_BACKEND;
    }
    (void)device;
    report = report_to;
    fc_backend *cpu = NULL;
    if (fc_backend_cpu_create(0, &cpu) != FC_OK) {
        snprintf(why, why_cap, "CUDA stand-in: %s", fc_last_error());
        return FC_ERR_BACKEND;
    }
    cpu_forward = cpu->linear_forward;
    cpu_backward = cpu->linear_backward;
    cpu->linear_forward = standin_forward;
    cpu->linear_backward = standin_backward;
    cpu->name = "cuda-standin";
    *out = cpu;
    return FC_OK;
}
