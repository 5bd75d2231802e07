#!/usr/bin/env bash
# Disaggregated prefill against aggregated workers on a replayed Mooncake-format trace (issue 10): a fresh
# `squall serve` of mock workers per graph, `squall bench serve --trace` against it, one report per graph.
#
#   bench/disagg.sh TRACE OUT_DIR SPEEDUP RATE_SCALE [GRAPH...]
#
# GRAPH is a quoted list of squall serve options, by default "--workers 16" and
# "--prefill-workers 4 --decode-workers 12". SPEEDUP divides the mock's step times and the trace's timestamps
# alike (pick it so the host streams ~1,500 tokens a wall-clock second); RATE_SCALE raises the load. Writes
# OUT_DIR/graph-N.json and prints one line per graph. Environment: PROFILE (default
# examples/profiles/llama-8b-h100.json), MODEL (a GGUF whose context holds the trace's longest prompt),
# HTTP_PORT (default 18500; the next three ports are taken too), SERVE_ARGS (more squall serve options).
#
#   bench/mixed-trace.py mixed.jsonl
#   MODEL=mock-vocab-128k.gguf bench/disagg.sh mixed.jsonl out 0.55 1 "--workers 16" \
#       "--prefill-workers 4 --decode-workers 12 --disagg-min-tokens 4096"
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
trace=$1; out=$2; speedup=$3; rate=$4
shift 4
graphs=("$@")
[ ${#graphs[@]} -gt 0 ] || graphs=("--workers 16" "--prefill-workers 4 --decode-workers 12")
[ -n "${MODEL:-}" ] || { echo "disagg: set MODEL to a GGUF whose context holds the trace's prompts" >&2; exit 2; }
profile=${PROFILE:-$ROOT/examples/profiles/llama-8b-h100.json}
port=${HTTP_PORT:-18500}
mkdir -p "$out"
export SQUALL_AOT=off
"$ROOT/squall" --version >/dev/null # builds the jar if needed
# shellcheck source=bench/mock-serve.sh
. "$ROOT/bench/mock-serve.sh"

n=0
for graph in "${graphs[@]}"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  mock_serve_start "$out/serve-$n.log" "$port" --model "$MODEL" --profile "$profile" --speedup "$speedup" \
    $graph ${SERVE_ARGS:-}
  "$ROOT/squall" bench serve --url "http://127.0.0.1:$port" --trace "$trace" --speedup "$speedup" \
    --rate-scale "$rate" --seed 3 --out "$out/graph-$n.json" >/dev/null 2>"$out/bench-$n.err" \
    || { cat "$out/bench-$n.err" >&2; exit 1; }
  mock_serve_stop
  python3 - "$out/graph-$n.json" "$graph" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
t, i, o = r["ttft_ms"], r["itl_ms"], r["tpot_ms"]
print(f"{sys.argv[2]}: TTFT mean/p50/p90/p99 {t['mean']/1000:.2f}/{t['p50']/1000:.2f}/{t['p90']/1000:.2f}/{t['p99']/1000:.2f} s"
      f"  ITL mean/p90/p99 {i['mean']:.1f}/{i['p90']:.1f}/{i['p99']:.1f} ms"
      f"  TPOT mean/p90/p99 {o['mean']:.1f}/{o['p90']:.1f}/{o['p99']:.1f} ms  latency {r['latency_ms']['mean']/1000:.2f} s"
      f"  output {r['output_tokens_per_second']:.0f} tokens/s  errors {r['errors']}  send lag p99 {r['send_lag_ms']['p99']:.0f} ms")
EOF
done
