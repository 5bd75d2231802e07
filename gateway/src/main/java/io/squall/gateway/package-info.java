/**
 * The OpenAI-compatible HTTP API, the RSocket client API, preprocessing, the KV-aware router and request migration. Lands with the gateway issue.
 */
package io.squall.gateway;
