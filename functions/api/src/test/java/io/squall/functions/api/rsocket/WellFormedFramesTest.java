package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rsocket.frame.CancelFrameCodec;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.rsocket.frame.PayloadFrameCodec;
import io.rsocket.frame.RequestChannelFrameCodec;
import io.rsocket.frame.RequestNFrameCodec;
import io.rsocket.frame.RequestResponseFrameCodec;
import io.rsocket.frame.RequestStreamFrameCodec;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.util.DefaultPayload;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class WellFormedFramesTest {

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @Test
    void framesRSocketWritesPass() {
        ByteBuf metadata = Unpooled.wrappedBuffer(new byte[] {1, 2, 3});
        ByteBuf data = Unpooled.wrappedBuffer(new byte[] {4, 5});
        List<ByteBuf> frames = List.of(
                SetupFrameCodec.encode(ALLOC, false, 20_000, 90_000, RouteMetadata.METADATA_MIME_TYPE,
                        RouteMetadata.DATA_MIME_TYPE, DefaultPayload.create(new byte[] {9}, new byte[] {8, 7})),
                KeepAliveFrameCodec.encode(ALLOC, true, 0, Unpooled.EMPTY_BUFFER),
                RequestResponseFrameCodec.encode(ALLOC, 1, false, metadata.retainedSlice(), data.retainedSlice()),
                RequestStreamFrameCodec.encode(ALLOC, 3, false, 8, metadata.retainedSlice(), data.retainedSlice()),
                RequestChannelFrameCodec.encode(ALLOC, 5, false, false, 1, null, data.retainedSlice()),
                RequestNFrameCodec.encode(ALLOC, 3, 16),
                CancelFrameCodec.encode(ALLOC, 3),
                PayloadFrameCodec.encode(ALLOC, 5, false, false, true, metadata.retainedSlice(), data.retainedSlice()),
                ErrorFrameCodec.encode(ALLOC, 3, new IllegalStateException("x")));
        for (ByteBuf frame : frames) {
            try {
                assertThat(WellFormedFrames.problem(frame)).as(ByteBufUtil.hexDump(frame)).isNull();
            } finally {
                frame.release();
            }
        }
    }

    @Test
    void malformedLayoutsAreNamed() {
        ByteBuf request = RequestStreamFrameCodec.encode(ALLOC, 1, false, 1, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}),
                Unpooled.wrappedBuffer(new byte[] {5}));
        byte[] bytes = ByteBufUtil.getBytes(request);
        request.release();
        // the 24-bit metadata length after the header and request-n, raised past the frame's end
        byte[] overrun = bytes.clone();
        overrun[10] = 0;
        overrun[11] = 0;
        overrun[12] = 76;
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(overrun))).contains("runs past the frame's end");
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(Arrays.copyOf(bytes, 8)))).contains("request-n");
        byte[] unknown = bytes.clone();
        unknown[4] = (byte) (50 << 2);
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(unknown))).contains("unknown frame type 50");
        byte[] streamZero = bytes.clone();
        streamZero[3] = 0;
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(streamZero))).contains("on stream 0");
        byte[] evenStream = bytes.clone();
        evenStream[3] = 2;
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(evenStream))).contains("even stream 2");
        byte[] reserved = bytes.clone();
        reserved[0] = (byte) 0x80;
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(reserved))).contains("reserved bit");
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(new byte[] {0, 0, 0}))).contains("shorter than its header");
        assertThat(WellFormedFrames.problem(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 1, 0, 0}))).contains("unknown frame type 0");
    }
}
