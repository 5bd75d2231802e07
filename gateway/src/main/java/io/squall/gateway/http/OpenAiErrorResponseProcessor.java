package io.squall.gateway.http;

import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.openai.Json;
import jakarta.inject.Singleton;

/**
 * Writes the errors Micronaut produces by itself (no route, wrong method, unsupported media type, body too
 * large) as OpenAI error objects, keeping the status Micronaut chose.
 */
@Singleton
@Replaces(ErrorResponseProcessor.class)
@Requires(property = MicronautHttpFrontEnd.ENABLED_PROPERTY, value = "true")
final class OpenAiErrorResponseProcessor implements ErrorResponseProcessor<String> {

    @Override
    public MutableHttpResponse<String> processResponse(ErrorContext context, MutableHttpResponse<?> base) {
        String where = context.getRequest().getMethodName() + " " + context.getRequest().getPath();
        ApiException error = forStatus(base.code(), where,
                context.hasErrors() ? context.getErrors().getFirst().getMessage() : "the request could not be processed");
        @SuppressWarnings("unchecked")
        MutableHttpResponse<String> response = (MutableHttpResponse<String>) base;
        return response.contentType(MediaType.APPLICATION_JSON_TYPE).body(Json.error(error));
    }

    /** The error for a status the framework chose; {@code where} is the method and path, {@code message} its reason. */
    static ApiException forStatus(int status, String where, String message) {
        return switch (status) {
            case 404 -> new ApiException(ApiError.NOT_FOUND, "no route " + where, null, "unknown_url");
            case 405 -> new ApiException(ApiError.METHOD_NOT_ALLOWED, "method not allowed: " + where, null, "method_not_allowed");
            case 413 -> new ApiException(ApiError.REQUEST_TOO_LARGE, "the request body is larger than the gateway accepts",
                    null, "request_too_large");
            case 415 -> new ApiException(ApiError.UNSUPPORTED_MEDIA_TYPE, "send the body as application/json", null,
                    "unsupported_media_type");
            default -> new ApiException(status >= 500 ? ApiError.INTERNAL : ApiError.INVALID_REQUEST,
                    message, null, null);
        };
    }
}
