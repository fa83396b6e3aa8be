/* CUDA graphs for the repeated launch sequences (a whole training step,
 * train/trainer.c; an inference chunk's forward): stream capture into a
 * graph, instantiated once and replayed with one cudaGraphLaunch. Contract in
 * backend.h (capture_begin ... graph_free).
 *
 * A capture that fails (a call that cannot be captured, such as a
 * synchronising copy) must leave the backend usable, since the caller then
 * runs the same calls eagerly: entries that returned no status noted their
 * failure in impl->failed during the capture, and that note is dropped
 * here, because nothing of the capture ran. */
#include "backend/cuda/cuda_internal.h"

fc_status fc_cuda_capture_begin(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    FC_TRY(fc_cuda_failure(be));
    impl->capturing = 1;
    /* ThreadLocal: only this thread's unsafe calls (cudaMalloc, sync) break
     * the capture; other threads of the process are left alone. */
    fc_status st = FC_CUDA(cudaStreamBeginCapture(impl->stream, cudaStreamCaptureModeThreadLocal));
    if (st != FC_OK) impl->capturing = 0;
    return st;
}

fc_status fc_cuda_capture_end(fc_backend *be, void **graph) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    *graph = NULL;
    cudaGraph_t g = NULL;
    fc_status st = FC_CUDA(cudaStreamEndCapture(impl->stream, &g));
    fc_status during = impl->failed;
    impl->failed = FC_OK;   /* the capture's failures: nothing of it ran */
    impl->capturing = 0;
    cudaGetLastError();     /* an invalidated capture leaves its error behind */
    if (st == FC_OK && during != FC_OK)
        st = fc_error(during, "CUDA graph: a call could not be captured (see the error above)");
    cudaGraphExec_t exec = NULL;
    if (st == FC_OK) st = FC_CUDA(cudaGraphInstantiate(&exec, g, 0));
    if (g) cudaGraphDestroy(g);   /* the instance keeps what it needs */
    if (st == FC_OK) *graph = exec;
    return st;
}

fc_status fc_cuda_graph_launch(fc_backend *be, void *graph) {
    FC_TRY(fc_cuda_failure(be));
    return FC_CUDA(cudaGraphLaunch((cudaGraphExec_t)graph, fc_cuda_stream(be)));
}

void fc_cuda_graph_free(fc_backend *be, void *graph) {
    if (graph) fc_cuda_note_failure(be, FC_CUDA(cudaGraphExecDestroy((cudaGraphExec_t)graph)));
}
