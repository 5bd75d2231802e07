/**
 * Choosing the worker that serves a request. {@link io.squall.gateway.routing.RoutedGenerateService} sends each
 * request over RSocket to the decode-capable worker that its {@link io.squall.gateway.routing.RoutingPolicy}
 * picks: KV-cache-aware ({@link io.squall.gateway.routing.KvRoutingPolicy}), round robin, random or least loaded
 * ({@link io.squall.gateway.routing.Routers}).
 */
package io.squall.gateway.routing;
