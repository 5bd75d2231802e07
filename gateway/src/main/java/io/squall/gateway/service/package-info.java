/**
 * The transport-neutral OpenAI service: admission, running the choices of a request on the model's
 * {@link io.squall.functions.api.GenerateService}, response and chunk shapes, metrics per request.
 */
package io.squall.gateway.service;
