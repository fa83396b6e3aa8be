/* Output files as fcast writes them (fcast.h): the library's own checks
 * and writers (api/output_path.c, io/atomic_file.c, io/csv_write.c) for
 * callers and the CLI. */
#include "api/api.h"
#include "io/atomic_file.h"
#include "io/csv_write.h"
#include "api/output_path.h"

fc_status fcast_output_check(const char *name, const char *path, int allow_stdout, const fcast_input_path *inputs,
                             size_t n_inputs) {
    return fc_output_check(name, path, allow_stdout, inputs, n_inputs);
}

fc_status fcast_paths_distinct(const fcast_path_use *uses, size_t n) { return fc_paths_distinct(uses, n); }

fc_status fcast_paths_check(const fcast_path_use *uses, size_t n) { return fc_paths_check(uses, n); }

fc_status fcast_write_file(const char *path, fcast_write_fn body, void *ctx) {
    return fc_write_file_atomic(path, body, ctx);
}

void fcast_csv_write_field(FILE *f, const char *text) { fc_csv_write_field(f, text); }

void fcast_csv_write_real(FILE *f, double v) { fc_csv_write_real(f, v); }
