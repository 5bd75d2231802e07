#!/usr/bin/env bash
# Returning multi-turn conversations against a fresh `squall serve` per mode of the KV tiers: no lower tier,
# host memory (G2), and host memory with disk (G2 + G3). Each mode prints the bench report (TTFT, prompt tokens
# cached by tier) and the worker's offload counters, one JSON line per run.
#
#   flock /work/.cpu.lock bench/kv-offload.sh MODEL KV_BLOCKS "BENCH ARGS" MODE... [-- RUNS]
#
# MODE is none, host:BYTES or host+disk:BYTES:DISK_BYTES (the disk tier in a fresh temporary directory). The server
# runs without the launcher's AOT cache unless SQUALL_AOT=on is set.
# Example (the shape of issue 16: 4 users of 6 turns of 512 new tokens, G1 a third of the working set):
#
#   bench/kv-offload.sh demo.gguf 256 "--concurrency 4 --requests 96 --isl 512 --osl 16 --turns 6 --seed 1" \
#       none host:2147483648 host+disk:8388608:1073741824 -- 3
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
model="$1" blocks="$2" bench="$3"
shift 3
modes=()
runs=1
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then runs="$2"; break; fi
  modes+=("$1")
  shift
done
port=18474
if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken" >&2; exit 1; fi
SQUALL_AOT=off "$root/squall" --version >/dev/null # builds the jar if needed
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

counter() { # $1 = metrics text, $2 = metric name with labels (a regex): sum of the matching samples
  awk -v re="^$2" '$0 ~ re && $1 !~ /^#/ {s += $NF} END {printf "%d", s}' <<<"$1"
}

one_run() { # $1 = mode, $2 = run number
  local tiers=() pid metrics report worker
  case "$1" in
    none) ;;
    host:*) tiers=(--kv-host-bytes "${1#host:}") ;;
    host+disk:*)
      IFS=: read -r _ host disk <<<"$1"
      rm -rf "$work/g3"
      tiers=(--kv-host-bytes "$host" --kv-disk-dir "$work/g3" --kv-disk-bytes "$disk") ;;
    *) echo "unknown mode $1" >&2; exit 1 ;;
  esac
  SQUALL_AOT="${SQUALL_AOT:-off}" "$root/squall" serve --model "$model" --http-port "$port" --rsocket-port 0 --rsocket-ws-port 0 \
    --grid-port 0 --served-model-name m --kv-blocks "$blocks" "${tiers[@]}" >"$work/serve.log" 2>&1 &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
  until curl -sf -o /dev/null "http://127.0.0.1:$port/readyz"; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.2
  done
  worker=$(grep -o 'worker 0 ([a-z]*) metrics on [^ ]*' "$work/serve.log" | awk '{print $NF}')
  # shellcheck disable=SC2086
  report=$(SQUALL_AOT=off "$root/squall" bench serve --url "http://127.0.0.1:$port" --model m $bench 2>"$work/bench.err") \
    || { cat "$work/bench.err" >&2; exit 1; }
  metrics=$(curl -s "$worker")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  trap 'rm -rf "$work"' EXIT
  printf '{"mode":"%s","run":%d,"kv_blocks":%d,"evicted":%s,"offloaded_g2":%s,"offloaded_g3":%s,"dropped":%s,"stall_s":%s,"onboarded":%s,"report":%s}\n' \
    "$1" "$2" "$blocks" \
    "$(counter "$metrics" 'squall_kv_block_evictions_total\{tier="G1"')" \
    "$(counter "$metrics" 'squall_kv_block_offloads_total\{.*to="G2"')" \
    "$(counter "$metrics" 'squall_kv_block_offloads_total\{.*to="G3"')" \
    "$(counter "$metrics" 'squall_kv_block_offloads_dropped_total')" \
    "$(awk '/^squall_kv_offload_stall_seconds_total/ {s += $NF} END {printf "%.3f", s}' <<<"$metrics")" \
    "$(counter "$metrics" 'squall_kv_block_onboards_total')" \
    "$report"
}

for ((i = 1; i <= runs; i++)); do
  for mode in "${modes[@]}"; do
    one_run "$mode" "$i"
  done
done
