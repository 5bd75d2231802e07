/**
 * Discovery of stages, free of any framework: {@link io.squall.functions.api.discovery.InstanceId}
 * ({@code namespace/component/endpoint/instance}), {@link io.squall.functions.api.discovery.WorkerInstance}
 * with its addresses, role, model, capacity and {@link io.squall.functions.api.discovery.LoadReport}, and
 * the {@link io.squall.functions.api.discovery.Discovery} contract to register, list and watch. It lives
 * in {@code functions/api} so gateways and planners use it without depending on the worker; the
 * Hazelcast implementation is in the {@code hazelcast} sub-package.
 */
package io.squall.functions.api.discovery;
