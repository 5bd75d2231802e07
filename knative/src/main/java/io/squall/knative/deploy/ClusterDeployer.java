package io.squall.knative.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.squall.knative.manifest.Manifests;

import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Applies a graph's objects to a cluster, removes them, or shows how the cluster differs from them.
 *
 * <p>Apply is server-side apply with the field manager {@value #FIELD_MANAGER}, in the manifests' order, taking
 * ownership of conflicting fields (the graph file is the source of truth for what it sets). An API server without
 * server-side apply gets a create, or a JSON merge patch of the object onto its live copy (fabric8's mock server
 * answers an apply with 404 for a new object and 415 for an existing one). The planner's scale
 * decisions live on Revisions (or PodAutoscalers), which apply never writes, so re-applying an unchanged graph
 * neither creates a Revision nor undoes a decision. Delete removes the objects in reverse order. Thread-safe as
 * far as the client is.
 */
public final class ClusterDeployer {

    /** The server-side apply field manager of {@code squall deploy}. */
    public static final String FIELD_MANAGER = "squall-deploy";

    private static final int HTTP_UNSUPPORTED_MEDIA_TYPE = 415;
    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS));

    private final KubernetesClient client;

    public ClusterDeployer(KubernetesClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** Server-side applies every object; returns one line per object ({@code applied KIND/NAME}). */
    public List<String> apply(Manifests manifests) {
        List<String> lines = new ArrayList<>();
        for (HasMetadata object : manifests.objects()) {
            try {
                client.resource(object).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
            } catch (KubernetesClientException e) {
                switch (e.getCode()) {
                    case HttpURLConnection.HTTP_NOT_FOUND -> create(object);
                    case HTTP_UNSUPPORTED_MEDIA_TYPE -> merge(object);
                    default -> throw failure("applying", object, e);
                }
            }
            lines.add("applied " + id(object));
        }
        return lines;
    }

    /**
     * Creates {@code object} for an API server that answered an apply with 404, as one that cannot create by apply
     * does (fabric8's mock server); a missing namespace fails here again with its own message.
     */
    private void create(HasMetadata object) {
        try {
            client.resource(object).create();
        } catch (KubernetesClientException e) {
            throw failure("applying", object, e);
        }
    }

    /** Merge-patches {@code object} onto its live copy, for an API server without server-side apply (415). */
    private void merge(HasMetadata object) {
        try {
            client.resource(object).patch(PatchContext.of(PatchType.JSON_MERGE));
        } catch (KubernetesClientException e) {
            throw failure("applying", object, e);
        }
    }

    /** Deletes every object, last first; returns one line per object ({@code deleted} or {@code absent}). */
    public List<String> delete(Manifests manifests) {
        List<String> lines = new ArrayList<>();
        for (HasMetadata object : manifests.objects().reversed()) {
            try {
                boolean deleted = !client.resource(object).delete().isEmpty();
                lines.add((deleted ? "deleted " : "absent ") + id(object));
            } catch (KubernetesClientException e) {
                throw failure("deleting", object, e);
            }
        }
        return lines;
    }

    /**
     * How the cluster differs from the manifests, as a unified diff per object: {@code --- live/KIND/NAME},
     * {@code +++ graph/KIND/NAME}. An object the cluster lacks shows whole as added. Only the fields the graph
     * sets are compared, so what the API server and Knative add (status, defaults, their annotations) is not
     * reported. Empty when the cluster matches.
     */
    public String diff(Manifests manifests) {
        StringBuilder out = new StringBuilder();
        for (HasMetadata object : manifests.objects()) {
            HasMetadata live;
            try {
                live = client.resource(object).get();
            } catch (KubernetesClientException e) {
                throw failure("reading", object, e);
            }
            JsonNode desired = SERIALIZATION.convertValue(object, JsonNode.class);
            String want = yaml(desired);
            String have = live == null ? "" : yaml(project(SERIALIZATION.convertValue(live, JsonNode.class), desired));
            out.append(TextDiff.unified("live/" + id(object), "graph/" + id(object), have, want));
        }
        return out.toString();
    }

    /**
     * The part of {@code live} that {@code desired} has: objects keep only the keys desired sets; lists of the
     * same length are projected item by item, other lists are kept whole.
     */
    static JsonNode project(JsonNode live, JsonNode desired) {
        if (live == null || live.isNull()) {
            return JsonNodeFactory.instance.nullNode();
        }
        if (desired.isObject() && live.isObject()) {
            ObjectNode projected = JsonNodeFactory.instance.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = desired.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode value = live.get(field.getKey());
                if (value != null) {
                    projected.set(field.getKey(), project(value, field.getValue()));
                }
            }
            return projected;
        }
        if (desired.isArray() && live.isArray() && desired.size() == live.size()) {
            ArrayNode projected = JsonNodeFactory.instance.arrayNode();
            for (int i = 0; i < live.size(); i++) {
                projected.add(project(live.get(i), desired.get(i)));
            }
            return projected;
        }
        return live;
    }

    /** One line for a failed call: what, on which cluster, and the innermost cause (e.g. connection refused). */
    private IllegalStateException failure(String doing, HasMetadata object, KubernetesClientException e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String reason = cause == e ? e.getMessage() : e.getMessage() + " (" + cause + ")";
        return new IllegalStateException(doing + " " + id(object) + " on " + client.getConfiguration().getMasterUrl()
                + " failed: " + reason, e);
    }

    private static String yaml(JsonNode node) {
        try {
            return YAML.writeValueAsString(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write YAML", e);
        }
    }

    private static String id(HasMetadata object) {
        String group = object.getApiVersion().contains("/") ? "." + object.getApiVersion().substring(0, object.getApiVersion().indexOf('/')) : "";
        return object.getKind() + group + "/" + object.getMetadata().getName();
    }
}
