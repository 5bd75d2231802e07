/**
 * Runnable examples, each with a README: aggregated, disaggregated, a cluster on loopback, Java RSocket and OpenAI clients, a custom TornadoVM kernel.
 */
package io.squall.examples;
