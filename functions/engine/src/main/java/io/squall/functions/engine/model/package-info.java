/**
 * Model architectures: the configuration read from GGUF metadata ({@link
 * io.squall.functions.engine.model.ModelConfig}), the weights mapped from the file ({@link
 * io.squall.functions.engine.model.ModelWeights}), and the transformer forward pass ({@link
 * io.squall.functions.engine.model.Transformer}) shared by the llama family: llama (with Llama 3 rope
 * scaling), mistral, qwen2 (QKV bias) and qwen3 (Q/K norm), all with grouped-query attention.
 */
package io.squall.functions.engine.model;
