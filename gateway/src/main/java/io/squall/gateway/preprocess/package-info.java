/**
 * Preprocessing and its streaming counterpart: chat template rendering, tokenization, context checks, and
 * incremental detokenization with stop strings. Framework-free.
 */
package io.squall.gateway.preprocess;
