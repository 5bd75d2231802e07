package io.squall.gateway.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.CustomRSocketException;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadata;
import io.rsocket.metadata.RoutingMetadata;
import io.rsocket.metadata.WellKnownAuthType;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.util.DefaultPayload;
import io.squall.functions.api.Routes;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.openai.Json;
import io.squall.gateway.service.ApiRequest;
import io.squall.gateway.service.OpenAiService;
import io.squall.gateway.service.Reply;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.util.Iterator;

/**
 * Serves the client API over RSocket request-stream: route {@code v1.chat} or {@code v1.completions} in the
 * routing metadata, the OpenAI request JSON as data, and OpenAI chunk JSON back, one payload per chunk; the
 * stream completes after the last chunk (no {@code [DONE]}). An API key travels as bearer authentication
 * metadata ({@code message/x.rsocket.authentication.v0}) in the same composite metadata.
 *
 * <p>Failures are error frames with the {@link io.squall.functions.api.ErrorCode} of the {@link ApiError} and the
 * OpenAI error JSON as message. Demand: payloads are produced as the requester asks; cancelling cancels the
 * generation.
 */
final class ClientApiResponder implements RSocket {

    private final OpenAiService service;
    private final boolean compositeMetadata;

    /** @param compositeMetadata whether the connection's metadata MIME type is composite (else bare routing) */
    ClientApiResponder(OpenAiService service, boolean compositeMetadata) {
        this.service = service;
        this.compositeMetadata = compositeMetadata;
    }

    @Override
    public Flux<Payload> requestStream(Payload payload) {
        try {
            Metadata metadata = metadata(payload);
            String route = metadata.route();
            String authorization = metadata.authorization();
            byte[] body = ByteBufUtil.getBytes(payload.sliceData());
            ApiRequest request = new ApiRequest(authorization, body, ApiRequest.Delivery.STREAM, Schedulers.parallel());
            Reply reply;
            if (Routes.V1_CHAT.equals(route)) {
                reply = service.chat(request);
            } else if (Routes.V1_COMPLETIONS.equals(route)) {
                reply = service.completions(request);
            } else {
                throw new ApiException(ApiError.NOT_FOUND, "unknown route '" + route + "'; use " + Routes.V1_CHAT + " or "
                        + Routes.V1_COMPLETIONS, null, "unknown_route");
            }
            return ((Reply.Stream) reply).chunks()
                    .map(DefaultPayload::create)
                    .onErrorMap(e -> errorFrame(ApiException.from(e)));
        } catch (RuntimeException e) {
            return Flux.error(errorFrame(ApiException.from(e)));
        } finally {
            payload.release();
        }
    }

    /** The route and bearer token a request's metadata carries (either may be {@code null}). */
    private record Metadata(String route, String authorization) {
    }

    /**
     * Reads the request's metadata: composite (routing and authentication entries) or bare routing metadata, as
     * the connection's SETUP declared.
     *
     * @throws ApiException INVALID_REQUEST when the metadata is not well-formed: the client's error, not the gateway's
     */
    private Metadata metadata(Payload payload) {
        if (!payload.hasMetadata()) {
            return new Metadata(null, null);
        }
        try {
            ByteBuf metadata = payload.sliceMetadata();
            if (!compositeMetadata) {
                return new Metadata(firstTag(metadata), null);
            }
            String route = null;
            String authorization = null;
            for (CompositeMetadata.Entry entry : new CompositeMetadata(metadata, false)) {
                if (WellKnownMimeType.MESSAGE_RSOCKET_ROUTING.getString().equals(entry.getMimeType())) {
                    route = firstTag(entry.getContent());
                } else if (WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION.getString().equals(entry.getMimeType())) {
                    authorization = bearer(entry.getContent());
                }
            }
            return new Metadata(route, authorization);
        } catch (RuntimeException malformed) {
            throw ApiException.invalid(null, "malformed RSocket metadata: " + malformed.getMessage());
        }
    }

    private static String firstTag(ByteBuf routing) {
        Iterator<String> tags = new RoutingMetadata(routing).iterator();
        return tags.hasNext() ? tags.next() : null;
    }

    private static String bearer(ByteBuf auth) {
        if (!AuthMetadataCodec.isWellKnownAuthType(auth)
                || AuthMetadataCodec.readWellKnownAuthType(auth) != WellKnownAuthType.BEARER) {
            return null;
        }
        return "Bearer " + new String(AuthMetadataCodec.readBearerTokenAsCharArray(auth));
    }

    private static CustomRSocketException errorFrame(ApiException failure) {
        return new CustomRSocketException(failure.error().errorCode().rsocketCode(), Json.error(failure));
    }
}
