/** Micronaut glue: the HTTP server, the OpenAI and operations controllers, framework error mapping, SSE. */
package io.squall.gateway.http;
