package io.squall.functions.discovery;

import io.squall.kvgrid.WorkerId;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Names one running instance of an endpoint, printed {@code namespace/component/endpoint/instance} with
 * the instance number in hex, as Dynamo names its instances (e.g. {@code squall/worker/generate/3f2a9c}).
 *
 * @param namespace the deployment, e.g. {@code squall}
 * @param component the stage, e.g. {@code worker}
 * @param endpoint the served route group, e.g. {@code generate}
 * @param instance a number unique within the cluster; it is also the instance's {@link WorkerId} in KV events
 */
public record InstanceId(String namespace, String component, String endpoint, long instance) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    public InstanceId {
        checkName("namespace", namespace);
        checkName("component", component);
        checkName("endpoint", endpoint);
    }

    /** Parses the form printed by {@link #toString()}. */
    public static InstanceId parse(String text) {
        String[] parts = Objects.requireNonNull(text, "text").split("/", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("an instance id has the form namespace/component/endpoint/hex");
        }
        try {
            return new InstanceId(parts[0], parts[1], parts[2], Long.parseUnsignedLong(parts[3], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the instance part of an instance id must be hex");
        }
    }

    /** The id KV events and routers use for this instance's block pool. */
    public WorkerId workerId() {
        return new WorkerId(instance);
    }

    @Override
    public String toString() {
        return namespace + '/' + component + '/' + endpoint + '/' + Long.toUnsignedString(instance, 16);
    }

    private static void checkName(String what, String value) {
        Objects.requireNonNull(value, what);
        if (!NAME.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " must be 1-64 characters of letters, digits, '_', '.' or '-'");
        }
    }
}
