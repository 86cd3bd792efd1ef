"""Ranks the SASS instructions of a kernel by warp-stall samples (ncu's source page).
Usage: python3 ncu-stalls.py FILE.csv.gz N, FILE from
`ncu -i REP --page source --csv --print-source sass | gzip` (bench/sweeps/s13-ncu.sh makes them).
Prints the N most sampled instructions in program order: line, share of all samples, times
executed (warp-level), the instruction, its two top stall reasons. A wait on an mbarrier shows
as the branch after SYNCS.PHASECHK; which warps run it follows from the execution count."""
import csv, gzip, sys
rows = list(csv.reader(gzip.open(sys.argv[1], 'rt'))); hdr = rows[1]; data = rows[2:]
isrc = hdr.index("Source"); iall = hdr.index("Warp Stall Sampling (All Samples)"); iex = hdr.index("Instructions Executed")
stalls = [i for i, h in enumerate(hdr) if h.startswith("stall_") and "Not Issued" not in h]
num = lambda x: float(x) if x.replace('.','',1).isdigit() else 0.0
T = sum(num(r[iall]) for r in data)
top = sorted(range(len(data)), key=lambda j: -num(data[j][iall]))[:int(sys.argv[2])]
for j in sorted(top):
    r = data[j]; main = sorted(((num(r[i]), hdr[i][6:]) for i in stalls), reverse=True)[:2]
    print(f"{j:5d} {num(r[iall])/T*100:5.1f}% ex={r[iex]:>7} {r[isrc].strip()[:60]:60s} {main[0][1]}:{main[0][0]:.0f} {main[1][1]}:{main[1][0]:.0f}")
