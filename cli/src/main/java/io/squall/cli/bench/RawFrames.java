package io.squall.cli.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.RequestChannelFrameCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.DefaultPayload;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.rsocket.RouteMetadata;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Random;

/**
 * Raw RSocket frames over a plain TCP socket, below any RSocket library on the sending side: a well-formed SETUP,
 * one mutated request frame (its header bits, its body, its length, or a random frame of any type), then a
 * well-formed probe request on another stream. The outcome says how the stage took the mutated frame: an ERROR
 * frame on its stream or on the connection (with the error's name), {@link #ANSWERED} (nothing for it, but the
 * probe was answered: the connection is still served), {@link #CLOSED} (the stage closed the connection without
 * an ERROR frame) or {@link #TIMEOUT}. Stateless.
 */
final class RawFrames {

    static final String ANSWERED = "answered";
    static final String CLOSED = "closed";
    static final String TIMEOUT = "timeout";

    private static final ByteBufAllocator ALLOCATOR = ByteBufAllocator.DEFAULT;
    private static final int FUZZ_STREAM = 1;
    private static final int PROBE_STREAM = Integer.MAX_VALUE;
    /** The largest frame a 24-bit length prefix announces. */
    private static final int MAX_FRAME = 0xFF_FFFF;

    private RawFrames() {
    }

    /** A request frame of a random worker route with fuzzed data, then mutated as a whole. */
    static byte[] mutated(FuzzCases cases) {
        Random random = cases.random();
        FuzzCases.Case fuzz = cases.next();
        ByteBuf metadata = Unpooled.wrappedBuffer(fuzz.metadata());
        ByteBuf data = Unpooled.wrappedBuffer(fuzz.data().getFirst());
        ByteBuf frame = switch (random.nextInt(3)) {
            case 0 -> RequestResponseFrameCodec.encode(ALLOCATOR, FUZZ_STREAM, false, metadata, data);
            case 1 -> RequestChannelFrameCodec.encode(ALLOCATOR, FUZZ_STREAM, false, false, 1 + random.nextInt(8), metadata, data);
            default -> RequestStreamFrameCodec.encode(ALLOCATOR, FUZZ_STREAM, false, 1 + random.nextInt(8), metadata, data);
        };
        byte[] bytes;
        try {
            bytes = ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
        switch (random.nextInt(4)) {
            case 0 -> {
                // the 6-byte header: stream id, frame type, flags
                for (int i = 1 + random.nextInt(4); i > 0; i--) {
                    bytes[random.nextInt(6)] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case 1 -> bytes = cases.mutate(bytes, FuzzCases.Mutation.BIT_FLIPS);
            case 2 -> bytes = cases.mutate(bytes, random.nextBoolean() ? FuzzCases.Mutation.TRUNCATE : FuzzCases.Mutation.SPLICE);
            default -> {
                // any frame type with any flags on the fuzz stream, and a random body
                byte[] body = new byte[random.nextInt(128)];
                random.nextBytes(body);
                bytes = new byte[6 + body.length];
                bytes[3] = FUZZ_STREAM;
                bytes[4] = (byte) random.nextInt(256);
                bytes[5] = (byte) random.nextInt(256);
                System.arraycopy(body, 0, bytes, 6, body.length);
            }
        }
        return bytes;
    }

    /** Sends SETUP, {@code frame} and a probe to {@code stage}; the outcome, as the class comment lists. */
    static String exchange(WireFuzzer.Address stage, byte[] frame, Duration deadline) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(stage.host(), stage.port()), (int) deadline.toMillis());
            socket.setSoTimeout((int) deadline.toMillis());
            OutputStream out = socket.getOutputStream();
            write(out, setup());
            write(out, frame);
            write(out, probe());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            String outcome = null;
            while (true) {
                int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
                byte[] answer = new byte[Math.min(length, MAX_FRAME)];
                in.readFully(answer);
                if (answer.length < 6) {
                    return "short frame from the stage";
                }
                int stream = (answer[0] & 0x7F) << 24 | (answer[1] & 0xFF) << 16 | (answer[2] & 0xFF) << 8 | answer[3] & 0xFF;
                int type = (answer[4] & 0xFF) >>> 2;
                if (type == FrameType.ERROR.getEncodedType() && stream != PROBE_STREAM && outcome == null) {
                    int code = answer.length < 10 ? -1 : (answer[6] & 0xFF) << 24 | (answer[7] & 0xFF) << 16
                            | (answer[8] & 0xFF) << 8 | answer[9] & 0xFF;
                    outcome = "error " + (stream == 0 ? "on the connection: " : "on the stream: ") + errorName(code);
                    if (stream == 0) {
                        return outcome; // the stage closes the connection after a connection error
                    }
                } else if (stream == PROBE_STREAM) {
                    return outcome != null ? outcome : ANSWERED;
                }
            }
        } catch (EOFException e) {
            return CLOSED;
        } catch (SocketTimeoutException e) {
            return TIMEOUT;
        } catch (IOException e) {
            return CLOSED; // reset by the stage
        }
    }

    private static String errorName(int code) {
        for (ErrorCode squall : ErrorCode.values()) {
            if (squall.rsocketCode() == code) {
                return squall.name();
            }
        }
        return switch (code) {
            case 0x001 -> "INVALID_SETUP";
            case 0x002 -> "UNSUPPORTED_SETUP";
            case 0x003 -> "REJECTED_SETUP";
            case 0x101 -> "CONNECTION_ERROR";
            case 0x102 -> "CONNECTION_CLOSE";
            case 0x201 -> "APPLICATION_ERROR";
            case 0x202 -> "REJECTED";
            case 0x203 -> "CANCELED";
            case 0x204 -> "INVALID";
            default -> "0x" + Integer.toHexString(code);
        };
    }

    private static byte[] setup() {
        ByteBuf frame = SetupFrameCodec.encode(ALLOCATOR, false, 20_000, 90_000, RouteMetadata.METADATA_MIME_TYPE,
                RouteMetadata.DATA_MIME_TYPE, DefaultPayload.create(new byte[0]));
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    /** {@code kv.fetch} of one block no worker holds: a stage that still serves answers it at once. */
    private static byte[] probe() {
        FuzzCases valid = new FuzzCases(0, "probe");
        ByteBuf frame = RequestStreamFrameCodec.encode(ALLOCATOR, PROBE_STREAM, false, 1,
                Unpooled.wrappedBuffer(FuzzCases.routeMetadata(FuzzCases.Route.KV_FETCH.wireName)),
                Unpooled.wrappedBuffer(valid.baseline(FuzzCases.Route.KV_FETCH).getFirst()));
        try {
            return ByteBufUtil.getBytes(frame);
        } finally {
            frame.release();
        }
    }

    private static void write(OutputStream out, byte[] frame) throws IOException {
        out.write(new byte[] {(byte) (frame.length >>> 16), (byte) (frame.length >>> 8), (byte) frame.length});
        out.write(frame);
    }
}
