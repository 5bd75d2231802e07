#!/usr/bin/env bash
# Routing policies against a replayed Mooncake trace at rising replay rates, 16 mock workers in one squall serve.
#
#   bench/router-sweep.sh TRACE OUT_DIR "RATES" "POLICIES" [WALL_TOKENS_PER_S]
#
# TRACE is a Mooncake-format JSONL file; RATES are --rate-scale values; POLICIES are --router names, a kv one
# optionally with its overlap weight as kv:W, costing in weighted blocks, or in predicted time by the profile as
# kv+time (also kv-approx+time). Each rate runs at the --speedup that keeps the machine's own output near WALL_TOKENS_PER_S
# (default 1500) wall-clock tokens a second: the gateway's and the load generator's cost per streamed token,
# not the simulated GPUs, is what bounds a small host. Writes OUT_DIR/POLICY-RATE.json
# (squall bench serve reports) and prints one line per run; bench/plot-sweep.py draws them.
# Environment: PROFILE (default examples/profiles/llama-8b-h100.json), MODEL (a GGUF whose vocabulary and context
# the mock workers and the gateway use; its context must hold the trace's longest prompt), WORKERS (default 16),
# HTTP_PORT (default 18000; the next ports up are taken too), SERVE_ARGS (more squall serve options, e.g. a G2 tier:
# "--kv-host-bytes 268435456").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
trace=$1; out=$2; rates=$3; policies=$4; wall=${5:-1500}
profile=${PROFILE:-$ROOT/examples/profiles/llama-8b-h100.json}
workers=${WORKERS:-16}
port=${HTTP_PORT:-18000}
url=http://127.0.0.1:$port
mkdir -p "$out"
[ -n "${MODEL:-}" ] || { echo "router-sweep: set MODEL to a GGUF whose context holds the trace's prompts" >&2; exit 2; }

# simulated output tokens a second at rate 1: the trace's output over its span
per_second=$(python3 -c "
import json,sys
rs=[json.loads(l) for l in open(sys.argv[1]) if l.strip()]
span=max(r['timestamp'] for r in rs)/1000 or 1
print(sum(r['output_length'] for r in rs)/span)" "$trace")

# shellcheck source=bench/mock-serve.sh
. "$ROOT/bench/mock-serve.sh"

for rate in $rates; do
  speedup=$(python3 -c "print(round($wall/($per_second*$rate),3))")
  for policy in $policies; do
    name=${policy%%[:+]*}
    weight=1
    cost=(--router-profile none)
    case $policy in
      *:*) weight=${policy#*:} ;;
      *+time) cost=(--router-profile "$profile") ;;
    esac
    # shellcheck disable=SC2086
    mock_serve_start "$out/serve-$policy-$rate.log" "$port" --model "$MODEL" --profile "$profile" --speedup "$speedup" \
      --workers "$workers" --router "$name" --kv-overlap-weight "$weight" "${cost[@]}" ${SERVE_ARGS:-}
    "$ROOT/squall" bench serve --url "$url" --trace "$trace" --speedup "$speedup" --rate-scale "$rate" --seed 3 \
      --out "$out/$policy-$rate.json" > /dev/null 2>> "$out/bench.err"
    python3 -c "
import json,sys
r=json.load(open(sys.argv[1]))
print(sys.argv[2], 'x'+sys.argv[3], 'speedup', sys.argv[4], 'ttft_mean_ms', r['ttft_ms']['mean'], 'latency_mean_ms',
      r['latency_ms']['mean'], 'hit', r['cache_hit_rate'], 'ceiling', r['cache_hit_ceiling'], 'efficiency',
      r['router_efficiency'], 'errors', r['errors'], 'send_lag_p99_ms', r['send_lag_ms']['p99'])" \
      "$out/$policy-$rate.json" "$policy" "$rate" "$speedup"
    mock_serve_stop
  done
done
