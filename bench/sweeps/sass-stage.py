#!/usr/bin/env python3
"""Instructions per stage of a wgmma kernel's main loop, from its SASS (session 11, w4a8y).

    python3 bench/sweeps/sass-stage.py CACHE_DIR   (every kernel of a kernel cache)

CACHE_DIR: a kernel cache hum filled (e.g. HUM_CACHE_DIR=/tmp/c hum compile --arch sm_90a --layer
SPEC; HUM_KERNEL_PATH picks the kernel sources). Each cached kernel is a header followed by its
cubin, which is cut out at its ELF magic and disassembled by cuobjdump -sass (cuobjdump and
nvdisasm: the PyPI packages nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm, their bin/ on PATH).

The main loop is the backward branch whose body holds the wgmmas (HGMMA/QGMMA). Per stage it
counts the instructions on each path of e2m1's byte tables (kernels/gemm/dequant.cuh): `window`
leaves out the ranges a forward branch jumps over that convert to e4m3 (F2FP ... E4M3: the float16
products), `products` those that hold a wgmma but no conversion (the window path's copy of the
stage). Kernels without a products path give the same count twice. Also the registers and the
local memory (-res-usage).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

BRA = re.compile(r'BRA(?:\.\S+)?\s+(?:!?U?P\w+, )?0x([0-9a-f]+)')


def sass_of(path):
    data = open(path, 'rb').read()
    at = data.find(b'\x7fELF')
    with tempfile.NamedTemporaryFile(suffix='.cubin') as f:
        f.write(data[at:])
        f.flush()
        sass = subprocess.run(['cuobjdump', '-sass', f.name], capture_output=True, text=True).stdout
        res = subprocess.run(['cuobjdump', '-res-usage', f.name], capture_output=True, text=True).stdout
    return sass, ' '.join(re.findall(r'(?:REG|LOCAL):\d+', res))


def stage_counts(sass):
    ins = [(int(m.group(1), 16), m.group(2).strip())
           for m in (re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);', line) for line in sass.splitlines()) if m]
    index = {a: i for i, (a, _) in enumerate(ins)}
    for i, (a, text) in enumerate(ins):
        m = BRA.search(text)
        if not m or int(m.group(1), 16) >= a:
            continue
        j = index[int(m.group(1), 16)]
        if not any('GMMA' in t for _, t in ins[j:i + 1]):
            continue
        jumps = []
        for k in range(j, i + 1):
            m = BRA.search(ins[k][1])
            if m and ins[k][0] < int(m.group(1), 16) <= a:
                jumps.append((k + 1, index[int(m.group(1), 16)]))

        def path(products):
            left_out = set()
            for lo, hi in jumps:
                body = [t for _, t in ins[lo:hi]]
                convert = any('F2FP' in t and 'E4M3' in t for t in body)
                if convert if not products else any('GMMA' in t for t in body) and not convert:
                    left_out.update(range(lo, hi))
            return (i + 1 - j) - len(left_out)

        return ins[j][0], a, path(False), path(True)
    return None


def main():
    for path in sorted(glob.glob(os.path.join(sys.argv[1], 'kernels', '*'))):
        sass, res = sass_of(path)
        shapes = '+'.join(sorted(set(re.findall(r'GMMA\.(64x\d+x\d+)', sass))))
        loop = stage_counts(sass)
        if loop:
            print('%s %s %s: loop %#x..%#x, window %d, products %d' % (os.path.basename(path)[:12], shapes, res, *loop))


if __name__ == '__main__':
    main()
