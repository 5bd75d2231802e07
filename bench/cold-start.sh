#!/usr/bin/env bash
# Scale-from-zero time of a fresh `squall serve`: from the process's launch to the first streamed token of a
# completion (JVM start, model mapping, worker and gateway start, the first request's prefill and decode), with and
# without the AOT cache that ./squall trains per build. Prints one JSON line per run and a summary per mode.
#
#   flock /work/.cpu.lock bench/cold-start.sh [RUNS] [MODEL]
#
# RUNS defaults to 5, MODEL to the demo model (~/.cache/squall/demo-model.gguf, written by ./squall serve). SERVE_ARGS
# adds options to `squall serve` (e.g. "--kernel-warmup-seconds 0"). Each run also reports the first request's own time
# to first token, from the moment /readyz answered.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-5}"
model="${2:-$HOME/.cache/squall/demo-model.gguf}"
port=18473
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken" >&2; exit 1; fi
"$root/squall" --version >/dev/null # builds the jar and trains the AOT cache if needed
[ -f "$model" ] || { echo "no model at $model (run ./squall serve once to write the demo model)" >&2; exit 1; }

now_ms() { date +%s%3N; }

one_run() { # $1 = on|off: prints the milliseconds from launch to ready and to the first token
  local start ready first pid
  start=$(now_ms)
  SQUALL_AOT="$1" "$root/squall" serve --model "$model" --http-port "$port" --rsocket-port 0 --rsocket-ws-port 0 \
    --grid-port 0 --served-model-name m ${SERVE_ARGS:-} >/dev/null 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null' EXIT
  until curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do sleep 0.01; done
  ready=$(now_ms)
  # grep stops at the first token's chunk; curl then fails writing to the closed pipe, which is expected
  { curl -sN "http://127.0.0.1:$port/v1/completions" -H 'Content-Type: application/json' \
    -d '{"model":"m","prompt":"Once upon a time","max_tokens":16,"stream":true,"ignore_eos":true}' || true; } \
    | grep -m1 -q '^data: {'
  first=$(now_ms)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  trap - EXIT
  echo "$((ready - start)) $((first - start))"
}

for mode in off on; do
  results=()
  for ((i = 1; i <= runs; i++)); do
    read -r ready first < <(one_run "$mode")
    echo "{\"aot\":\"$mode\",\"run\":$i,\"ready_ms\":$ready,\"first_token_ms\":$first,\"ttft_after_ready_ms\":$((first - ready))}"
    results+=("$first")
  done
  printf '%s\n' "${results[@]}" | sort -n | awk -v mode="$mode" '{v[NR]=$1} END {
    printf "{\"aot\":\"%s\",\"runs\":%d,\"first_token_ms\":{\"min\":%d,\"median\":%d,\"max\":%d}}\n",
      mode, NR, v[1], v[int((NR+1)/2)], v[NR]}'
done
