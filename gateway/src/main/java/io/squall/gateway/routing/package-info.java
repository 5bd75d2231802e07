/**
 * Choosing the worker that serves a request. {@link io.squall.gateway.routing.RoutedGenerateService} sends each
 * request over RSocket to the decode-capable worker that its {@link io.squall.gateway.routing.RoutingPolicy}
 * picks: KV-cache-aware from the workers' KV events ({@link io.squall.gateway.routing.KvRoutingPolicy}) or from
 * its own decisions ({@link io.squall.gateway.routing.ApproximateKvPolicy}), both scored by {@code KvCost}, round
 * robin, random or least loaded ({@link io.squall.gateway.routing.Routers}).
 */
package io.squall.gateway.routing;
