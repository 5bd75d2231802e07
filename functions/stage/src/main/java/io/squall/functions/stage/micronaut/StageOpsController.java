package io.squall.functions.stage.micronaut;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.squall.functions.stage.StageEndpoints;

/** {@code /healthz} (liveness), {@code /readyz} (readiness) and {@code /metrics} of a stage. */
@Controller
@Requires(beans = StageEndpoints.class)
final class StageOpsController {

    private final StageEndpoints endpoints;

    StageOpsController(StageEndpoints endpoints) {
        this.endpoints = endpoints;
    }

    @Get(uri = "/healthz", produces = MediaType.TEXT_PLAIN)
    String health() {
        return "ok\n";
    }

    @Get(uri = "/readyz", produces = MediaType.TEXT_PLAIN)
    MutableHttpResponse<String> ready() {
        return endpoints.ready().getAsBoolean()
                ? HttpResponse.ok("ready\n")
                : HttpResponse.<String>status(HttpStatus.SERVICE_UNAVAILABLE).body("not ready\n");
    }

    @Get(uri = "/metrics")
    MutableHttpResponse<String> metrics() {
        return HttpResponse.ok(endpoints.metrics().get()).contentType(StageEndpoints.PROMETHEUS_TEXT);
    }
}
