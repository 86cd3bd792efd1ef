#!/bin/sh
# Times one layer SPEC under several single-tuning site policies on a GPU host, to choose a
# policy table's entries (bench/NOTES.md). Each candidate is one line "label|lua tuning table";
# the layer is benchmarked at the M values given, with the candidate as its only M range.
# usage: bench/sweep-tiles.sh BUILD_DIR SPEC M_LIST CANDIDATES_FILE
# Output: one `hum bench` table per candidate, prefixed by its label.
set -u
build=$1 spec=$2 ms=$3 candidates=$4
hum="$build/runtime/hum"
work=$(mktemp -d)
while IFS='|' read -r label tuning; do
    case "$label" in '' | '#'*) continue ;; esac
    cat >"$work/sweep.lua" <<LUA
return { name = "sweep", applies = function(device) return true end,
         tunings = function(device, layer) return { { m_min = 1, m_max = math.huge, tuning = $tuning } } end }
LUA
    printf 'policy_paths: [%s/sweep.lua]\n' "$work" >"$work/sweep.yaml"
    echo "== $label"
    timeout 60 "$hum" --config "$work/sweep.yaml" bench --layer "$spec" --m "$ms" --warmup 10 --reps 50 --out "$work/out.json" 2>&1 |
        grep -E '^ *[0-9]+ |error|refus|FAIL|unsupported' | head -20
done <"$candidates"
rm -rf "$work"
