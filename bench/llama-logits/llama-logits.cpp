// Final-position logits of a token sequence from llama.cpp, for comparison with `squall logits --all`:
// F32 KV cache, flash attention off, two threads; the prompt in one batch, or one token at a time with
// ONE_BY_ONE set (llama.cpp against itself). Prints "logits v0 v1 ..." on one line.
//
//   llama-logits MODEL.gguf TOKEN...
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char ** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: llama-logits MODEL.gguf TOKEN...\n");
        return 2;
    }
    std::vector<llama_token> tokens;
    for (int i = 2; i < argc; i++) {
        tokens.push_back(std::atoi(argv[i]));
    }
    llama_backend_init();
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (model == nullptr) {
        std::fprintf(stderr, "cannot load %s\n", argv[1]);
        return 1;
    }
    llama_context_params params = llama_context_default_params();
    params.n_ctx = tokens.size() + 16;
    params.n_batch = params.n_ctx;
    params.n_threads = 2;
    params.n_threads_batch = 2;
    params.type_k = GGML_TYPE_F32;
    params.type_v = GGML_TYPE_F32;
    params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context * ctx = llama_init_from_model(model, params);
    bool one_by_one = std::getenv("ONE_BY_ONE") != nullptr;
    for (size_t first = 0; first < tokens.size(); first += one_by_one ? 1 : tokens.size()) {
        int count = one_by_one ? 1 : (int) tokens.size();
        if (llama_decode(ctx, llama_batch_get_one(&tokens[first], count)) != 0) {
            std::fprintf(stderr, "decode failed\n");
            return 1;
        }
    }
    const float * logits = llama_get_logits_ith(ctx, -1);
    int vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    std::printf("logits");
    for (int i = 0; i < vocab; i++) {
        std::printf(" %.9g", logits[i]);
    }
    std::printf("\n");
    llama_free(ctx);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
