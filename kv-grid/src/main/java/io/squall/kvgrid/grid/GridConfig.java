package io.squall.kvgrid.grid;

import java.util.List;
import java.util.Objects;

/**
 * How to run this process's embedded grid member.
 *
 * @param clusterName        members join only a cluster of the same name
 * @param host               the address to bind and advertise, e.g. {@code 127.0.0.1}; {@code 0.0.0.0} binds every
 *                           interface and advertises the one Hazelcast picks (a pod's own address in Kubernetes)
 * @param port               the member's TCP port (1..65535)
 * @param members            seed addresses ({@code host[:port]}) to join by TCP/IP, or a single
 *                           {@code k8s:SERVICE.NAMESPACE[:PORT]} seed to find the members behind a headless
 *                           Kubernetes Service ({@link KubernetesJoin}); multicast is off
 * @param backupCount        synchronous backups of every entry, 1..6, so that many members can be lost
 *                           without losing data
 * @param maxBlocksPerMember bound on G4 blocks each member holds, &gt; 0; beyond it the least recently
 *                           used are evicted (Hazelcast applies the bound per partition, so it is approximate)
 */
public record GridConfig(String clusterName, String host, int port, List<String> members, int backupCount,
                         int maxBlocksPerMember) {

    public GridConfig {
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(host, "host");
        members = List.copyOf(members);
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port must be within 1..65535");
        }
        if (backupCount < 1 || backupCount > 6) {
            throw new IllegalArgumentException("backupCount must be within 1..6");
        }
        if (KubernetesJoin.requested(members)) {
            KubernetesJoin.parse(members.getFirst());
        }
        if (maxBlocksPerMember <= 0) {
            throw new IllegalArgumentException("maxBlocksPerMember must be > 0");
        }
    }
}
