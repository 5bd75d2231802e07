/**
 * Chat templates: turning OpenAI-style messages into the prompt text a model was trained on.
 * {@link io.squall.functions.engine.chat.ChatTemplate} compiles the Jinja template a GGUF stores under
 * {@code tokenizer.chat_template} (Hugging Face's format) once and renders it for every request;
 * {@link io.squall.functions.engine.chat.ChatMessage} is the message model. The Jinja engine and its Python
 * compatibility layer live in {@code chat.jinja}.
 */
package io.squall.functions.engine.chat;
