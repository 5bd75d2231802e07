#!/usr/bin/env bash
# Issue 12's check, side by side with llama.cpp on the same GGUF files, the two engines alternating within each
# round so that a noisy host hits both alike. Two threads each. Per model and round:
#   single stream   a 64-token prompt and 128 generated tokens: `squall bench engine -p 64 -n 128 -r 3 --warmup W`
#                   against `llama-bench -p 64 -n 128 -r 3` (the same tests: means over repetitions, from an empty
#                   cache), then a fresh `squall run` without --warmup (cold) against that warm run, once with
#                   --kernel-warmup-seconds 30 (a warm-up on a miniature of the model first) and once without (run's
#                   default), each with its first token's time after the process's launch;
#   16 streams      (STREAMS=1) 128 + 128 tokens each: BatchingTransportBenchmark's concurrency-16 line against
#                   `llama-batched-bench -npp 128 -ntg 128 -npl 16`, whose end to end is 16·128 tokens over its total time.
#
#   LLAMA_CPP=/path/to/llama.cpp bench/vs-llama.sh ROUNDS MODEL.gguf...
#
# LLAMA_CPP is a llama.cpp checkout with build/bin/llama-bench (and llama-batched-bench for STREAMS=1). WARMUP
# (default 6) is Squall's untimed runs per test; the cold run's prompt is 64 seeded random ids. The 16-stream
# part needs bench/target/benchmarks.jar (./mvnw install -DskipTests). Prints one line per model and round, with
# Squall ÷ llama.cpp for prefill and decode and the cold run's share of the warm one.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:?usage: LLAMA_CPP=DIR bench/vs-llama.sh ROUNDS MODEL.gguf...}"
shift
[ $# -gt 0 ] || { echo "usage: LLAMA_CPP=DIR bench/vs-llama.sh ROUNDS MODEL.gguf..." >&2; exit 1; }
llama_bin="${LLAMA_CPP:?set LLAMA_CPP to a llama.cpp checkout built with cmake}/build/bin"
[ -x "$llama_bin/llama-bench" ] || { echo "no $llama_bin/llama-bench" >&2; exit 1; }
warmup="${WARMUP:-6}"
streams="${STREAMS:-0}"
jar="$root/bench/target/benchmarks.jar"
if [ "$streams" = 1 ]; then
  [ -x "$llama_bin/llama-batched-bench" ] || { echo "no $llama_bin/llama-batched-bench" >&2; exit 1; }
  [ -f "$jar" ] || { echo "no $jar: build it with ./mvnw install -DskipTests" >&2; exit 1; }
fi
. "$root/.mvn/jdk25.sh"
squall_use_jdk25 || exit 1
"$root/squall" --version >/dev/null 2>&1 || { echo "squall does not start: run ./squall --version" >&2; exit 1; } # builds the jar, trains the AOT cache

tokens=$(python3 -c "import random; random.seed(1); print(','.join(str(random.randint(3, 31999)) for _ in range(64)))")

# prints "prefill decode first-token-ms warm-up-ms" of a fresh squall run without --warmup; $1 = model, $2 = kernel
# warm-up limit in seconds
squall_cold() {
  "$root/squall" run --model "$1" --tokens "$tokens" --max-tokens 129 --temperature 0 --json \
    --kernel-warmup-seconds "$2" 2>/dev/null | python3 -c "import json, sys; d = json.load(sys.stdin); print(
      d['prefill_tokens_per_second'], d['decode_tokens_per_second'], d['first_token_after_launch_ms'], d['kernel_warmup_ms'])"
}

# prints the mean "pp64 tg128" tokens/s of llama-bench's jsonl (or squall bench engine's, the same fields) on stdin
pp_tg() {
  python3 -c "
import json, sys
rate = {}
for line in sys.stdin:
    if line.startswith('{'):
        d = json.loads(line)
        rate['pp' if d['n_prompt'] > 0 else 'tg'] = d['avg_ts']
print('%.1f %.1f' % (rate['pp'], rate['tg']))"
}

squall_warm() {
  "$root/squall" bench engine --model "$1" -p 64 -n 128 -r 3 --warmup "$warmup" --json 2>/dev/null | pp_tg
}

llama_warm() {
  "$llama_bin/llama-bench" -m "$1" -p 64 -n 128 -t 2 -r 3 -o jsonl 2>/dev/null | pp_tg
}

# prints "decode end-to-end" tokens/s at 16 streams; the benchmark is stopped after that line
squall_streams() {
  local out
  out=$(mktemp)
  "$JAVA_HOME/bin/java" --add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC \
    -cp "$jar" io.squall.bench.serving.BatchingTransportBenchmark "$1" 128 2000 2>/dev/null >"$out" &
  local pid=$!
  until grep -q 'concurrency=16 ' "$out" || ! kill -0 "$pid" 2>/dev/null; do sleep 1; done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  sed -n 's/.*concurrency=16 decode tokens\/s=\([0-9.]*\) end-to-end tokens\/s=\([0-9.]*\).*/\1 \2/p' "$out"
  rm -f "$out"
}

# prints "decode end-to-end" tokens/s of llama-batched-bench at 16 streams (S_TG, and 16·128 over T)
llama_streams() {
  "$llama_bin/llama-batched-bench" -m "$1" -c 9000 -b 2048 -ub 512 -npp 128 -ntg 128 -npl 16 -t 2 2>/dev/null \
    | awk -F'|' '$2 ~ /128/ && $4 ~ /16/ { gsub(/ /, ""); printf "%s %.1f\n", $9, 16 * 128 / $10 }'
}

ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }

for round in $(seq "$rounds"); do
  for model in "$@"; do
    read -r s_pp s_tg < <(squall_warm "$model")
    read -r l_pp l_tg < <(llama_warm "$model")
    read -r c_pp c_tg c_first c_warmup < <(squall_cold "$model" 30)
    read -r n_pp n_tg n_first _ < <(squall_cold "$model" 0)
    echo "$(date +%H:%M) round $round $(basename "$model"): prefill $s_pp vs $l_pp ($(ratio "$s_pp" "$l_pp")x)," \
      "decode $s_tg vs $l_tg ($(ratio "$s_tg" "$l_tg")x); cold prefill $c_pp ($(ratio "$c_pp" "$s_pp") of warm)," \
      "cold decode $c_tg ($(ratio "$c_tg" "$s_tg") of warm), first token at $c_first ms (warm-up $c_warmup ms);" \
      "without the warm-up $n_pp ($(ratio "$n_pp" "$s_pp")), $n_tg ($(ratio "$n_tg" "$s_tg")), first token at $n_first ms;" \
      "load $(cut -d' ' -f1 /proc/loadavg)"
    if [ "$streams" = 1 ]; then
      read -r s_dec s_e2e < <(squall_streams "$model")
      read -r l_dec l_e2e < <(llama_streams "$model")
      echo "$(date +%H:%M) round $round $(basename "$model"): 16 streams end to end $s_e2e vs $l_e2e" \
        "($(ratio "$s_e2e" "$l_e2e")x), decode phase $s_dec vs $l_dec ($(ratio "$s_dec" "$l_dec")x)"
    fi
  done
done
