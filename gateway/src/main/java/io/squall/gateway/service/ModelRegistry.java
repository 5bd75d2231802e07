package io.squall.gateway.service;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.squall.gateway.ModelEndpoint;
import io.squall.gateway.openai.ApiError;
import io.squall.gateway.openai.ApiException;
import io.squall.gateway.openai.Json;
import io.squall.gateway.preprocess.Preprocessor;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/** The models a gateway serves, by name, each with its preprocessor. Immutable and thread-safe. */
public final class ModelRegistry {

    /** A served model. */
    public record Served(String name, ModelEndpoint endpoint, Preprocessor preprocessor) {
    }

    private final Map<String, Served> models = new LinkedHashMap<>();
    private final long created = Instant.now().getEpochSecond();

    /** @param endpoints model name → endpoint, in the order {@code /v1/models} lists them; not empty */
    public ModelRegistry(Map<String, ModelEndpoint> endpoints) {
        Objects.requireNonNull(endpoints, "endpoints");
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("a gateway needs at least one model");
        }
        endpoints.forEach((name, endpoint) -> {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("model names must not be blank");
            }
            models.put(name, new Served(name, endpoint, new Preprocessor(endpoint)));
        });
    }

    /**
     * The model called {@code name}.
     *
     * @throws ApiException (404, code {@code model_not_found}) when no such model is served
     */
    public Served get(String name) {
        Served served = models.get(name);
        if (served == null) {
            throw new ApiException(ApiError.NOT_FOUND, "The model '" + name + "' does not exist or is not served here",
                    "model", "model_not_found");
        }
        return served;
    }

    /** The {@code GET /v1/models} body. Random-weight models say so in {@code owned_by} and {@code description}. */
    public String listJson() {
        ObjectNode root = Json.object();
        root.put("object", "list");
        ArrayNode data = root.putArray("data");
        for (Served served : models.values()) {
            ObjectNode model = data.addObject();
            model.put("id", served.name());
            model.put("object", "model");
            model.put("created", created);
            boolean random = served.endpoint().randomWeights();
            model.put("owned_by", random ? "squall (random weights)" : "squall");
            model.put("description", random ? "RANDOM WEIGHTS: a demo model that produces meaningless text"
                    : "served by Squall");
            model.put("random_weights", random);
            OptionalInt context = served.endpoint().context().tokens();
            if (context.isPresent()) { // absent while no worker serves the model
                model.put("max_model_len", context.getAsInt());
            }
        }
        return Json.write(root);
    }
}
