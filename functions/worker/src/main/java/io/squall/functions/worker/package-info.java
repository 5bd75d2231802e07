/**
 * The stage functions: aggregated, prefill and decode workers, their RSocket routes and HTTP endpoints,
 * KV transfer and registration in the cluster. {@code local} holds generation in this process.
 */
package io.squall.functions.worker;
