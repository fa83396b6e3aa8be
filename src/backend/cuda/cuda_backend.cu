/* The CUDA backend: the entry point of libfcast-cuda.so (contract in
 * backend.h), the checks that say why a GPU cannot run, and device memory
 * (the run's arena, copies, sync). The arithmetic is in cuda_dense.cu
 * (cuBLASLt), cuda_elementwise.cu, cuda_reduce.cu and cuda_adam.cu.
 *
 * GPU-only code, never run on the machine it was written on: every runtime
 * call's result is checked, and what can be computed on the host (arena
 * offsets, launch geometry) lives in plain C that the CPU tests exercise. */
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"

extern "C" void fc_cuda_set_reporter(fc_error_fn report);   /* cuda_error.cu */

/* ---- memory ---- */

static int in_arena(const fc_cuda_impl *impl, const void *p) {
    return impl->arena && (const char *)p >= impl->arena && (const char *)p < impl->arena + impl->books.size;
}

static void *cuda_alloc(fc_backend *be, size_t bytes) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (impl->arena && !impl->books.sealed) {
        size_t at;
        return fc_arena_take(&impl->books, bytes, FC_CUDA_ALIGN, &at) == FC_OK ? impl->arena + at : NULL;
    }
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : FC_CUDA_ALIGN);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaGetLastError();   /* clear it: an allocation failure is not sticky */
        cudaMemGetInfo(&free_b, &total_b);
        fc_error(err == cudaErrorMemoryAllocation ? FC_ERR_MEMORY : FC_ERR_BACKEND,
                 "cannot allocate %zu bytes on cuda:%d (%s; %zu of %zu bytes free): %s", bytes, impl->device,
                 impl->name, free_b, total_b, cudaGetErrorString(err));
        return NULL;
    }
    return p;
}

static void cuda_release(fc_backend *be, void *p) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (!p) return;
    if (in_arena(impl, p)) {
        fc_arena_give_back(&impl->books);
        return;
    }
    /* cudaFree waits for the device: buffers are released between runs, not in the step loop */
    fc_cuda_note_failure(be, FC_CUDA(cudaFree(p)));
}

/* Pinned (page-locked) host memory: copies from it run at the link's full
 * speed and asynchronously, overlapping the kernels queued before them. */
static void *cuda_host_alloc(fc_backend *be, size_t bytes) {
    void *p = NULL;
    cudaError_t err = cudaMallocHost(&p, bytes ? bytes : FC_CUDA_ALIGN);
    if (err != cudaSuccess) {
        cudaGetLastError();
        fc_error(FC_ERR_MEMORY, "cannot pin %zu bytes of host memory for cuda:%d: %s", bytes,
                 fc_cuda_impl_of(be)->device, cudaGetErrorString(err));
        return NULL;
    }
    return p;
}

static void cuda_host_release(fc_backend *be, void *p) {
    /* cudaFreeHost synchronises the device first, so no copy still reads it */
    if (p) fc_cuda_note_failure(be, FC_CUDA(cudaFreeHost(p)));
}

/* Whether src is pinned (page-locked, e.g. from host_alloc): copies from
 * it may stay asynchronous. */
static int is_pinned(const void *src) {
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, src) != cudaSuccess) {
        cudaGetLastError();   /* an unknown pointer is pageable memory, not an error */
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* The contract (backend.h): only staging memory (host_alloc) may still be
 * read after the call returns. From pageable memory CUDA may return before
 * the copy has read src ("might be synchronous"; the behaviour is not to be
 * relied upon), and callers free or unmap src at once, so those copies wait. */
static void cuda_to_device(fc_backend *be, void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_status st = FC_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, impl->stream));
    if (st == FC_OK && !is_pinned(src)) st = FC_CUDA(cudaStreamSynchronize(impl->stream));
    fc_cuda_note_failure(be, st);
}

static void cuda_to_host(fc_backend *be, void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_status st = FC_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, impl->stream));
    if (st == FC_OK) st = FC_CUDA(cudaStreamSynchronize(impl->stream));   /* the caller reads dst next */
    fc_cuda_note_failure(be, st);
}

static void cuda_sync(fc_backend *be) {
    fc_cuda_note_failure(be, FC_CUDA(cudaStreamSynchronize(fc_cuda_impl_of(be)->stream)));
}

/* Marks are CUDA events without timing, created at their first record. */
static fc_status cuda_mark_record(fc_backend *be, void **mark) {
    FC_TRY(fc_cuda_failure(be));
    cudaEvent_t e = (cudaEvent_t)*mark;
    if (!e) {
        FC_TRY(FC_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming)));
        *mark = e;
    }
    return FC_CUDA(cudaEventRecord(e, fc_cuda_stream(be)));
}

static fc_status cuda_mark_wait(fc_backend *be, void *mark) {
    FC_TRY(fc_cuda_failure(be));
    return mark ? FC_CUDA(cudaEventSynchronize((cudaEvent_t)mark)) : FC_OK;
}

static void cuda_mark_free(fc_backend *be, void *mark) {
    if (mark) fc_cuda_note_failure(be, FC_CUDA(cudaEventDestroy((cudaEvent_t)mark)));
}

static fc_status cuda_status(fc_backend *be) { return fc_cuda_failure(be); }

static void cuda_memory_info(fc_backend *be, size_t *free_bytes, size_t *total_bytes) {
    *free_bytes = *total_bytes = 0;
    fc_cuda_note_failure(be, FC_CUDA(cudaMemGetInfo(free_bytes, total_bytes)));
}

/* The plan's arena, checked against what the device has free before
 * anything is allocated, so an over-budget run stops here and not at step
 * 1000. */
static fc_status cuda_arena_open(fc_backend *be, size_t bytes) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (impl->arena) return fc_error(FC_ERR_INVALID, "a memory arena is already open on this backend");
    size_t free_b = 0, total_b = 0;
    FC_TRY(FC_CUDA(cudaMemGetInfo(&free_b, &total_b)));
    if (bytes > free_b)
        return fc_error(FC_ERR_MEMORY, "the memory plan needs %.1f MB on cuda:%d (%s), which has %.1f MB free of "
                        "%.1f MB: lower --windows-batch-size or free the GPU", bytes / 1e6, impl->device,
                        impl->name, free_b / 1e6, total_b / 1e6);
    void *p = NULL;
    fc_status st = FC_CUDA(cudaMalloc(&p, bytes ? bytes : FC_CUDA_ALIGN));
    if (st != FC_OK) {
        cudaGetLastError();
        return fc_error(st, "cannot reserve the run's memory arena of %zu bytes on cuda:%d (%s)", bytes,
                        impl->device, impl->name);
    }
    impl->arena = (char *)p;
    impl->books = (fc_arena_books){bytes, 0, 0, 0};
    return FC_OK;
}

static void arena_free(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_cuda_note_failure(be, FC_CUDA(cudaFree(impl->arena)));
    impl->arena = NULL;
    impl->books = (fc_arena_books){0, 0, 0, 0};
}

static void cuda_arena_seal(fc_backend *be) { fc_cuda_impl_of(be)->books.sealed = 1; }

static void cuda_arena_close(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (!impl->arena) return;
    FC_ASSERT(impl->books.live == 0);   /* a buffer still in use would dangle */
    arena_free(be);
}

static void cuda_arena_stats(const fc_backend *be, size_t *used, size_t *size) {
    const fc_cuda_impl *impl = (const fc_cuda_impl *)be->impl;
    *used = impl->books.used;
    *size = impl->books.size;
}

/* Tensor cores read 16-bit bf16 and fp16 alike. */
static size_t cuda_low_bytes(const fc_backend *, fc_precision prec) { return prec == FC_PREC_FP32 ? 0 : 2; }

static void cuda_destroy(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (impl) {
        if (impl->stream) cudaStreamSynchronize(impl->stream);
        fc_cuda_group_leave(be);
        if (impl->dense) fc_cuda_dense_free(be);
        for (int i = 0; i < FC_WS_SLOTS; i++) cudaFree(impl->ws[i]);
        if (impl->arena) arena_free(be);
        cudaFree(impl->d_partials);
        cudaFreeHost(impl->h_partials);
        cudaFree(impl->d_coef);
        if (impl->stream) cudaStreamDestroy(impl->stream);
        free(impl);
    }
    free(be);
}

/* The current device is per host thread (backend_ops.def). */
static fc_status cuda_bind_thread(fc_backend *be) {
    return FC_CUDA(cudaSetDevice(fc_cuda_impl_of(be)->device));
}

static void fill_table(fc_backend *be) {
    be->name = "cuda";
    be->host_visible = 0;
    be->context_bytes = FC_CUDA_CONTEXT_ALLOWANCE;
    be->alloc = cuda_alloc;
    be->release = cuda_release;
    be->to_device = cuda_to_device;
    be->to_host = cuda_to_host;
    be->host_alloc = cuda_host_alloc;
    be->host_release = cuda_host_release;
    be->sync = cuda_sync;
    be->bind_thread = cuda_bind_thread;
    be->mark_record = cuda_mark_record;
    be->mark_wait = cuda_mark_wait;
    be->mark_free = cuda_mark_free;
    be->status = cuda_status;
    be->memory_info = cuda_memory_info;
    be->arena_open = cuda_arena_open;
    be->arena_close = cuda_arena_close;
    be->arena_seal = cuda_arena_seal;
    be->arena_stats = cuda_arena_stats;
    be->destroy = cuda_destroy;
    be->low_bytes = cuda_low_bytes;
    /* the rest: every FN of the cuda column of backend_ops.def, and the MAYBE group entries */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) FC_OP_IF_FN_##cuda(be->name = fc_cuda_##name;)
#include "backend/backend_ops.def"
#undef FC_BACKEND_OP
    fc_cuda_group_fill_table(be);
}

/* ---- the checks of fc_backend_cuda_create, in the order a user fixes them ---- */

static int version_major(int v) { return v / 1000; }
static int version_minor(int v) { return v % 1000 / 10; }

/* Driver present, new enough for this runtime, and the device there. */
/* *device < 0 is a job's rank taking a GPU by its local rank (backend.h):
 * -1 - local rank, modulo the GPUs this process sees (one each under
 * Slurm's --gpus-per-task, where CUDA_VISIBLE_DEVICES holds one). */
static fc_status check_device(int *device_io, cudaDeviceProp *prop, char *why, size_t cap) {
    int driver = 0, runtime = 0, count = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0) {
        snprintf(why, cap, "no NVIDIA driver: cudaDriverGetVersion found none (is the nvidia kernel module loaded?)");
        return FC_ERR_BACKEND;
    }
    /* CUDA's minor-version compatibility: any driver of the same major
     * version runs a newer minor toolkit's code (all targets have SASS) */
    cudaError_t err = version_major(driver) < version_major(runtime) ? cudaErrorInsufficientDriver
                                                                     : cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver) {
        snprintf(why, cap, "NVIDIA driver too old: it supports CUDA %d.%d, the backend was built with CUDA %d.%d",
                 version_major(driver), version_minor(driver), version_major(runtime), version_minor(runtime));
        return FC_ERR_BACKEND;
    }
    if (err != cudaSuccess || count == 0) {
        snprintf(why, cap, "no CUDA device: cudaGetDeviceCount: %s",
                 err != cudaSuccess ? cudaGetErrorString(err) : "0 devices");
        return FC_ERR_BACKEND;
    }
    if (*device_io < 0) *device_io = (-1 - *device_io) % count;
    int device = *device_io;
    if (device >= count) {
        snprintf(why, cap, "no such GPU: cuda:%d asked for, this machine has %d", device, count);
        return FC_ERR_BACKEND;
    }
    err = cudaGetDeviceProperties(prop, device);
    if (err != cudaSuccess) {
        snprintf(why, cap, "cuda:%d: cudaGetDeviceProperties: %s", device, cudaGetErrorString(err));
        return FC_ERR_BACKEND;
    }
    if (prop->major < FC_CUDA_MIN_MAJOR) {
        snprintf(why, cap, "cuda:%d (%s) has compute capability %d.%d; fcast needs %d.0 (Ampere) or newer",
                 device, prop->name, prop->major, prop->minor, FC_CUDA_MIN_MAJOR);
        return FC_ERR_BACKEND;
    }
    return FC_OK;
}

/* Stream, reduction partials and cuBLASLt: the first allocations, so the
 * first place an out-of-memory device shows. */
static fc_status open_device(fc_backend *be, char *why, size_t cap) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    cudaError_t err = cudaSetDevice(impl->device);
    if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking);
    if (err == cudaSuccess) err = cudaMalloc((void **)&impl->d_partials, 2 * FC_REDUCE_MAX_BLOCKS * sizeof(double));
    if (err == cudaSuccess) err = cudaMallocHost((void **)&impl->h_partials, 2 * FC_REDUCE_MAX_BLOCKS * sizeof(double));
    if (err == cudaSuccess) err = cudaMalloc((void **)&impl->d_coef, sizeof(float));
    if (err != cudaSuccess) {
        snprintf(why, cap, "cuda:%d (%s): %s: %s", impl->device, impl->name,
                 err == cudaErrorMemoryAllocation ? "out of memory" : "cannot open the device", cudaGetErrorString(err));
        return err == cudaErrorMemoryAllocation ? FC_ERR_MEMORY : FC_ERR_BACKEND;
    }
    fc_status st = fc_cuda_dense_init(be);
    if (st != FC_OK) {
        snprintf(why, cap, "cuda:%d (%s): cuBLASLt could not start: %s", impl->device, impl->name,
                 st == FC_ERR_MEMORY ? "out of memory for its workspace" : "see the error above");
        return st == FC_ERR_MEMORY ? FC_ERR_MEMORY : FC_ERR_BACKEND;
    }
    return FC_OK;
}

extern "C" __attribute__((visibility("default"))) fc_status
fc_backend_cuda_create(int abi, int device, fc_error_fn report, fc_backend **out, char *why, size_t why_cap) {
    *out = NULL;
    fc_cuda_set_reporter(report);
    if (abi != FC_BACKEND_ABI) {
        snprintf(why, why_cap, "the CUDA backend library was built for backend ABI %d, this fcast uses %d: "
                 "rebuild them together", FC_BACKEND_ABI, abi);
        return FC_ERR_BACKEND;
    }
    cudaDeviceProp prop;
    fc_status st = check_device(&device, &prop, why, why_cap);
    if (st != FC_OK) return st;
    fc_backend *be = (fc_backend *)calloc(1, sizeof *be);
    fc_cuda_impl *impl = (fc_cuda_impl *)calloc(1, sizeof *impl);
    if (!be || !impl) {
        free(be);
        free(impl);
        snprintf(why, why_cap, "out of host memory for the CUDA backend");
        return FC_ERR_MEMORY;
    }
    be->impl = impl;
    be->threads = 1;
    be->gpu = device;
    impl->device = device;
    impl->cc_major = prop.major;
    impl->cc_minor = prop.minor;
    impl->sm_count = prop.multiProcessorCount;
    snprintf(impl->name, sizeof impl->name, "%s", prop.name);
    fill_table(be);
    st = open_device(be, why, why_cap);
    if (st != FC_OK) {
        cuda_destroy(be);
        return st;
    }
    *out = be;
    return FC_OK;
}
