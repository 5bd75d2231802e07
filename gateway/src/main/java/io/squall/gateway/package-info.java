/**
 * The gateway: the OpenAI-compatible HTTP API and the RSocket client API in front of the workers.
 * {@link io.squall.gateway.GatewayServer} starts one for a map of {@link io.squall.gateway.ModelEndpoint}s
 * configured by {@link io.squall.gateway.GatewayConfig}. Request handling is framework-free
 * ({@code openai}, {@code preprocess}, {@code service}, {@code admission}, {@code security}, {@code tools},
 * {@code metrics}); Micronaut and RSocket glue live in {@code http} and {@code rsocket}.
 */
package io.squall.gateway;
