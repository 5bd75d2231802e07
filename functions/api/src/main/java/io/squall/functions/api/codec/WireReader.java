package io.squall.functions.api.codec;

import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.StageException;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the primitive types written by {@link WireWriter} from a buffer, checking every read against the
 * bytes left and every count against a bound before allocating, so a malformed or hostile frame ends in
 * a {@link StageException} with {@link ErrorCode#INVALID_REQUEST} and never in an
 * {@link OutOfMemoryError} or an unchecked exception.
 *
 * <p>Not thread-safe; reads a private duplicate of the buffer and leaves the caller's position alone.
 */
public final class WireReader {

    private final ByteBuffer buffer;

    public WireReader(ByteBuffer buffer) {
        this.buffer = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Reads and checks the frame header: the version this reader speaks and the expected message type. */
    public WireReader header(MessageType expected) {
        int version = u8();
        if (version != WireFormat.VERSION) {
            throw malformed("unsupported wire version " + version + " (this stage speaks " + WireFormat.VERSION + ")");
        }
        int tag = u8();
        if (tag != expected.tag()) {
            throw malformed("expected a " + expected + " frame, got message type " + tag);
        }
        return this;
    }

    /** Whether bytes remain: a trailing optional field follows. */
    public boolean hasMore() {
        return buffer.hasRemaining();
    }

    public int u8() {
        need(1);
        return buffer.get() & 0xFF;
    }

    public boolean bool() {
        int v = u8();
        if (v > 1) {
            throw malformed("a boolean byte must be 0 or 1, got " + v);
        }
        return v == 1;
    }

    public int varint() {
        int v = rawVarint();
        if (v < 0) {
            throw malformed("varint out of range");
        }
        return v;
    }

    public int zigzag() {
        int v = rawVarint();
        return (v >>> 1) ^ -(v & 1);
    }

    public int i32() {
        need(4);
        return buffer.getInt();
    }

    public long i64() {
        need(8);
        return buffer.getLong();
    }

    public float f32() {
        return Float.intBitsToFloat(i32());
    }

    public double f64() {
        return Double.longBitsToDouble(i64());
    }

    /** A UTF-8 string of at most {@code maxBytes} bytes. */
    public String string(int maxBytes) {
        byte[] raw = bytes(maxBytes);
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("a string is not valid UTF-8");
        }
    }

    /** A byte string of at most {@code maxBytes} bytes. */
    public byte[] bytes(int maxBytes) {
        int length = count(maxBytes, 1);
        byte[] out = new byte[length];
        buffer.get(out);
        return out;
    }

    /** A varint array of at most {@code maxCount} elements. */
    public int[] varints(int maxCount) {
        int n = count(maxCount, 1);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = varint();
        }
        return out;
    }

    /**
     * A count of at most {@code max} elements, each taking at least {@code minBytesEach} bytes, so a
     * count the frame cannot hold is rejected before anything is allocated.
     */
    public int count(int max, int minBytesEach) {
        int n = varint();
        if (n > max) {
            throw malformed("a count of " + n + " exceeds the limit of " + max);
        }
        if ((long) n * minBytesEach > buffer.remaining()) {
            throw malformed("a count of " + n + " does not fit the " + buffer.remaining() + " bytes left");
        }
        return n;
    }

    /** Builds the error every decoding failure is reported with. */
    public static StageException malformed(String message) {
        return new StageException(ErrorCode.INVALID_REQUEST, "malformed frame: " + message);
    }

    private int rawVarint() {
        int result = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int b = u8();
            if (shift == 28 && (b & 0xF0) != 0) {
                throw malformed("varint longer than 32 bits");
            }
            result |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw malformed("varint longer than 5 bytes");
    }

    private void need(int n) {
        if (buffer.remaining() < n) {
            throw malformed("truncated: needed " + n + " more bytes, " + buffer.remaining() + " left");
        }
    }
}
