/**
 * The wire protocol shared by every stage: RSocket {@link io.squall.functions.api.Routes}, the request
 * and response records of each route, the {@link io.squall.functions.api.ErrorCode}s carried in error
 * frames, and {@link io.squall.functions.api.GenerateService}, the contract a worker serves and a gateway
 * calls. Binary codecs and the RSocket client live in sub-packages.
 */
package io.squall.functions.api;
