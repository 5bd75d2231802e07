/** API-key authentication (constant-time comparison) and per-key token-bucket rate limits. */
package io.squall.gateway.security;
