package io.squall.knative.manifest;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Kubernetes and Knative API schemas as fabric8's typed models carry them (generated from the Go types
 * behind the API servers' OpenAPI schemas and Knative's CRDs): a manifest must read back as its typed class with
 * no field the type lacks (fabric8 keeps unknown fields in {@code additionalProperties}, where this looks), and
 * its names, labels and annotations must have Kubernetes' syntax.
 */
final class ApiSchema {

    private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
    private static final Pattern QUALIFIED_NAME = Pattern.compile(
            "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    private ApiSchema() {
    }

    static List<String> violations(String yaml) {
        List<String> errors = new ArrayList<>();
        Object read = SERIALIZATION.unmarshal(yaml);
        if (!(read instanceof HasMetadata object) || read instanceof GenericKubernetesResource) {
            errors.add("not a typed Kubernetes object: " + (read == null ? null : read.getClass().getName()));
            return errors;
        }
        unknownFields(object, object.getKind(), errors);
        var meta = object.getMetadata();
        boolean knativeService = object.getApiVersion().startsWith("serving.knative.dev/") && object.getKind().equals("Service");
        boolean coreService = object.getApiVersion().equals("v1") && object.getKind().equals("Service");
        Pattern names = knativeService || coreService ? DNS_LABEL : DNS_SUBDOMAIN;
        int maxName = knativeService || coreService ? 63 : 253;
        if (meta.getName() == null || !names.matcher(meta.getName()).matches() || meta.getName().length() > maxName) {
            errors.add("metadata.name: invalid " + meta.getName());
        }
        if (meta.getNamespace() == null || !DNS_LABEL.matcher(meta.getNamespace()).matches()) {
            errors.add("metadata.namespace: invalid " + meta.getNamespace());
        }
        labels("metadata.labels", meta.getLabels(), errors);
        annotations("metadata.annotations", meta.getAnnotations(), errors);
        if (object instanceof io.fabric8.knative.serving.v1.Service service && service.getSpec() != null
                && service.getSpec().getTemplate() != null && service.getSpec().getTemplate().getMetadata() != null) {
            labels("spec.template.metadata.labels", service.getSpec().getTemplate().getMetadata().getLabels(), errors);
            annotations("spec.template.metadata.annotations", service.getSpec().getTemplate().getMetadata().getAnnotations(), errors);
        }
        String again = Manifests.yaml(object);
        if (!again.equals(yaml)) {
            errors.add("does not read back to the same document");
        }
        return errors;
    }

    private static void labels(String at, Map<String, String> labels, List<String> errors) {
        if (labels == null) {
            return;
        }
        labels.forEach((key, value) -> {
            if (!QUALIFIED_NAME.matcher(key).matches()) errors.add(at + ": invalid key " + key);
            if (value.length() > 63 || !LABEL_VALUE.matcher(value).matches()) errors.add(at + "." + key + ": invalid value " + value);
        });
    }

    private static void annotations(String at, Map<String, String> annotations, List<String> errors) {
        if (annotations != null) {
            annotations.keySet().stream().filter(k -> !QUALIFIED_NAME.matcher(k).matches())
                    .forEach(k -> errors.add(at + ": invalid key " + k));
        }
    }

    /** Walks the typed object graph and reports any {@code additionalProperties} (fields the schema lacks). */
    private static void unknownFields(Object node, String at, List<String> errors) {
        if (node == null) {
            return;
        }
        if (node instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                unknownFields(item, at + "[" + i++ + "]", errors);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            map.forEach((k, v) -> unknownFields(v, at + "." + k, errors));
            return;
        }
        if (!(node instanceof KubernetesResource) && !node.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method method : node.getClass().getMethods()) {
            if (method.getParameterCount() != 0 || !method.getName().startsWith("get") || method.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = method.invoke(node);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            String field = at + "." + Character.toLowerCase(method.getName().charAt(3)) + method.getName().substring(4);
            if (method.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    errors.add(at + ": unknown fields " + extra.keySet());
                }
            } else if (!(value instanceof String) && !(value instanceof Number) && !(value instanceof Boolean)) {
                unknownFields(value, field, errors);
            }
        }
    }
}
