/** The gateway's Prometheus metrics (own registry per gateway). */
package io.squall.gateway.metrics;
