package io.squall.functions.discovery.hazelcast;

import io.squall.functions.api.codec.MessageType;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.api.codec.WireReader;
import io.squall.functions.api.codec.WireWriter;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.WorkerInstance;
import io.squall.functions.discovery.WorkerRole;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * A registration as stored in the instances map: the instance and the Hazelcast member that holds its
 * lease, so the entry can be dropped when that member is lost. Encoded as a
 * {@link MessageType#WORKER_INSTANCE} frame of the wire format.
 */
record Lease(UUID member, WorkerInstance instance) {

    byte[] encode() {
        WorkerInstance i = instance;
        LoadReport l = i.load();
        return new WireWriter(96).header(MessageType.WORKER_INSTANCE)
                .i64(member.getMostSignificantBits()).i64(member.getLeastSignificantBits())
                .string(i.id().toString()).u8(i.role().ordinal()).string(i.model()).string(i.host())
                .varint(i.rsocketPort()).varint(i.httpPort()).varint(i.capacity())
                .varint(l.activeSequences()).varint(l.queuedSequences()).varint(l.freeKvBlocks())
                .varint(l.totalKvBlocks()).varint(l.batchedTokens())
                .toByteArray();
    }

    static Lease decode(byte[] bytes) {
        WireReader in = new WireReader(ByteBuffer.wrap(bytes)).header(MessageType.WORKER_INSTANCE);
        UUID member = new UUID(in.i64(), in.i64());
        InstanceId id;
        try {
            id = InstanceId.parse(in.string(WireFormat.MAX_ID_BYTES));
        } catch (IllegalArgumentException e) {
            throw WireReader.malformed(e.getMessage());
        }
        int role = in.u8();
        if (role >= WorkerRole.values().length) {
            throw WireReader.malformed("unknown role " + role);
        }
        WorkerInstance instance = new WorkerInstance(id, WorkerRole.values()[role], in.string(WireFormat.MAX_ID_BYTES),
                in.string(WireFormat.MAX_ID_BYTES), in.varint(), in.varint(), in.varint(),
                new LoadReport(in.varint(), in.varint(), in.varint(), in.varint(), in.varint()));
        return new Lease(member, instance);
    }
}
