package io.squall.gateway.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.exceptions.ContentLengthExceededException;
import io.micronaut.http.exceptions.HttpStatusException;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps exceptions that escape to Micronaut (body too large, binding failures, bugs) to OpenAI error objects.
 * Status-only errors (no route, wrong method) go through {@link OpenAiErrorResponseProcessor}.
 */
@Controller
@Requires(property = MicronautHttpFrontEnd.ENABLED_PROPERTY, value = "true")
final class ErrorController {

    private static final Logger LOG = LoggerFactory.getLogger(ErrorController.class);

    @Error(global = true, exception = ContentLengthExceededException.class)
    MutableHttpResponse<String> tooLarge(ContentLengthExceededException e) {
        return HttpReplies.error(new ApiException(ApiError.REQUEST_TOO_LARGE, "the request body is larger than the "
                + "gateway accepts", null, "request_too_large"));
    }

    @Error(global = true)
    MutableHttpResponse<String> failure(HttpRequest<?> request, Throwable failure) {
        if (failure instanceof HttpStatusException status) {
            return HttpReplies.error(OpenAiErrorResponseProcessor.forStatus(status.getStatus().getCode(),
                    request.getMethodName() + " " + request.getPath(), status.getMessage()));
        }
        ApiException api = ApiException.from(failure);
        if (api.error() == ApiError.INTERNAL && failure.getClass().getName().startsWith("io.micronaut.")) {
            // The framework rejected the input (a header or parameter it could not bind): the client's to fix.
            LOG.debug("request {} {} rejected by the HTTP layer", request.getMethodName(), request.getPath(), failure);
            api = new ApiException(ApiError.INVALID_REQUEST, "the request could not be processed: "
                    + failure.getClass().getSimpleName(), null, null);
        } else if (api.error() == ApiError.INTERNAL) {
            LOG.warn("request {} {} failed", request.getMethodName(), request.getPath(), failure);
        }
        return HttpReplies.error(api);
    }
}
