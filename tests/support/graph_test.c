/* See graph_test.h. */
#include "graph_test.h"

hum_status graph_test_capture(CUstream stream, graph_test_record record, void *ctx, CUgraphExec *exec,
                              size_t *nodes)
{
    *exec = NULL;
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st == HUM_OK)
        st = hum_cuda_result(cu->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                             "cuStreamBeginCapture");
    if (st != HUM_OK)
        return st;
    st = record(ctx, stream);
    CUgraph graph = NULL;
    /* ended before anything else is asked of the driver; its error counts only where record
     * succeeded (after a failed launch it reports the capture invalidated) */
    const CUresult end = cu->cuStreamEndCapture(stream, &graph);
    if (st == HUM_OK)
        st = hum_cuda_result(end, "cuStreamEndCapture");
    if (st == HUM_OK && nodes) {
        PFN_cuGraphGetNodes_v10000 get_nodes = NULL;
        st = hum_cuda_entry("cuGraphGetNodes", 10000, (void **)&get_nodes);
        if (st == HUM_OK)
            st = hum_cuda_result(get_nodes(graph, NULL, nodes), "cuGraphGetNodes");
    }
    if (st == HUM_OK)
        st = hum_cuda_result(cu->cuGraphInstantiateWithFlags(exec, graph, 0), "cuGraphInstantiateWithFlags");
    if (st != HUM_OK)
        *exec = NULL;
    if (graph)
        cu->cuGraphDestroy(graph);
    return st;
}
