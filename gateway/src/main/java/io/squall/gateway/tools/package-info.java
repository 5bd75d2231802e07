/** Parsing tool calls out of model output (Hermes/Qwen tags, Llama 3 JSON, Mistral). */
package io.squall.gateway.tools;
