package io.squall.functions.stage.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.websocket.CloseReason;
import io.micronaut.websocket.WebSocketSession;
import io.micronaut.websocket.annotation.OnClose;
import io.micronaut.websocket.annotation.OnMessage;
import io.micronaut.websocket.annotation.OnOpen;
import io.micronaut.websocket.annotation.ServerWebSocket;
import io.netty.buffer.Unpooled;
import io.squall.functions.stage.StageEndpoints;
import io.squall.functions.stage.StageServer;

/**
 * {@code /rsocket}: each WebSocket session is one RSocket connection, handed to the stage's acceptor; each binary
 * message is one RSocket frame (RSocket's WebSocket transport: no length prefix). Runs on the session's event
 * loop, so frames reach RSocket in the order they arrived.
 */
@ServerWebSocket("/rsocket")
@Requires(beans = StageEndpoints.class)
final class RSocketWebSocket {

    private static final String CONNECTION = "squall.rsocket.connection";

    private final StageEndpoints endpoints;

    RSocketWebSocket(StageEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @OnOpen
    void open(WebSocketSession session) {
        if (endpoints.rsocket() == null) {
            session.close(new CloseReason(CloseReason.UNSUPPORTED_DATA.getCode(), "this stage serves no RSocket routes"));
            return;
        }
        SessionConnection connection = new SessionConnection(session);
        session.put(CONNECTION, connection);
        endpoints.rsocket().apply(connection).subscribe(null, error -> connection.dispose());
    }

    @OnMessage(maxPayloadLength = StageServer.MAX_FRAME_BYTES)
    void frame(byte[] frame, WebSocketSession session) {
        session.get(CONNECTION, SessionConnection.class)
                .ifPresent(connection -> connection.received(Unpooled.wrappedBuffer(frame)));
    }

    @OnClose
    void close(WebSocketSession session) {
        session.get(CONNECTION, SessionConnection.class).ifPresent(SessionConnection::closed);
    }
}
