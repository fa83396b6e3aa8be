/* fcast doctor's report as one JSON object (fcast_doctor_json): "cpu",
 * "gpu" (doctor_gpu_json) and "conclusion", as `fcast doctor --json`
 * prints it; a figure not known or not measured is null. */
#include <stdlib.h>
#include <string.h>

#include "api/api_doctor.h"

static json_t *cpu_json(const cpu_report *c) {
    json_t *j = json_object(), *peak = json_object();
    json_object_set_new(j, "model", doctor_json_or_null(c->info.model[0] != 0, json_string(c->info.model)));
    json_object_set_new(j, "logical_cpus", json_integer(c->info.logical_cpus));
    json_object_set_new(j, "physical_cores", doctor_json_or_null(c->info.physical_cores > 0, json_integer(c->info.physical_cores)));
    json_object_set_new(j, "threads", json_integer(c->threads));
    json_object_set_new(j, "memory_total_bytes", doctor_json_or_null(c->info.mem_total > 0, json_integer((json_int_t)c->info.mem_total)));
    json_object_set_new(j, "memory_available_bytes",
                        doctor_json_or_null(c->info.mem_available > 0, json_integer((json_int_t)c->info.mem_available)));
    json_object_set_new(j, "avx512f", json_boolean(c->info.avx512f));
    json_object_set_new(j, "avx512_bf16", json_boolean(c->info.avx512_bf16));
    json_object_set_new(j, "amx_advertised", json_boolean(c->info.amx_tile));
    json_object_set_new(j, "amx_bf16_advertised", json_boolean(c->info.amx_bf16));
    json_object_set_new(j, "amx_works", json_boolean(c->amx_works));
    json_object_set_new(j, "amx_capped", json_boolean(c->amx_capped));
    json_object_set_new(j, "amx_fcast_kernel", json_string(c->bf16_choice.amx));
    json_object_set_new(j, "bf16_kernel", json_string(c->bf16_kernel));
    json_object_set_new(j, "bf16_reason", json_string(c->bf16_choice.reason));
    json_object_set_new(j, "onednn_fp32_impl", doctor_json_or_null(c->onednn_fp32[0] != 0, json_string(c->onednn_fp32)));
    json_object_set_new(j, "onednn_bf16_impl", doctor_json_or_null(c->onednn_bf16[0] != 0, json_string(c->onednn_bf16)));
    if (c->bf16_choice.measured) {   /* the one-thread rates of the choice (cpu_bf16_rates.c) */
        const fc_bf16_rates *r = &c->bf16_choice.rates;
        json_object_set_new(j, "bf16_choice_fp32_gflops", json_real(r->fp32));
        json_object_set_new(j, "bf16_onednn_gflops", json_real(r->onednn));
        json_object_set_new(j, "bf16_avx512bf16_gflops", doctor_json_or_null(r->hand > 0, json_real(r->hand)));
    }
    json_object_set_new(peak, "fp32", doctor_json_or_null(c->peak[0] > 0, json_real(c->peak[0])));
    json_object_set_new(peak, "bf16", doctor_json_or_null(c->peak[1] > 0, json_real(c->peak[1])));
    json_object_set_new(j, "peak_gflops", peak);
    return j;
}

static json_t *conclusion_json(const conclusion *c) {
    json_t *j = json_object();
    json_object_set_new(j, "device", json_string(c->device));
    json_object_set_new(j, "device_reason", json_string(c->device_reason));
    json_object_set_new(j, "precision", json_string(fc_precision_name(c->precision)));
    json_object_set_new(j, "precision_reason", json_string(c->precision_reason));
    json_object_set_new(j, "train_default_precision", json_string("fp32"));
    json_object_set_new(j, "memory_limit_bytes", json_integer((json_int_t)c->limit));
    json_object_set_new(j, "memory_limit_source", json_string(c->limit_source));
    json_object_set_new(j, "model", json_string("NHITS h=48 input_size=96"));
    json_object_set_new(j, "largest_windows_batch_size", json_integer((json_int_t)c->largest_batch));
    json_object_set_new(j, "plan_data", json_string(c->data));
    return j;
}

char *doctor_json(const fcast_doctor *d) {
    json_t *j = json_object();
    json_object_set_new(j, "cpu", cpu_json(&d->cpu));
    json_object_set_new(j, "gpu", doctor_gpu_json(&d->g));
    json_object_set_new(j, "conclusion", conclusion_json(&d->c));
    char *text = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    if (!text) return NULL;
    char *line = malloc(strlen(text) + 2);   /* one line per object, as printed */
    if (line) strcat(strcpy(line, text), "\n");
    free(text);
    return line;
}
