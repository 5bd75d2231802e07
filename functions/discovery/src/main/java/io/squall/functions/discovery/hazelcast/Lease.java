package io.squall.functions.discovery.hazelcast;

import io.squall.functions.api.codec.MessageType;
import io.squall.functions.api.codec.WireFormat;
import io.squall.functions.api.codec.WireReader;
import io.squall.functions.api.codec.WireWriter;
import io.squall.functions.discovery.InstanceId;
import io.squall.functions.discovery.LoadReport;
import io.squall.functions.discovery.ServedModel;
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
                .string(i.id().toString()).u8(i.role().ordinal()).string(i.model().name()).string(i.host())
                .varint(i.rsocketPort()).varint(i.httpPort()).varint(i.capacity())
                .varint(l.activeSequences()).varint(l.queuedSequences()).varint(l.freeKvBlocks())
                .varint(l.totalKvBlocks()).varint(l.batchedTokens())
                .varint(i.model().contextLength()).varint(i.model().blockSize()).string(i.model().hashSalt())
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
        String model = in.string(WireFormat.MAX_ID_BYTES);
        String host = in.string(WireFormat.MAX_ID_BYTES);
        int rsocketPort = in.varint();
        int httpPort = in.varint();
        int capacity = in.varint();
        LoadReport load = new LoadReport(in.varint(), in.varint(), in.varint(), in.varint(), in.varint());
        ServedModel served;
        try {
            served = new ServedModel(model, in.varint(), in.varint(), in.string(WireFormat.MAX_ID_BYTES));
        } catch (IllegalArgumentException e) {
            throw WireReader.malformed(e.getMessage());
        }
        return new Lease(member, new WorkerInstance(id, WorkerRole.values()[role], served, host, rsocketPort, httpPort,
                capacity, load));
    }
}
