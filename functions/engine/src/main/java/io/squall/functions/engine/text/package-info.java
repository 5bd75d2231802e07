/**
 * Text post-processing on the output stream: {@link io.squall.functions.engine.text.StopStringMatcher} finds
 * OpenAI {@code stop} strings in detokenized deltas, holding back only what could still become a stop string.
 */
package io.squall.functions.engine.text;
