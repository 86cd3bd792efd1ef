"""One forward of a layer per M, for compute-sanitizer (racecheck) on the device machine: the layer
from SPEC (hum_layer_spec_parse keys, random weights), x random, under deployment config CONFIG
("-": none). Session 26 ran it as .exp/rc.py from bench/results/H200-2026-12-05/*/request.sh.
  compute-sanitizer --tool racecheck python3 bench/sweeps/forward-once.py CONFIG SPEC M [M ...]"""
import sys, torch, hum
cfg, spec, ms = sys.argv[1], sys.argv[2], [int(m) for m in sys.argv[3:]]
rt = hum.Runtime(config=None if cfg == "-" else cfg)
layer = rt.layer_from_spec(spec, seed=1)
ws = rt.workspace([layer], max_m=max(ms))
for m in ms:
    x = torch.randn((m, layer.k), dtype=getattr(torch, layer.output), device="cuda:0")
    y = layer(x, workspace=ws)
    torch.cuda.synchronize()
    print(spec, m, float(y.float().abs().sum()), flush=True)
ws.close(); layer.close(); rt.close()
