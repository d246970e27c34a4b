#!/usr/bin/env bash
# Wall time and peak RSS of a simulated fillrandom against the data loaded (1 KiB values on
# splitzns-paper at full size), with elided values (the default) and, for the sizes that fit in
# memory, without. Writes OUT/scale-curve.csv and OUT/scale-curve.svg.
# Usage: scripts/scale-curve.sh [BIN] [OUT] [GiB ...]   (default sizes: 1 10 50)
set -euo pipefail
bin="${1:-target/release/zonedb}"
out="${2:-target/scale-curve}"
shift 2 || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10 50)
mkdir -p "$out"
csv="$out/scale-curve.csv"
echo "gib,puts,elide,wall_s,sim_ops_per_wall_s,peak_rss_bytes,write_amplification" >"$csv"
for g in "${sizes[@]}"; do
  n=$((g * 1048576))
  for e in true false; do
    # Without elision the payload lives in RAM: a 10 GiB load peaks near 19 GiB of RSS
    # (measured), so only sizes up to NOELIDE_MAX_GIB (default 1) run both ways.
    if [ "$e" = false ] && [ "$g" -gt "${NOELIDE_MAX_GIB:-1}" ]; then continue; fi
    j="$out/fill-${g}g-$e.json"
    "$bin" bench --benchmarks fillrandom --num "$n" --value_size 1024 --scale 1 \
      --elide_values="$e" --json >"$j"
    jq -r --arg g "$g" --arg n "$n" --arg e "$e" \
      '[$g, $n, $e, (.host.wall_ns / 1e9), .host.sim_ops_per_wall_s, .host.peak_rss_bytes,
        .write_amplification_lsm] | @csv' "$j" >>"$csv"
  done
done
python3 - "$csv" "$out/scale-curve.svg" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
W, H, L, B = 640, 360, 70, 50
def series(elide, key, scale):
    pts = [(float(r["gib"]), float(r[key]) / scale) for r in rows if r["elide"] == elide]
    return sorted(pts)
xs = [float(r["gib"]) for r in rows] or [1]
xmax = max(xs)
wall = series("true", "wall_s", 1) + series("false", "wall_s", 1)
rss = series("true", "peak_rss_bytes", 2**30) + series("false", "peak_rss_bytes", 2**30)
ymax_w = max([y for _, y in wall] + [1]) * 1.1
ymax_r = max([y for _, y in rss] + [1]) * 1.1
def X(x): return L + (W - 2 * L) * x / xmax
def Y(y, m): return H - B - (H - 2 * B) * y / m
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<line x1="{L}" y1="{H-B}" x2="{W-L}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{L}" y1="{B}" x2="{L}" y2="{H-B}" stroke="black"/>',
       f'<line x1="{W-L}" y1="{B}" x2="{W-L}" y2="{H-B}" stroke="black"/>',
       f'<text x="{W/2}" y="{H-12}" text-anchor="middle">GiB loaded (fillrandom, 1 KiB values)</text>',
       f'<text x="14" y="{H/2}" transform="rotate(-90 14 {H/2})" text-anchor="middle" fill="#1f77b4">wall time, s</text>',
       f'<text x="{W-14}" y="{H/2}" transform="rotate(90 {W-14} {H/2})" text-anchor="middle" fill="#d62728">peak RSS, GiB</text>']
for i in range(6):
    x = xmax * i / 5
    out.append(f'<text x="{X(x)}" y="{H-B+16}" text-anchor="middle">{x:g}</text>')
    out.append(f'<text x="{L-6}" y="{Y(ymax_w*i/5, ymax_w)+4}" text-anchor="end" fill="#1f77b4">{ymax_w*i/5:.0f}</text>')
    out.append(f'<text x="{W-L+6}" y="{Y(ymax_r*i/5, ymax_r)+4}" fill="#d62728">{ymax_r*i/5:.1f}</text>')
def line(pts, m, color, dash, label, ly):
    if not pts: return
    p = " ".join(f"{X(x):.1f},{Y(y, m):.1f}" for x, y in pts)
    out.append(f'<polyline points="{p}" fill="none" stroke="{color}" stroke-width="2" {dash}/>')
    for x, y in pts:
        out.append(f'<circle cx="{X(x):.1f}" cy="{Y(y, m):.1f}" r="3" fill="{color}"/>')
    out.append(f'<text x="{L+10}" y="{ly}" fill="{color}">{label}</text>')
line(series("true", "wall_s", 1), ymax_w, "#1f77b4", "", "wall, elided values", B + 4)
line(series("false", "wall_s", 1), ymax_w, "#1f77b4", 'stroke-dasharray="5,4"', "wall, stored values", B + 18)
line(series("true", "peak_rss_bytes", 2**30), ymax_r, "#d62728", "", "RSS, elided values", B + 32)
line(series("false", "peak_rss_bytes", 2**30), ymax_r, "#d62728", 'stroke-dasharray="5,4"', "RSS, stored values", B + 46)
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out))
PY
column -s, -t "$csv"
