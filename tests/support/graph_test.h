/* Forwards captured into CUDA graphs, for the tests that replay them or count what they launch. */
#ifndef HUM_GRAPH_TEST_H
#define HUM_GRAPH_TEST_H

#include "cuda_driver.h"
#include "hum/hum_tools.h"

#include <stddef.h>

/* What a test launches on `stream` while it is captured (a forward); returns its status. */
typedef hum_status (*graph_test_record)(void *ctx, CUstream stream);

/* Captures what `record` launches on `stream` (thread-local mode) and instantiates it into
 * *exec. The capture ends whatever `record` answers, so the stream and the calling thread
 * always leave capture mode. *nodes, when not NULL: the graph's node count (one per kernel
 * launch, memset or copy). HUM_OK, or the first failure (record's or the driver's) with
 * hum_last_error() set and *exec NULL. */
hum_status graph_test_capture(CUstream stream, graph_test_record record, void *ctx, CUgraphExec *exec,
                              size_t *nodes);

#endif
