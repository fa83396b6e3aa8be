/* The CPU backend: fills the table of backend.h with oneDNN matrix products
 * (cpu_matmul.c, cpu_linear.c) and OpenMP loops over the kernels/ bodies
 * (cpu_elementwise.c, cpu_resample.c, cpu_reduce.c, cpu_adam.c). Memory is
 * plain host memory, 64-byte aligned for AVX-512 loads. */
#include <malloc.h>
#include <sys/mman.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "core/memory_stats.h"

/* From the arena when one is open: a bump pointer, 64-byte aligned. */
static void *arena_alloc(fc_cpu_impl *impl, size_t bytes) {
    size_t at;
    if (fc_arena_take(&impl->books, bytes, 64, &at) != FC_OK) return NULL;
    return impl->arena + at;
}

static int in_arena(const fc_cpu_impl *impl, const void *p) {
    return impl->arena && (const char *)p >= impl->arena && (const char *)p < impl->arena + impl->books.size;
}

static fc_status cpu_arena_open(fc_backend *be, size_t bytes) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    if (impl->arena) return fc_error(FC_ERR_INVALID, "a memory arena is already open on this backend");
    void *p = mmap(NULL, bytes ? bytes : 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return fc_error(FC_ERR_MEMORY, "cannot reserve the run's memory arena of %zu bytes", bytes);
    impl->arena = p;
    impl->books = (fc_arena_books){bytes, 0, 0, 0};
    return FC_OK;
}

static void arena_unmap(fc_cpu_impl *impl) {
    munmap(impl->arena, impl->books.size ? impl->books.size : 64);
    impl->arena = NULL;
    impl->books = (fc_arena_books){0, 0, 0, 0};
}

static void cpu_arena_close(fc_backend *be) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    if (!impl->arena) return;
    FC_ASSERT(impl->books.live == 0);   /* a buffer still in use would dangle */
    arena_unmap(impl);
}

static void cpu_arena_stats(const fc_backend *be, size_t *used, size_t *size) {
    const fc_cpu_impl *impl = (const fc_cpu_impl *)be->impl;
    *used = impl->books.used;
    *size = impl->books.size;
}

static void cpu_arena_seal(fc_backend *be) { fc_cpu_impl_of(be)->books.sealed = 1; }

static void *cpu_alloc(fc_backend *be, size_t bytes) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    if (impl->arena && !impl->books.sealed) return arena_alloc(impl, bytes);
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes (64-byte aligned) on the CPU backend",
                 bytes);
        return NULL;
    }
    return p;
}

static void cpu_release(fc_backend *be, void *p) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    if (in_arena(impl, p)) {
        fc_arena_give_back(&impl->books);   /* its space returns when the arena closes */
        return;
    }
    free(p);
}

/* Staging memory is plain memory on the CPU: there is no device to pin it for. */
static void *cpu_host_alloc(fc_backend *be, size_t bytes) {
    (void)be;
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) {
        fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes of staging memory", bytes);
        return NULL;
    }
    return p;
}

static void cpu_host_release(fc_backend *be, void *p) {
    (void)be;
    free(p);
}

static void cpu_copy(fc_backend *be, void *dst, const void *src, size_t bytes) {
    (void)be;
    if (bytes) memcpy(dst, src, bytes);
}

static void cpu_sync(fc_backend *be) { dnnl_stream_wait(fc_cpu_impl_of(be)->stream); }

/* Every CPU entry that can fail returns its status: nothing is deferred. */
static fc_status cpu_status(fc_backend *be) {
    (void)be;
    return FC_OK;
}

static void cpu_memory_info(fc_backend *be, size_t *free_bytes, size_t *total_bytes) {
    (void)be;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *free_bytes = fc_memory_available();
    *total_bytes = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* bf16 on 2-byte values where a bf16 kernel runs and beats fp32, else
 * carried in fp32, as fp16 always is (cpu_lowp.c). */
static size_t cpu_low_bytes(const fc_backend *be, fc_precision prec) {
    (void)be;
    if (prec == FC_PREC_FP32) return 0;
    return prec == FC_PREC_BF16 && fc_cpu_bf16_native() ? 2 : sizeof(float);
}

static void cpu_destroy(fc_backend *be) {
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    if (impl && impl->arena) arena_unmap(impl);   /* the backend's buffers go with it */
    if (impl) fc_cpu_matmul_free(impl);
    free(impl);
    free(be);
}

/* OpenMP's thread count is the calling thread's (backend_ops.def). */
static fc_status cpu_bind_thread(fc_backend *be) {
    omp_set_num_threads(be->threads);
    return FC_OK;
}

static void cpu_fill_table(fc_backend *be) {
    be->name = "cpu";
    be->host_visible = 1;
    be->alloc = cpu_alloc;
    be->release = cpu_release;
    be->to_device = cpu_copy;
    be->to_host = cpu_copy;
    be->host_alloc = cpu_host_alloc;
    be->host_release = cpu_host_release;
    be->sync = cpu_sync;
    be->bind_thread = cpu_bind_thread;
    be->status = cpu_status;
    be->memory_info = cpu_memory_info;
    be->arena_open = cpu_arena_open;
    be->arena_close = cpu_arena_close;
    be->arena_seal = cpu_arena_seal;
    be->arena_stats = cpu_arena_stats;
    be->destroy = cpu_destroy;
    be->low_bytes = cpu_low_bytes;
    /* the rest: every FN of the cpu column of backend_ops.def */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) FC_OP_IF_FN_##cpu(be->name = fc_cpu_##name;)
#include "backend/backend_ops.def"
#undef FC_BACKEND_OP
}

/* oneDNN was built with the same GNU OpenMP runtime as our loops, so one
 * omp_set_num_threads covers both: its primitives and dnnl_sgemm size their
 * parallel regions from omp_get_max_threads() of the calling thread. */
/* More threads than this is a typo, not a machine: refuse it before
 * libgomp tries to create them and exits. */
#define FC_CPU_MAX_THREADS 1024

/* Large buffers (activations, parameters, staging) come and go with each
 * model and run. glibc serves blocks over its mmap threshold with mmap and
 * returns them on free, but raises that threshold as such blocks are freed
 * (up to 32 MiB), after which they come from the heap and stay resident:
 * repeated fits then ratchet the resident size up by tens of MiB although
 * nothing leaks. A fixed threshold keeps every buffer of 256 KiB or more on
 * mmap, so resident memory follows the memory plan. */
static void keep_large_blocks_on_mmap(void) { mallopt(M_MMAP_THRESHOLD, 256 * 1024); }

fc_status fc_backend_cpu_create(int threads, fc_backend **out) {
    *out = NULL;
    keep_large_blocks_on_mmap();
    if (threads < 0 || threads > FC_CPU_MAX_THREADS)
        return fc_error(FC_ERR_INVALID, "CPU backend: threads = %d; expected 0 (all cores) to %d",
                        threads, FC_CPU_MAX_THREADS);
    if (threads == 0) threads = omp_get_num_procs();
    fc_backend *be = fc_calloc(1, sizeof *be, "the CPU backend");
    if (!be) return FC_ERR_MEMORY;
    fc_cpu_impl *impl = fc_calloc(1, sizeof *impl, "the CPU backend state");
    if (!impl) {
        free(be);
        return FC_ERR_MEMORY;
    }
    be->impl = impl;
    be->threads = threads;
    be->gpu = -1;
    cpu_fill_table(be);
    fc_status st = fc_cpu_matmul_init(impl);
    if (st != FC_OK) {
        cpu_destroy(be);
        return st;
    }
    omp_set_num_threads(threads);
    /* Test hook (docs/operations.md): the CPU backend declares its memory
     * not host-visible, so callers take the to_host / to_device path a GPU
     * needs, and tests check that path on machines without one. */
    if (getenv("FCAST_TEST_NOT_HOST_VISIBLE")) be->host_visible = 0;
    *out = be;
    return FC_OK;
}

size_t fc_backend_cpu_primitives_created(const fc_backend *be) {
    return ((const fc_cpu_impl *)be->impl)->primitives_created;
}
