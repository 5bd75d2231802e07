package io.squall.gateway.openai;

import io.squall.functions.api.StageException;
import io.squall.functions.engine.chat.ChatTemplateException;

import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * A request failure as the client sees it: an {@link ApiError} kind, a message safe to show to the
 * client, and optionally the offending request parameter and a machine-readable code.
 */
public final class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ApiError error;
    private final String param;
    private final String code;

    /**
     * @param error   the kind, not null
     * @param message what went wrong, shown to the client; never contains the prompt or a key
     * @param param   the request parameter at fault, or null
     * @param code    a machine-readable code such as {@code model_not_found}, or null
     */
    public ApiException(ApiError error, String message, String param, String code) {
        super(Objects.requireNonNull(message, "message"), null, false, false);
        this.error = Objects.requireNonNull(error, "error");
        this.param = param;
        this.code = code;
    }

    /** A 400 about {@code param}. */
    public static ApiException invalid(String param, String message) {
        return new ApiException(ApiError.INVALID_REQUEST, message, param, null);
    }

    public ApiError error() {
        return error;
    }

    /** The request parameter at fault, or null. */
    public String param() {
        return param;
    }

    /** A machine-readable code, or null. */
    public String code() {
        return code;
    }

    /**
     * Maps any failure to what the client is told: API errors as they are, worker errors by their
     * {@link io.squall.functions.api.ErrorCode}, a template's own rejection as a bad request, a timeout as
     * 504, and anything else as an internal error whose details stay in the server log.
     */
    public static ApiException from(Throwable failure) {
        return switch (failure) {
            case ApiException api -> api;
            case StageException stage -> new ApiException(ApiError.fromStage(stage.code()), stage.getMessage(), null, null);
            case ChatTemplateException template when template.raisedByTemplate() ->
                    new ApiException(ApiError.INVALID_REQUEST, "the model's chat template rejected the conversation: "
                            + template.getMessage(), "messages", null);
            case TimeoutException timeout ->
                    new ApiException(ApiError.TIMEOUT, "the request did not finish within the gateway's timeout", null, "timeout");
            default -> new ApiException(ApiError.INTERNAL, "internal error", null, null);
        };
    }
}
