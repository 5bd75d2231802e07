/**
 * Choosing the worker that serves a request. {@link io.squall.gateway.routing.RoundRobinGenerateService}
 * spreads requests over the decode-capable workers that discovery reports, over RSocket.
 */
package io.squall.gateway.routing;
