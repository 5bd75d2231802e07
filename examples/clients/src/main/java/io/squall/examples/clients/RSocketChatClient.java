package io.squall.examples.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.RSocketConnector;
import io.rsocket.metadata.AuthMetadataCodec;
import io.rsocket.metadata.CompositeMetadataCodec;
import io.rsocket.metadata.TaggingMetadataCodec;
import io.rsocket.metadata.WellKnownMimeType;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.client.WebsocketClientTransport;
import io.rsocket.util.DefaultPayload;
import reactor.core.publisher.Flux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A plain Java RSocket client of the gateway's {@code v1.chat} route: the OpenAI chat request as JSON data, the
 * route (and an optional API key) in composite metadata, and a stream of OpenAI chunk JSON back, one payload per
 * chunk. {@link #chat} turns the chunks into the text as it is generated.
 *
 * <pre>
 * java -cp … io.squall.examples.clients.RSocketChatClient ws://127.0.0.1:8000/rsocket MODEL "Tell me a story"
 * </pre>
 *
 * <p>Thread-safe: one connection carries any number of concurrent chats.
 */
public final class RSocketChatClient implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RSocket socket;
    private final String apiKey;

    private RSocketChatClient(RSocket socket, String apiKey) {
        this.socket = socket;
        this.apiKey = apiKey;
    }

    /**
     * Connects to the gateway at {@code url}: {@code ws://HOST:PORT/rsocket} (the gateway's HTTP port; {@code wss}
     * with TLS) or {@code tcp://HOST:PORT} (its RSocket TCP port).
     *
     * @param apiKey the gateway's API key, or {@code null} when it has none
     */
    public static RSocketChatClient connect(URI url, String apiKey) {
        ClientTransport transport = switch (url.getScheme()) {
            case "ws", "wss" -> WebsocketClientTransport.create(url);
            case "tcp" -> TcpClientTransport.create(url.getHost(), url.getPort());
            default -> throw new IllegalArgumentException("the URL must be ws://, wss:// or tcp://, not " + url);
        };
        RSocket socket = RSocketConnector.create()
                .metadataMimeType(WellKnownMimeType.MESSAGE_RSOCKET_COMPOSITE_METADATA.getString())
                .dataMimeType("application/json")
                .connect(transport)
                .block(Duration.ofSeconds(30));
        return new RSocketChatClient(socket, apiKey);
    }

    /**
     * Streams the assistant's answer to {@code userMessage} (greedy decoding): each element is the text of one
     * chunk, in order. The
     * gateway generates as this flux is consumed (RSocket request-n is the subscriber's demand); cancelling stops
     * the generation. Errors arrive as RSocket exceptions whose message is the OpenAI error JSON.
     */
    public Flux<String> chat(String model, String userMessage, int maxTokens) {
        ObjectNode request = JSON.createObjectNode().put("model", model).put("max_tokens", maxTokens).put("temperature", 0);
        request.putArray("messages").addObject().put("role", "user").put("content", userMessage);
        return socket.requestStream(payload("v1.chat", request))
                .map(RSocketChatClient::read)
                .map(chunk -> chunk.path("choices").path(0).path("delta").path("content").asText(""))
                .filter(text -> !text.isEmpty());
    }

    private Payload payload(String route, JsonNode body) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        CompositeByteBuf metadata = alloc.compositeBuffer();
        CompositeMetadataCodec.encodeAndAddMetadata(metadata, alloc, WellKnownMimeType.MESSAGE_RSOCKET_ROUTING,
                TaggingMetadataCodec.createRoutingMetadata(alloc, List.of(route)).getContent());
        if (apiKey != null) {
            CompositeMetadataCodec.encodeAndAddMetadata(metadata, alloc, WellKnownMimeType.MESSAGE_RSOCKET_AUTHENTICATION,
                    AuthMetadataCodec.encodeBearerMetadata(alloc, apiKey.toCharArray()));
        }
        try {
            return DefaultPayload.create(Unpooled.wrappedBuffer(JSON.writeValueAsBytes(body)), metadata);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode read(Payload payload) {
        try {
            return JSON.readTree(payload.getDataUtf8());
        } catch (IOException e) {
            throw new UncheckedIOException("the gateway sent a chunk that is not JSON", e);
        } finally {
            payload.release();
        }
    }

    @Override
    public void close() {
        socket.dispose();
    }

    /** {@code URL MODEL PROMPT [MAX_TOKENS]}; the API key, if any, comes from {@code SQUALL_API_KEY}. */
    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: RSocketChatClient ws://HOST:PORT/rsocket|tcp://HOST:PORT MODEL PROMPT [MAX_TOKENS]");
            System.exit(2);
        }
        int maxTokens = args.length > 3 ? Integer.parseInt(args[3]) : 128;
        try (RSocketChatClient client = connect(URI.create(args[0]), System.getenv("SQUALL_API_KEY"))) {
            client.chat(args[1], args[2], maxTokens).doOnNext(text -> {
                System.out.print(text);
                System.out.flush();
            }).blockLast(Duration.ofMinutes(10));
            System.out.println();
        }
    }
}
