/* The processes of a data-parallel job over MPI (see dist.h). The
 * collectives are MPI's own (Open MPI from Debian; any MPI through the
 * standard API): nothing here moves bytes itself. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/local_rank.h"
#include "dist/dist.h"
#include "dist/dist_watch.h"

enum { FC_DIST_PIECE = 1 << 30 };   /* elements per MPI call (its counts are ints) */

#ifdef FC_HAVE_MPI
#include <mpi.h>
#endif

static int g_started, g_rank, g_size = 1;

/* A launcher's mark in the environment: Open MPI's, a PMI or PMIx one (MPICH, Slurm's srun). */
static int launched_by_mpi(void) {
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

#ifdef FC_HAVE_MPI
static void finish(void) {
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

static fc_status mpi_failed(const char *what, int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return fc_error(FC_ERR_BACKEND, "MPI %s failed on rank %d: %.*s", what, g_rank, len, text);
}

fc_status fc_dist_start(void) {
    if (g_started || !launched_by_mpi()) return FC_OK;
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        if (rc != MPI_SUCCESS) return fc_error(FC_ERR_BACKEND, "MPI_Init failed (error %d)", rc);
        atexit(finish);
    }
    /* errors come back as codes, so a failed collective is a message, not a silent abort */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_started = 1;
    if (g_size > 1) fc_dist_watch_start(g_rank);
    return FC_OK;
}

/* Refuses a count MPI's int cannot hold in one call. */
static fc_status one_call(size_t n, const char *what) {
    return n > (size_t)INT_MAX ? fc_error(FC_ERR_INVALID, "%zu %s are more than one MPI call sends", n, what) : FC_OK;
}

/* Rank order: every rank's x to rank 0, summed there from rank 0 up, the
 * mean sent back. */
static fc_status mean_fixed_order(float *x, size_t n) {
    float *all = g_rank == 0 ? malloc(n * (size_t)g_size * sizeof *all) : NULL;
    int ok = g_rank != 0 || all != NULL;
    int all_ok = 0, rc = MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        free(all);
        return mpi_failed("gradient gather", rc);
    }
    if (!all_ok) {
        free(all);
        return fc_error(FC_ERR_MEMORY, "--deterministic-reduce: rank 0 has no room for %d x %zu gradients", g_size, n);
    }
    rc = MPI_Gather(x, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && g_rank == 0)
        for (size_t i = 0; i < n; i++) {
            float s = all[i];
            for (int r = 1; r < g_size; r++) s += all[(size_t)r * n + i];
            x[i] = s / (float)g_size;
        }
    free(all);
    if (rc == MPI_SUCCESS) rc = MPI_Bcast(x, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? FC_OK : mpi_failed("gradient gather", rc);
}

fc_status fc_dist_mean_floats(float *x, size_t n, int fixed_order) {
    if (g_size < 2 || !n) return FC_OK;
    FC_TRY(one_call(n, "gradients"));
    fc_dist_watch_enter("gradient reduction");
    if (fixed_order) {
        fc_status st = mean_fixed_order(x, n);
        fc_dist_watch_leave();
        return st;
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, x, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    fc_dist_watch_leave();
    if (rc != MPI_SUCCESS) return mpi_failed("gradient all-reduce", rc);
    for (size_t i = 0; i < n; i++) x[i] /= (float)g_size;
    return FC_OK;
}

fc_status fc_dist_mean_double(double *x) {
    if (g_size < 2) return FC_OK;
    fc_dist_watch_enter("loss all-reduce");
    int rc = MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    fc_dist_watch_leave();
    if (rc != MPI_SUCCESS) return mpi_failed("loss all-reduce", rc);
    *x /= g_size;
    return FC_OK;
}

/* As 32-bit words, in pieces MPI's int counts can hold. */
fc_status fc_dist_merge(void *x, size_t bytes, int in_step) {
    if (bytes % 4) return fc_error(FC_ERR_INVALID, "fc_dist_merge: %zu bytes are not whole 32-bit words", bytes);
    uint32_t *w = x;
    for (size_t at = 0, n = bytes / 4; g_size > 1 && at < n; at += FC_DIST_PIECE) {
        int count = (int)(n - at < FC_DIST_PIECE ? n - at : FC_DIST_PIECE);
        if (in_step) fc_dist_watch_enter("merge of the ranks' shares");
        int rc = MPI_Allreduce(MPI_IN_PLACE, w + at, count, MPI_UINT32_T, MPI_BOR, MPI_COMM_WORLD);
        fc_dist_watch_leave();
        if (rc != MPI_SUCCESS) return mpi_failed("merge of the ranks' shares", rc);
    }
    return FC_OK;
}

fc_status fc_dist_broadcast(void *x, size_t bytes) {
    if (g_size < 2) return FC_OK;
    FC_TRY(one_call(bytes, "bytes"));
    int rc = MPI_Bcast(x, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? FC_OK : mpi_failed("broadcast", rc);
}

int fc_dist_any(int flag) {
    if (g_size < 2) return flag != 0;
    int mine = flag != 0, any = 1;
    fc_dist_watch_enter("agreement on a stop");
    int rc = MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    fc_dist_watch_leave();
    return rc == MPI_SUCCESS ? any : 1;
}

void fc_dist_abort(int code) {
    if (g_size < 2) return;
    fprintf(stderr, "fcast: rank %d of %d failed: stopping the job\n", g_rank, g_size);
    MPI_Abort(MPI_COMM_WORLD, code);
}

#else   /* built without MPI */

fc_status fc_dist_start(void) {
    if (!launched_by_mpi()) return FC_OK;
    return fc_error(FC_ERR_INVALID, "this fcast was built without MPI, but mpirun (or srun) started it: rebuild "
                    "with an MPI installed (Debian: libopenmpi-dev; cmake -DFC_MPI=ON), or run it alone");
}

fc_status fc_dist_mean_floats(float *x, size_t n, int fixed_order) {
    (void)x, (void)n, (void)fixed_order;
    return FC_OK;
}

fc_status fc_dist_mean_double(double *x) {
    (void)x;
    return FC_OK;
}

fc_status fc_dist_merge(void *x, size_t bytes, int in_step) {
    (void)x, (void)bytes, (void)in_step;
    return FC_OK;
}

fc_status fc_dist_broadcast(void *x, size_t bytes) {
    (void)x, (void)bytes;
    return FC_OK;
}

int fc_dist_any(int flag) { return flag != 0; }

void fc_dist_abort(int code) { (void)code; }

#endif

fc_status fc_dist_sum_ordered(double *x, size_t n, double *slots, int in_step) {
    size_t ranks = (size_t)g_size;
    if (ranks < 2 || !n) return FC_OK;
    memset(slots, 0, ranks * n * sizeof *slots);
    memcpy(slots + (size_t)g_rank * n, x, n * sizeof *x);
    FC_TRY(fc_dist_merge(slots, ranks * n * sizeof *slots, in_step));
    for (size_t i = 0; i < n; i++) {
        x[i] = 0.0;
        for (size_t r = 0; r < ranks; r++) x[i] += slots[r * n + i];
    }
    return FC_OK;
}

int fc_dist_rank(void) { return g_rank; }
int fc_dist_size(void) { return g_size; }

void fc_dist_part(size_t n, size_t block, int rank, int ranks, size_t *lo, size_t *hi) {
    size_t blocks = block ? (n + block - 1) / block : 0, R = ranks > 0 ? (size_t)ranks : 1, r = (size_t)rank;
    size_t first = blocks * r / R, last = blocks * (r + 1) / R;   /* contiguous, sizes differ by one at most */
    *lo = first * block < n ? first * block : n;
    *hi = last * block < n ? last * block : n;
}

int fc_dist_local_rank(void) { return fc_local_rank(); }
