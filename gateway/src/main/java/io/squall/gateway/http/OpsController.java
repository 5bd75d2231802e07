package io.squall.gateway.http;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Operations routes beside the stage's own ({@code /healthz}, {@code /readyz}, {@code /metrics}): {@code /health}
 * and {@code /live} for load balancers, and the OpenAPI document.
 */
@Controller
@Requires(property = MicronautHttpFrontEnd.ENABLED_PROPERTY, value = "true")
final class OpsController {

    private static final String OPENAPI = readOpenApi();

    @Get(uri = "/health", produces = MediaType.APPLICATION_JSON)
    String health() {
        return "{\"status\":\"ok\"}";
    }

    @Get(uri = "/live", produces = MediaType.APPLICATION_JSON)
    String live() {
        return "{\"status\":\"ok\"}";
    }

    @Get(uri = "/openapi.json", produces = MediaType.APPLICATION_JSON)
    String openApi() {
        return OPENAPI;
    }

    private static String readOpenApi() {
        try (InputStream in = OpsController.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new IllegalStateException("openapi.json is missing from the gateway's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
