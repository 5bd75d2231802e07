package io.squall.functions.api.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.rsocket.ConnectionSetupPayload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.RejectedSetupException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.WellKnownMimeType;
import io.squall.functions.api.auth.SetupProof;
import io.squall.functions.api.auth.SetupVerifier;
import io.squall.functions.api.codec.WireFormat;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The RSocket server every stage serves its internal routes with, on TCP and on {@code /rsocket} alike: each
 * connection's SETUP must carry a {@link SetupProof} that the stage's {@link SetupVerifier} passes (in a closed
 * cluster), else the connection is refused with REJECTED_SETUP before any route is served, and the refusal is
 * handed to a listener (which logs and counts it). Limits that keep a hostile peer from holding resources:
 * a connection must send its SETUP within {@link #FIRST_FRAME_TIMEOUT}, and a payload reassembled from
 * fragments is capped at {@link #MAX_PAYLOAD_BYTES} (the largest message of the wire format, a KV block frame,
 * plus room for its fields and metadata), and a malformed frame closes its connection before RSocket decodes it
 * ({@link WellFormedFrames}). Stateless and thread-safe.
 */
public final class StageServers {

    /** Longest wait for a new connection's SETUP frame. */
    public static final Duration FIRST_FRAME_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How far a SETUP proof's issue time may be from the accepting stage's clock (either way), and so how long a
     * recorded SETUP is refused as a replay rather than as stale.
     */
    public static final Duration PROOF_WINDOW = Duration.ofMinutes(5);
    /** Largest payload (data and metadata) a stage accepts on its internal routes. */
    public static final int MAX_PAYLOAD_BYTES = WireFormat.MAX_BLOCK_BYTES + (1 << 16);

    private StageServers() {
    }

    /**
     * A server answering with {@code responder} on connections whose SETUP {@code verifier} passes; each refusal's
     * reason goes to {@code rejected}.
     */
    public static RSocketServer server(RSocket responder, SetupVerifier verifier, Consumer<SetupVerifier.Rejection> rejected) {
        Objects.requireNonNull(responder, "responder");
        Objects.requireNonNull(verifier, "verifier");
        Objects.requireNonNull(rejected, "rejected");
        SocketAcceptor acceptor = (setup, requester) -> {
            SetupVerifier.Rejection rejection = verifier.verify(proof(setup));
            if (rejection != null) {
                rejected.accept(rejection);
                return Mono.error(new RejectedSetupException(rejection.message()));
            }
            return Mono.just(responder);
        };
        return RSocketServer.create(acceptor)
                .interceptors(registry -> registry.forConnection(new WellFormedFrames()))
                .payloadDecoder(PayloadDecoder.ZERO_COPY)
                .maxTimeToFirstFrame(FIRST_FRAME_TIMEOUT)
                .maxInboundPayloadSize(MAX_PAYLOAD_BYTES);
    }

    /**
     * The proof in {@code setup}'s authentication metadata, or {@code null} when it has none of type
     * {@value SetupProof#AUTH_TYPE} or its metadata is not well-formed composite metadata.
     */
    static byte[] proof(ConnectionSetupPayload setup) {
        if (!RouteMetadata.METADATA_MIME_TYPE.equals(setup.metadataMimeType()) || !setup.hasMetadata()) {
            return null;
        }
        try {
            for (CompositeMetadata.Entry entry : new CompositeMetadata(setup.sliceMetadata(), false)) {
                if (!WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION.getString().equals(entry.getMimeType())) {
                    continue;
                }
                ByteBuf auth = entry.getContent();
                if (AuthMetadataCodec.isWellKnownAuthType(auth)
                        || !SetupProof.AUTH_TYPE.contentEquals(AuthMetadataCodec.readCustomAuthType(auth))) {
                    return null;
                }
                ByteBuf payload = AuthMetadataCodec.readPayload(auth);
                return payload.readableBytes() > SetupProof.BYTES ? new byte[0] : ByteBufUtil.getBytes(payload);
            }
        } catch (RuntimeException malformed) {
            return new byte[0]; // not a proof: MALFORMED
        }
        return null;
    }
}
