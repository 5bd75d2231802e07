#!/usr/bin/env bash
# Held-out conformance (issues 12 and 18): models of architectures and shapes that no test reads, written by
# `squall gen-model`, quantized by llama.cpp's llama-quantize into each format mix, and the final-position logits
# of a few prompts from llama.cpp and from `squall logits --all`, compared: max abs difference, cosine, argmax.
#
#   LLAMA_CPP=/path/to/llama.cpp bench/heldout-logits.sh OUT_DIR [TYPE...]
#
# LLAMA_CPP is a llama.cpp checkout built with cmake (build/bin holds llama-quantize and the libraries); the
# comparison tool bench/llama-logits/llama-logits.cpp is compiled against it into OUT_DIR. TYPEs are llama-quantize
# types (default: the mixes of issue 18, Q4_0 and Q8_0). The models' norm weights are 1 and their token embeddings
# are stored quantized, so many layer-0 activations sit on rounding ties of the 8-bit activation blocks, decided by
# float32 noise (../shared/reference/README.md); EMBEDDING=f16 keeps the embeddings in F16 to take those ties out.
# Prints one line per model, type and prompt.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${LLAMA_CPP:-}" ] || { echo "heldout-logits: set LLAMA_CPP to a built llama.cpp checkout" >&2; exit 2; }
out=$1; shift
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(Q5_K_M Q5_K_S Q4_K_S Q3_K_M Q3_K_S Q2_K IQ4_XS IQ4_NL Q5_0 Q5_1 Q4_0 Q8_0)
mkdir -p "$out"
bin=$LLAMA_CPP/build/bin
g++ -O2 -std=c++17 -I"$LLAMA_CPP/include" -I"$LLAMA_CPP/ggml/include" "$ROOT/bench/llama-logits/llama-logits.cpp" \
    -L"$bin" -lllama -lggml -lggml-base -Wl,-rpath,"$bin" -o "$out/llama-logits"
vocab=$ROOT/../shared/reference/models/stories260K.gguf
[ -f "$vocab" ] || { echo "heldout-logits: needs $vocab for a vocabulary" >&2; exit 2; }

# name arch dim heads kv-heads ffn: three shapes, one of them with rows that K-quants cannot hold (896 = 3.5 x 256)
shapes=("qwen2 qwen2 896 14 2 4864" "qwen3 qwen3 512 8 4 1536" "llama llama 640 10 2 1792")
# one token takes the one-row kernels (each decode step's), the others the batched ones (a prompt's)
prompts=("77" "1 60" "1 400 485 130 335 29" "1 77 300 15 412 9 128 260" "1 133 382 186 410 356 485 433 381 336 475 274 17")
embedding=()
[ -z "${EMBEDDING:-}" ] || embedding=(--token-embedding-type "$EMBEDDING")

for shape in "${shapes[@]}"; do
  read -r name arch dim heads kv ffn <<< "$shape"
  base=$out/$name-f32.gguf
  [ -f "$base" ] || "$ROOT/squall" gen-model --arch "$arch" --dim "$dim" --heads "$heads" --kv-heads "$kv" --ffn "$ffn" \
      --layers 2 --seed 777 --vocab-from "$vocab" --type f32 --out "$base" > /dev/null
  for type in "${types[@]}"; do
    model=$out/$name-$type${EMBEDDING:+-e$EMBEDDING}.gguf
    [ -f "$model" ] || "$bin/llama-quantize" "${embedding[@]}" "$base" "$model" "$type" 2 > "$model.log" 2>&1
    for prompt in "${prompts[@]}"; do
      "$out/llama-logits" "$model" $prompt 2> /dev/null > "$out/llama.txt"
      "$ROOT/squall" logits --model "$model" --tokens "${prompt// /,}" --all 2> /dev/null | grep '^{' > "$out/squall.json"
      python3 - "$model" "$prompt" "$out/llama.txt" "$out/squall.json" <<'PY'
import json, math, os, sys
model, prompt, llama, squall = sys.argv[1:]
ref = [float(v) for v in open(llama).read().split()[1:]]
got = json.load(open(squall))['logits']
diff = max(abs(a - b) for a, b in zip(ref, got))
cos = sum(a * b for a, b in zip(ref, got)) / math.sqrt(sum(a * a for a in ref) * sum(b * b for b in got))
top = lambda v: max(range(len(v)), key=v.__getitem__)
first, second = sorted(ref, reverse=True)[:2]
print(f"{os.path.basename(model):28s} {len(prompt.split()):3d} tokens  max abs {diff:.4f}  cosine {cos:.6f}  "
      f"argmax {'equal' if top(ref) == top(got) else 'DIFFERENT'}  margin {first - second:.4f}  "
      f"logits {min(ref):.2f}..{max(ref):.2f}")
PY
    done
  done
done
