package io.squall.functions.discovery.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.squall.functions.discovery.traffic.LatencyHistogram;
import io.squall.functions.discovery.traffic.TokenCounts;
import io.squall.functions.discovery.traffic.TrafficReport;
import io.squall.functions.discovery.traffic.TrafficSource;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The cluster's traffic board: each gateway puts its latest {@link TrafficReport} under its id, with a time to
 * live, so a gateway that went away drops off; planners read them all. Reports are stored as a small versioned
 * binary record. Thread-safe.
 */
public final class TrafficBoard implements TrafficSource {

    static final String MAP_NAME = "squall-traffic";
    private static final byte VERSION = 2;
    /** A report not refreshed for this long is dropped: its gateway is gone. */
    private static final Duration TTL = Duration.ofSeconds(30);

    private final IMap<String, byte[]> reports;

    public TrafficBoard(HazelcastInstance member) {
        this.reports = member.getMap(MAP_NAME);
    }

    /** Publishes {@code report} as its gateway's latest. */
    public void publish(TrafficReport report) {
        reports.set(report.gateway(), encode(report), TTL.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Collection<TrafficReport> reports() {
        List<TrafficReport> decoded = new ArrayList<>();
        for (byte[] bytes : reports.values()) {
            TrafficReport report = decode(bytes);
            if (report != null) {
                decoded.add(report);
            }
        }
        return decoded;
    }

    static byte[] encode(TrafficReport r) {
        byte[] gateway = r.gateway().getBytes(StandardCharsets.UTF_8);
        long[] ttft = r.ttft().counts();
        long[] itl = r.itl().counts();
        ByteBuffer out = ByteBuffer.allocate(1 + 4 + gateway.length + 8 * 8 + 4 + 8 * (ttft.length + itl.length));
        out.put(VERSION).putInt(gateway.length).put(gateway).putLong(r.atMillis()).putLong(r.requests())
                .putLong(r.finished()).putLong(r.failed()).putLong(r.tokens().input()).putLong(r.tokens().output())
                .putLong(r.tokens().cached()).putLong(r.tokens().uncachedSquared()).putInt(ttft.length);
        for (long c : ttft) {
            out.putLong(c);
        }
        for (long c : itl) {
            out.putLong(c);
        }
        return out.array();
    }

    /** The report in {@code bytes}, or null for one this version cannot read (another build's, or damaged). */
    static TrafficReport decode(byte[] bytes) {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            if (in.get() != VERSION) {
                return null;
            }
            byte[] gateway = new byte[in.getInt()];
            in.get(gateway);
            long at = in.getLong();
            long requests = in.getLong();
            long finished = in.getLong();
            long failed = in.getLong();
            TokenCounts tokens = new TokenCounts(in.getLong(), in.getLong(), in.getLong(), in.getLong());
            int buckets = in.getInt();
            long[] ttft = new long[buckets];
            long[] itl = new long[buckets];
            for (int i = 0; i < buckets; i++) {
                ttft[i] = in.getLong();
            }
            for (int i = 0; i < buckets; i++) {
                itl[i] = in.getLong();
            }
            return new TrafficReport(new String(gateway, StandardCharsets.UTF_8), at, requests, finished, failed,
                    tokens, LatencyHistogram.of(ttft), LatencyHistogram.of(itl));
        } catch (BufferUnderflowException | IllegalArgumentException | NegativeArraySizeException e) {
            return null;
        }
    }
}
