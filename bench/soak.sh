#!/usr/bin/env bash
# Soak (issue 14): a fresh `squall serve` with SERVE ARGS under `squall bench soak` (64 streams of mixed prompt and
# output lengths by default) for DURATION seconds, the serving JVM and its workers sampled every INTERVAL seconds
# (heap after a full GC, RSS, live threads, open files, direct buffers, KV pages in use); writes OUT.json (the
# series and their start/end after warm-up) and OUT.png (the plot), and prints the report without the samples.
# Exits 1 on any failed request or if the server dies. Not part of CI: it runs for as long as it is told to.
#
#   bench/soak.sh OUT DURATION WARMUP INTERVAL "SERVE ARGS" ["SOAK ARGS"]
#
# Examples (30 minutes, judged after 5; run them niced, they measure flatness, not speed):
#
#   nice -n 10 bench/soak.sh soak-mock 1800 300 30 "--engine mock --profile examples/profiles/llama-124m-q8_0-cpu2.json"
#   ./squall gen-model --arch llama --dim 128 --layers 2 --heads 4 --kv-heads 2 --ffn 384 --type q8_0 --out small.gguf
#   nice -n 10 bench/soak.sh soak-real 1800 300 30 "--model small.gguf"
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$1" duration="$2" warmup="$3" interval="$4" serve_args="$5" soak_args="${6:-}"
http=${SOAK_HTTP_PORT:-18476}
if curl -s -o /dev/null "http://127.0.0.1:$http/"; then echo "port $http is taken (SOAK_HTTP_PORT picks another)" >&2; exit 1; fi
SQUALL_AOT=off "$root/squall" --version >/dev/null # builds the jar if needed
work="$(mktemp -d)"
# shellcheck disable=SC2086
SQUALL_AOT=off "$root/squall" serve --served-model-name m --http-port "$http" --rsocket-port 0 --rsocket-ws-port 0 \
  --grid-port 0 $serve_args >"$work/serve.log" 2>&1 &
launcher=$!
trap 'kill "$launcher" 2>/dev/null; rm -rf "$work"' EXIT
until curl -sf -o /dev/null "http://127.0.0.1:$http/readyz"; do
  kill -0 "$launcher" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.5
done
pid=$launcher # the launcher execs the JVM
metrics=$(grep -o 'metrics on http://[^ ]*' "$work/serve.log" | awk '{print $3}' | paste -sd, -)
status=0
# shellcheck disable=SC2086
SQUALL_AOT=off "$root/squall" bench soak --url "http://127.0.0.1:$http" --model m --pid "$pid" \
  --worker-metrics "$metrics" --duration "$duration" --warmup "$warmup" --interval "$interval" --out "$out.json" \
  $soak_args || status=1
/usr/bin/python3 "$root/bench/plot-soak.py" "$out.json" "$out.png" || status=1
exit $status
