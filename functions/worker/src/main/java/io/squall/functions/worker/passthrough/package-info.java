/**
 * The minimal pass-through {@code squall serve} exposes before the gateway lands:
 * {@link io.squall.functions.worker.passthrough.RoundRobinGenerateService} forwards {@code generate}
 * streams round robin to discovered workers over RSocket.
 */
package io.squall.functions.worker.passthrough;
