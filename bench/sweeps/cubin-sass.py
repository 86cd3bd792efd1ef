#!/usr/bin/env python3
"""Per kernel of a hum cache directory: its wgmma instructions, the waits after them, and local
memory instructions, from the SASS of each cached cubin (a .hum entry holds the cubin after its
header). Serialized wgmmas (ptxas C7514) show as one `WARPGROUP.DEPBAR.LE gsb0, 0x0` per wgmma
and no `0x1` wait. No GPU needed: cuobjdump comes with the CUDA toolkit, or from PyPI
(`pip download --no-deps nvidia-cuda-cuobjdump`, bin/cuobjdump in the wheel).
  bench/sweeps/cubin-sass.py CACHE_DIR [CUOBJDUMP]"""
import collections, glob, os, re, subprocess, sys, tempfile

cache, tool = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "cuobjdump"
with tempfile.TemporaryDirectory() as tmp:
    for f in sorted(glob.glob(os.path.join(cache, "kernels", "*.hum"))):
        data = open(f, "rb").read()
        at = data.find(b"\x7fELF")
        if at < 0:
            continue
        cubin = os.path.join(tmp, "k.cubin")
        open(cubin, "wb").write(data[at:])
        sass = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True).stdout
        mma = collections.Counter(re.findall(r"\b([QH]GMMA\.\d+x\d+x\d+)", sass))
        if not mma and "HMMA" not in sass:
            continue
        name = re.search(r"Function : (\S+)", sass)
        print("%s %s wgmma %s wait0 %d wait1 %d local %d" % (
            os.path.basename(f)[:12], name.group(1) if name else "?",
            " ".join("%s:%d" % kv for kv in sorted(mma.items())) or "-",
            sass.count("DEPBAR.LE gsb0, 0x0"), sass.count("DEPBAR.LE gsb0, 0x1"),
            len(re.findall(r"\b(?:STL|LDL)\b", sass))))
