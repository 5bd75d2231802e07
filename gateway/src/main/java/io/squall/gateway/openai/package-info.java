/** OpenAI request validation (typed, range-checked, 400 naming the field), the error kinds and their JSON. */
package io.squall.gateway.openai;
