/* fcast_bench_train: how close training comes to the machine's limit
 * (`fcast bench train`). Per precision the dense-layer peak (the N-HiTS
 * hidden layer, 1024 x 512 by 512 x 512, forward with bias and ReLU
 * fused), then the default N-HiTS (h=48, input 96) trained for a fixed
 * number of steps, as windows/s, achieved GFLOP/s of its matrix products
 * and its validation MAE; the PyTorch side in api_bench_torch.c. */
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/api_bench.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "train/dense_peak.h"

void fcast_bench_defaults(fcast_bench_request *r) {
    *r = (fcast_bench_request){.data = "data/taylor_halfhourly.csv", .python = "python3",
                               .torch_script = "python/bench_torch.py", .device = "auto", .steps = 100, .warmup = 5,
                               .windows_batch_size = 1024};
}

/* ---- fcast training ---- */

static void bench_train_options(const fcast_bench_request *a, fc_precision prec, size_t steps, fc_train_options *o) {
    fc_train_options_default(o);
    o->max_steps = steps;
    o->windows_batch_size = a->windows_batch_size;
    o->precision = prec;
    o->val_size = 48;               /* one validation at the end: the MAE of each precision */
    o->val_check_steps = steps;
    o->verbose = 0;
}

/* Trains a fresh default N-HiTS; a short warm-up run on the same backend
 * first builds the oneDNN primitives, so the timed run only executes. */
static fc_status bench_train(fc_backend *be, const fc_dataset *ds, const fcast_bench_request *a, fc_precision prec,
                             fcast_bench_run *row) {
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_NHITS, 48, 96);
    /* standard scaling keeps the demand (near 30000) inside fp16's range */
    fc_forecaster f = {.scaler = FC_SCALER_STANDARD, .loss = fc_loss_default(FC_LOSS_MAE), .ds_kind = ds->ds_kind, .freq = ds->freq};
    fc_train_options o;
    fc_train_summary s;
    fc_status st = fc_model_create(&cfg, be, &f.model);
    if (st == FC_OK && a->warmup) {
        bench_train_options(a, prec, a->warmup, &o);
        o.val_size = 0;
        st = fc_model_init_params(f.model, 1);
        if (st == FC_OK) st = fc_train(&f, ds, &o, &s);
    }
    bench_train_options(a, prec, a->steps, &o);
    if (st == FC_OK) st = fc_model_init_params(f.model, 1);
    if (st == FC_OK) st = fc_train(&f, ds, &o, &s);
    if (st == FC_OK) {
        row->windows_per_second = s.windows_per_second;
        row->gflops = fc_model_train_flops_per_window(f.model) * s.windows_per_second * 1e-9;
        row->val_mae = s.best_val_loss;
        row->step_seconds = s.step_seconds;
        _Static_assert(FC_PHASE_COUNT == FCAST_PHASES, "fcast_bench_run has a slot per phase");
        for (int p = 0; p < FC_PHASE_COUNT; p++) row->phase_seconds[p] = s.steps ? s.phases.seconds[p] / (double)s.steps : 0;
    }
    fc_forecaster_free(&f);
    return st;
}

/* The peak is the best of a measurement before and after training: one
 * alone can land in a slow moment of a shared machine. */
static fc_status bench_precision(fc_backend *be, const fc_dataset *ds, const fcast_bench_request *a, fc_precision prec,
                                 fcast_bench_run *row) {
    if (a->verbose) fprintf(stderr, "%s: dense-layer peak, then %zu training steps\n", row->precision, a->steps);
    double before = 0, after = 0;
    fc_status st = fc_dense_peak_gflops(be, prec, 5, &before);
    if (st == FC_OK) st = bench_train(be, ds, a, prec, row);
    if (st == FC_OK) st = fc_dense_peak_gflops(be, prec, 5, &after);
    row->peak_gflops = before > after ? before : after;
    return st;
}

/* ---- the run ---- */

/* "fp32,bf16" -> precisions; at most one of each. */
fc_status fc_bench_parse_precisions(const char *list, fc_precision *out, size_t *n) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == FCAST_BENCH_MAX_RUNS || fc_precision_parse(tok, &out[*n]))
            return fc_error(FC_ERR_INVALID, "--precisions '%s': expected a comma list of fp32, bf16, fp16", list);
        for (size_t i = 0; i < *n; i++)
            if (out[i] == out[*n])
                return fc_error(FC_ERR_INVALID, "--precisions '%s' names %s twice", list, tok);
        (*n)++;
    }
    return *n ? FC_OK : fc_error(FC_ERR_INVALID, "--precisions is empty");
}

static fc_status check_request(const fcast_bench_request *a) {
    if (!a->data || !a->python || !a->torch_script)
        return fc_error(FC_ERR_INVALID, "fcast_bench_train: --data, --python and --torch-script are needed (fcast_bench_defaults)");
    if (a->steps < 1 || a->steps > 100000) return fc_error(FC_ERR_INVALID, "--steps must be between 1 and 100000");
    if (a->warmup > 1000) return fc_error(FC_ERR_INVALID, "--warmup must be at most 1000");
    if (a->windows_batch_size < 1 || a->windows_batch_size > 65536)
        return fc_error(FC_ERR_INVALID, "--windows-batch-size must be between 1 and 65536");
    if (a->threads > 1024) return fc_error(FC_ERR_INVALID, "--threads must be at most 1024");
    /* both go into a shell command line between single quotes */
    if (strchr(a->python, '\'') || strchr(a->torch_script, '\''))
        return fc_error(FC_ERR_INVALID, "--python and --torch-script must not contain a single quote");
    return FC_OK;
}

/* The CUDA backend is named "cuda" (host_visible alone would also take the
 * CPU backend under FCAST_TEST_NOT_HOST_VISIBLE); auto runs on GPU 0. */
static void describe_device(const char *device, const fc_backend *be, fcast_bench_report *d) {
    fc_device_kind kind;
    int index = -1;
    d->gpu = !strcmp(be->name, "cuda");
    d->threads = be->threads;
    d->amx_capped = fc_cpu_amx_capped();
    d->bf16_on_fcast_amx = fc_backend_cpu_uses_amx();
    if (fc_device_parse(device, &kind, &index) != FC_OK || index < 0) index = 0;
    if (d->gpu) snprintf(d->device, sizeof d->device, "cuda:%d", index);
    else snprintf(d->device, sizeof d->device, "cpu");
}

/* Which kernels ran a precision's matrix products: cuBLASLt on a GPU; on
 * the CPU oneDNN, or fcast's AMX or AVX512-BF16 kernels for bf16
 * (cpu_isa.c, cpu_bf16_gemm.c),
 * and fp16 as oneDNN fp32 products of fp16-rounded inputs (oneDNN 2.6 has
 * no fp16 matmul on CPU). */
const char *fc_bench_kernel_name(int gpu, int bf16_on_fcast_amx, fc_precision p) {
    if (gpu) return "cuBLASLt";
    if (p == FC_PREC_FP16) return "oneDNN fp32";
    if (p != FC_PREC_BF16) return "oneDNN";
    const char *k = fc_backend_cpu_bf16_kernel_name();
    if (!strcmp(k, "oneDNN") || !strcmp(k, FC_BF16_KERNEL_CARRIED)) return k;
    return bf16_on_fcast_amx ? "fcast AMX" : "fcast AVX512-BF16";
}

/* The precisions asked (a typo fails before the device opens), else the
 * device's: fp32 and bf16 on the CPU (fp16 there is emulated); all three
 * on a GPU, whose tensor cores run bf16 and fp16 alike. */
static fc_status bench(const fcast_bench_request *a, fcast_bench_report *out, fc_backend **be, fc_dataset **ds) {
    fc_precision precs[FCAST_BENCH_MAX_RUNS];
    size_t n = 0;
    FC_TRY(check_request(a));
    if (a->precisions) FC_TRY(fc_bench_parse_precisions(a->precisions, precs, &n));
    FC_TRY(fc_api_backend_open(a->device, a->threads, a->verbose, be));   /* before reading data */
    describe_device(a->device, *be, out);
    if (!a->precisions) FC_TRY(fc_bench_parse_precisions(out->gpu ? "fp32,bf16,fp16" : "fp32,bf16", precs, &n));
    FC_TRY(fc_dataset_load_csv(a->data, &(fc_load_options){.drop_exog = 1}, ds));
    for (size_t i = 0; i < n; i++) {
        out->runs[i].precision = fc_precision_name(precs[i]);
        out->runs[i].kernel = fc_bench_kernel_name(out->gpu, out->bf16_on_fcast_amx, precs[i]);
        out->n_runs = i + 1;
        FC_TRY(bench_precision(*be, *ds, a, precs[i], &out->runs[i]));
    }
    if (a->vs_torch)   /* PyTorch's CPU fp16 autocast is no baseline anyone uses; AMP on a GPU is */
        for (size_t i = 0; i < n; i++)
            if (out->gpu || precs[i] != FC_PREC_FP16) fc_bench_torch(a, out, &out->runs[i]);
    return FC_OK;
}

fc_status fcast_bench_train(const fcast_bench_request *r, fcast_bench_report *out) {
    if (!r || !out) return fc_error(FC_ERR_INVALID, "fcast_bench_train: request and out are needed");
    memset(out, 0, sizeof *out);
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    fc_status st = bench(r, out, &be, &ds);
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return fc_api_words(st);
}
