/**
 * Discovery of stages, free of any framework: {@link io.squall.functions.discovery.InstanceId}
 * ({@code namespace/component/endpoint/instance}), {@link io.squall.functions.discovery.WorkerInstance}
 * with its addresses, role, model, capacity and {@link io.squall.functions.discovery.LoadReport}, and
 * the {@link io.squall.functions.discovery.Discovery} contract to register, list and watch. It lives
 * in {@code functions/discovery}, beside but apart from the wire protocol ({@code functions/api}), so
 * gateways and planners use it without depending on the worker and protocol clients do not pull in the
 * cluster; the Hazelcast implementation and this process's cluster membership are in the
 * {@code hazelcast} sub-package. {@link io.squall.functions.discovery.FreePorts} chooses the ports of stages
 * this process starts, or of its cluster member, so that no two get the same one.
 */
package io.squall.functions.discovery;
