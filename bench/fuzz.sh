#!/usr/bin/env bash
# Wire fuzzing of a running `squall serve` (issue 14): starts a fresh `squall serve` with SERVE ARGS, sends it
# FRAMES fuzzed RSocket requests and raw frames with `squall bench fuzz --join` (every route of its workers and its
# gateway's client API), then checks that the same serve process answers a plain /v1/completions request. Prints one
# JSON line: the fuzz report, whether the process survived, and the plain request's answer. Exits 1 if the fuzz
# report is not clean (an untyped or INTERNAL error, a timeout, a failed health check, a lost worker), the process
# died, or the plain request failed.
#
#   bench/fuzz.sh MODEL FRAMES SEED "SERVE ARGS"
#
# Example (a tiny real model, disaggregated so that prefill and kv.push are served too):
#
#   ./squall gen-model --arch llama --dim 64 --layers 2 --heads 4 --kv-heads 2 --ffn 96 --type q8_0 --out tiny.gguf
#   flock /work/.cpu.lock bench/fuzz.sh tiny.gguf 100000 1 "--prefill-workers 1 --decode-workers 1"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
model="$1" frames="$2" seed="$3" serve_args="$4"
http=18475 rsocket=17475
for port in $http $rsocket; do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then echo "port $port is taken" >&2; exit 1; fi
done
SQUALL_AOT=off "$root/squall" --version >/dev/null # builds the jar if needed
work="$(mktemp -d)"
# shellcheck disable=SC2086
SQUALL_AOT=off "$root/squall" serve --model "$model" --served-model-name m --http-port $http --rsocket-port $rsocket \
  --rsocket-ws-port 0 --grid-port 0 $serve_args >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf -o /dev/null "http://127.0.0.1:$http/readyz"; do
  kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.2
done
member=$(grep -o 'cluster member [^ ]*' "$work/serve.log" | awk '{print $NF}')
status=0
SQUALL_AOT=off "$root/squall" bench fuzz --join "$member" --gateway "127.0.0.1:$rsocket" --frames "$frames" \
  --seed "$seed" >"$work/fuzz.json" 2>"$work/fuzz.err" || status=1
grep -q '^{"frames"' "$work/fuzz.json" || { cat "$work/fuzz.err" >&2; exit 1; }
alive=false
kill -0 "$pid" 2>/dev/null && alive=true
plain=$(curl -sf "http://127.0.0.1:$http/v1/completions" -H 'Content-Type: application/json' \
  -d '{"model":"m","prompt":"Once upon a time","max_tokens":8,"temperature":0}') || { plain='null'; status=1; }
[ "$alive" = true ] || status=1
printf '{"serve_args":"%s","serve_alive_after":%s,"plain_request_after":%s,"fuzz":%s}\n' \
  "$serve_args" "$alive" "$plain" "$(grep -m1 '^{"frames"' "$work/fuzz.json")"
exit $status
