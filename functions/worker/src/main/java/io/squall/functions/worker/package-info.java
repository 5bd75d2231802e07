/**
 * The prefill, decode and aggregated stage functions, their RSocket and HTTP endpoints, KV transfer and registration. Lands with the functions issue.
 */
package io.squall.functions.worker;
