package io.squall.functions.api.rsocket;

import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.ConnectionCloseException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.exceptions.CustomRSocketException;
import io.rsocket.exceptions.RejectedSetupException;
import io.squall.functions.api.ErrorCode;
import io.squall.functions.api.StageException;

import java.nio.channels.ClosedChannelException;

/**
 * The one mapping between {@link StageException} and RSocket error frames: a stage error travels as a
 * {@link CustomRSocketException} whose code is {@link ErrorCode#rsocketCode()}, and comes back out as
 * the same {@link ErrorCode}. Stateless and thread-safe.
 */
public final class RSocketErrors {

    private RSocketErrors() {
    }

    /** What a responder signals for {@code error}: stage errors keep their code, anything else is INTERNAL. */
    public static CustomRSocketException toRSocket(Throwable error) {
        if (error instanceof StageException stage) {
            return new CustomRSocketException(stage.code().rsocketCode(), String.valueOf(stage.getMessage()));
        }
        return new CustomRSocketException(ErrorCode.INTERNAL.rsocketCode(), "internal error: " + error);
    }

    /**
     * What a requester signals for an error from RSocket: custom codes map back to their {@link ErrorCode};
     * a lost connection is {@link ErrorCode#UNAVAILABLE}; a refused SETUP (this stage's cluster credentials were
     * not accepted) and other protocol errors are {@link ErrorCode#INTERNAL}.
     */
    public static StageException fromRSocket(Throwable error) {
        if (error instanceof StageException stage) {
            return stage;
        }
        if (error instanceof CustomRSocketException custom) {
            return new StageException(ErrorCode.fromRsocketCode(custom.errorCode()), custom.getMessage());
        }
        if (error instanceof ClosedChannelException
                || error instanceof ConnectionErrorException
                || error instanceof ConnectionCloseException) {
            return new StageException(ErrorCode.UNAVAILABLE, "the connection to the stage was lost: " + error.getMessage());
        }
        if (error instanceof RejectedSetupException rejected) {
            return new StageException(ErrorCode.INTERNAL, "the stage refused the connection: " + rejected.getMessage()
                    + " (every stage of a cluster needs the same cluster secret: --cluster-secret-file or SQUALL_CLUSTER_SECRET)");
        }
        if (error instanceof RSocketErrorException rsocket) {
            return new StageException(ErrorCode.INTERNAL, "RSocket error 0x" + Integer.toHexString(rsocket.errorCode())
                    + ": " + rsocket.getMessage());
        }
        return new StageException(ErrorCode.INTERNAL, String.valueOf(error));
    }
}
