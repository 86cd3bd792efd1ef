"""How fast a prepare could take a layer's weights to the GPU on the device's host: 67 MB (W8A8
8192 x 8192's codes) by a pageable copy (what hum_layer_upload does now, cuMemcpyHtoD), by
cudaHostRegister of the same buffer then a copy, and through pinned staging buffers filled by
1, 2, 4 or 8 threads. Median of 7 runs each, ms. Usage: python3 h2d-probe.py [MB]"""
import sys, time, statistics, threading, ctypes
import torch

mb = int(sys.argv[1]) if len(sys.argv) > 1 else 67
n = mb << 20
src = torch.randint(0, 255, (n,), dtype=torch.uint8)  # pageable, touched
dst = torch.empty(n, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
rt = torch.cuda.cudart()


def med(fn, reps=7):
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts), min(ts)


def pageable():
    dst.copy_(src)


def registered():
    ptr = src.data_ptr()
    assert rt.cudaHostRegister(ptr, n, 0) == 0
    dst.copy_(src, non_blocking=True)
    torch.cuda.synchronize()
    rt.cudaHostUnregister(ptr)


def register_only():
    ptr = src.data_ptr()
    assert rt.cudaHostRegister(ptr, n, 0) == 0
    rt.cudaHostUnregister(ptr)


chunk = 8 << 20
stage = [torch.empty(chunk, dtype=torch.uint8).pin_memory() for _ in range(2)]
streams = torch.cuda.Stream()
events = [torch.cuda.Event() for _ in range(2)]


def staged(threads):
    def run():
        for i, off in enumerate(range(0, n, chunk)):
            b = i % 2
            events[b].synchronize()  # the DMA that last read this buffer is done
            m = min(chunk, n - off)
            part = (m + threads - 1) // threads
            def cp(t):
                lo = t * part
                hi = min(m, lo + part)
                if lo < hi:
                    ctypes.memmove(stage[b].data_ptr() + lo, src.data_ptr() + off + lo, hi - lo)
            ws = [threading.Thread(target=cp, args=(t,)) for t in range(1, threads)]
            for w in ws:
                w.start()
            cp(0)
            for w in ws:
                w.join()
            with torch.cuda.stream(streams):
                dst[off:off + m].copy_(stage[b][:m], non_blocking=True)
                events[b].record(streams)
        streams.synchronize()
    return run


print(f"{mb} MB host -> device, median / min of 7, ms")
print("pageable copy       %.2f / %.2f" % med(pageable))
print("register + unreg    %.2f / %.2f" % med(register_only))
print("register, copy      %.2f / %.2f" % med(registered))
for t in (1, 2, 4, 8):
    print("staged, %d threads   %.2f / %.2f" % ((t,) + med(staged(t))))
assert torch.equal(dst.cpu(), src)
