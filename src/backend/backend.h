/* The backend interface: a table of functions through which all arithmetic
 * of models and training goes (as ggml's backends). The CPU backend
 * (backend/cpu) uses oneDNN for matrix products and OpenMP loops over the
 * shared kernel bodies (kernels/) for the rest; a CUDA backend fills the same
 * table with cuBLASLt and thin __global__ wrappers of the same bodies. The
 * table's entries are listed once, in backend_ops.def (docs/backend-ops.md).
 *
 * Pointers passed to the table are device pointers of that backend (plain
 * host pointers on CPU). Matrices are row-major; shapes are given on every
 * pointer with the letters B (windows), L (input size), H (horizon),
 * I/O (layer in/out features). Functions that write gradients of parameters
 * accumulate (+=); those that write gradients of activations overwrite. */
#ifndef FC_BACKEND_BACKEND_H
#define FC_BACKEND_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "kernels/iq_head.h"
#include "kernels/loss.h"

typedef enum { FC_ACT_NONE = 0, FC_ACT_RELU = 1 } fc_activation;

/* The arithmetic of matrix products (--precision). Master weights,
 * gradients, optimizer state, reductions, losses and scalers are fp32 in
 * every precision; bf16 / fp16 apply to the inputs of matrix products,
 * which accumulate in fp32. */
typedef enum { FC_PREC_FP32 = 0, FC_PREC_BF16 = 1, FC_PREC_FP16 = 2, FC_PREC_COUNT = 3 } fc_precision;

const char *fc_precision_name(fc_precision p);            /* "fp32", "bf16", "fp16" */
int fc_precision_parse(const char *s, fc_precision *out); /* 0 on success */

/* One dense layer: y (B,O) = act(x (B,I) . w (O,I)^T + b (O)); b may be NULL.
 * In fp32, x_low and w_low are NULL. In bf16 / fp16 the product reads
 * x_low (B,I), which forward writes as x rounded to the precision and
 * backward reads for the weight gradient, and w_low (O,I), w rounded, which
 * the caller keeps in step with w (the optimizer refreshes it). */
typedef struct {
    size_t B, I, O;
    fc_activation act;
    fc_precision prec;
    const float *x;
    void *x_low;
    const float *w;
    const void *w_low;
    const float *b;
    float *y;
} fc_linear_call;

typedef struct fc_backend fc_backend;

/* Types of the optional quant entries, defined where quant computes them:
 * fc_mc_spec and fc_mc_sums in kernels/quant_paths.h, fc_ind_plan and
 * fc_ind_seg in kernels/indicator_segment.h. */
struct fc_mc_spec;
struct fc_mc_sums;
struct fc_ind_plan;
struct fc_ind_seg;
struct fc_ta_job;   /* kernels/ta/ta_segment.h */
/* Types of the optional data entries, in kernels/window_load.h. */
struct fc_window_pos;
struct fc_window_data;
struct fc_window_batch;
/* Types of the optimizer step's blocks, in kernels/optimizer_step.h. */
struct fc_step_in;
struct fc_step_out;

#define FC_WS_SLOTS 4   /* workspace buffers a backend may keep for dense layers */

struct fc_backend {
    const char *name;
    void *impl;
    int threads;
    int host_visible;   /* 1: device pointers are host memory (CPU): no staging copies needed */
    /* Memory the backend uses besides its buffers (a GPU's CUDA context and
     * cuBLASLt's state): an allowance the memory plan counts. 0 on the CPU,
     * whose libraries are in the plan's own allowance. */
    size_t context_bytes;
    /* fp32 products may round their inputs to TF32 on tensor cores (--tf32;
     * GPU only, off by default so that fp32 means fp32). Read at each call. */
    int tf32;
    /* The GPU a CUDA backend runs on (its cuda:N, the local rank's resolved);
     * -1 on the CPU. fc_backend_create_like makes another on the same one. */
    int gpu;

    /* Bytes per element of a low-precision buffer (x_low, w_low, dy_low) of
     * each precision: 2 where the matrix unit reads 16-bit values (bf16 on
     * CPU; bf16 and fp16 on GPU), 4 where the values are rounded to the
     * format but carried in fp32 (fp16 on CPU: oneDNN 2.6 has no fp16 matmul
     * on CPU, and bf16 on CPUs where no 16-bit kernel beats fp32). 0 for
     * FC_PREC_FP32: fp32 keeps no copies. A function, not a table: on the
     * CPU the answer for bf16 is measured (cpu_bf16_choice.c), and only
     * runs that use bf16 should pay for the measurement. */
    size_t (*low_bytes)(const fc_backend *be, fc_precision prec);

    /* The entries, one per row of backend_ops.def, where their contracts are. */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) ret(*name) params;
#include "backend/backend_ops.def"
#undef FC_BACKEND_OP
};

/* The CPU backend with `threads` OpenMP threads (0: all cores). */
fc_status fc_backend_cpu_create(int threads, fc_backend **out);

/* The backend a device name asks for (--device): "auto" (or NULL), "cpu",
 * "cuda" or "cuda:N". cuda loads the CUDA backend library at run time
 * (backend_loader.c), so a machine without the CUDA runtime or driver runs
 * the CPU backend unchanged. "auto" tries a GPU and falls back to the CPU.
 * auto and cuda take GPU 0, or in an MPI job the GPU of the rank's local
 * rank modulo the GPUs it sees (core/local_rank.h: one rank per GPU;
 * the library's device argument is then -1 - local rank). On success, note
 * (note_cap bytes; may be NULL) holds one line for the log saying which
 * device runs and, for an auto fallback, why: "device: cpu (no GPU:
 * ...)". Errors: FC_ERR_INVALID for a name outside those forms;
 * FC_ERR_BACKEND when cuda was asked for and cannot run, the message
 * naming the check that failed. threads: CPU threads (0: all cores). */
fc_status fc_backend_create(const char *device, int threads, fc_backend **out, char *note, size_t note_cap);

/* Another backend of be's kind on be's device (a CPU backend of `threads`
 * threads, 0: all cores; a CUDA backend on the same GPU, with its own
 * stream, arena and libraries' state), with be's tf32 setting: a worker's
 * of members trained side by side (train/member_pool.h). */
fc_status fc_backend_create_like(const fc_backend *be, int threads, fc_backend **out);

/* A function fc_backend_destroy calls with every backend before it goes,
 * set by the layer that keeps state about backends (dist/: a GPU group's
 * backend), which the backend layer cannot include. One at a time. */
typedef void (*fc_backend_destroy_hook)(const fc_backend *be);
void fc_backend_set_destroy_hook(fc_backend_destroy_hook hook);

/* The device names fc_backend_create accepts, for messages and --help. */
#define FC_DEVICE_FORMS "auto | cpu | cuda | cuda:N"
typedef enum { FC_DEVICE_AUTO = 0, FC_DEVICE_CPU = 1, FC_DEVICE_CUDA = 2 } fc_device_kind;

/* Parses a device name (NULL: auto); *index is the GPU for cuda (0 for
 * "cuda"), else -1. FC_ERR_INVALID naming the accepted forms otherwise. */
fc_status fc_device_parse(const char *name, fc_device_kind *kind, int *index);

/* The contract of the CUDA backend library (libfcast-cuda.so, built
 * separately by nvcc). It is looked up, in order, at $FCAST_CUDA_BACKEND (a
 * path: an explicit choice wins, and tests use it), next to the running
 * binary, in ../lib beside it (an install), then on the library path. It
 * exports one C function, FC_CUDA_ENTRY_NAME, of type fc_cuda_entry:
 *
 *   fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report,
 *                                    fc_backend **out, char *why, size_t why_cap);
 *
 * abi is FC_BACKEND_ABI (the layout of struct fc_backend the caller was
 * built with); a library built against another layout must refuse it.
 * report is the caller's fc_error: the library has no error state of its
 * own, and every error it meets later (a failed launch, an allocation
 * beyond the arena) goes through report into the caller's message. On
 * success *out is a filled table whose destroy releases everything. On
 * failure it returns FC_ERR_BACKEND (FC_ERR_MEMORY when the device is out of
 * memory) with *out NULL and one line in why naming the check that failed:
 * no driver, no device, compute capability too old, out of memory. The
 * library is never unloaded: backends it made may live until the process
 * ends. */
#define FC_BACKEND_ABI fc_backend_abi()
/* Bump when the fields before the entries change; the entries count by
 * themselves (fc_backend_abi). */
#define FC_BACKEND_FIELDS_VERSION 17
#define FC_CUDA_LIBRARY_NAME "libfcast-cuda.so"
#define FC_GROUP_ID_MAX 128   /* NCCL_UNIQUE_ID_BYTES */
#define FC_CUDA_ENTRY_NAME "fc_backend_cuda_create"
typedef fc_status (*fc_error_fn)(fc_status code, const char *fmt, ...);
/* The layout of struct fc_backend as one number: a hash of the text of
 * backend_ops.def's rows (each entry's name and type, in order), the
 * table's size and FC_BACKEND_FIELDS_VERSION (backend_ops.c). An entry
 * added, removed, moved or retyped changes it without anyone bumping it. */
int fc_backend_abi(void);
typedef fc_status (*fc_cuda_entry)(int abi, int device, fc_error_fn report, fc_backend **out, char *why,
                                   size_t why_cap);

/* One masked loss read back to the host (*loss; NAN on a backend failure):
 * masked_loss into a backend double, then copied. For tests and one-off
 * evaluations; the trainer sums a step's losses on the backend.
 * fc_backend_masked_loss is the point loss `kind` (MAE, MSE) of n points. */
fc_status fc_backend_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const fc_loss_call *c);
fc_status fc_backend_masked_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const float *yhat,
                                 const float *y, const float *mask, size_t n, int kind);

/* Releases a backend created by any *_create; sets *be to NULL. */
void fc_backend_destroy(fc_backend **be);

#endif
