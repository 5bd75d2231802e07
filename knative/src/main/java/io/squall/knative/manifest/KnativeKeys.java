package io.squall.knative.manifest;

/** The Knative Serving annotations and labels the manifests and the connector use. */
public final class KnativeKeys {

    /** Which autoscaler sizes a revision (revision template or Revision only, never the Service's own metadata). */
    public static final String CLASS = "autoscaling.knative.dev/class";
    /** The Knative Pod Autoscaler, Knative's default class. */
    public static final String KPA = "kpa.autoscaling.knative.dev";
    /** The fewest pods of a revision. */
    public static final String MIN_SCALE = "autoscaling.knative.dev/min-scale";
    /** The most pods of a revision ("0" means no bound). */
    public static final String MAX_SCALE = "autoscaling.knative.dev/max-scale";
    /** The pods a new revision starts with. */
    public static final String INITIAL_SCALE = "autoscaling.knative.dev/initial-scale";
    /** What the KPA scales on: {@code concurrency} or {@code rps}. */
    public static final String METRIC = "autoscaling.knative.dev/metric";
    /** The per-pod value of the metric the KPA aims for. */
    public static final String TARGET = "autoscaling.knative.dev/target";
    /** How long a revision may take to become ready before Knative marks it failed. */
    public static final String PROGRESS_DEADLINE = "serving.knative.dev/progress-deadline";
    /** Label on a Service: {@code cluster-local} keeps it off the cluster's external ingress. */
    public static final String VISIBILITY = "networking.knative.dev/visibility";
    /** The value of {@link #VISIBILITY} for services reached only inside the cluster. */
    public static final String CLUSTER_LOCAL = "cluster-local";

    private KnativeKeys() {
    }
}
