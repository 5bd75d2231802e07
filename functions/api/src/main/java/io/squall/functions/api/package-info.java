/**
 * The wire protocol shared by every stage: RSocket {@link io.squall.functions.api.Routes}, the request
 * and response records of each route, the {@link io.squall.functions.api.ErrorCode}s carried in error
 * frames, {@link io.squall.functions.api.GenerateService}, the contract a worker serves and a gateway
 * calls, and {@link io.squall.functions.api.KvFetchService}, the contract by which workers read each
 * other's offloaded KV blocks. Sub-packages: {@code codec} the binary encoding,
 * {@code rsocket} the RSocket glue and clients. Registration and lookup of stages live apart, in
 * {@code functions/discovery}, so a protocol client does not pull in the cluster.
 */
package io.squall.functions.api;
