package io.squall.knative.graph;

/**
 * How the planner's replica decisions reach Knative without creating a new Revision (which would restart every
 * worker and drop its KV cache). Both pin a revision's scale bounds, {@code autoscaling.knative.dev/min-scale} =
 * {@code max-scale} = the decision, on an object Knative does not roll out from; {@code docs/knative.md} explains
 * why, and which Knative versions honour which.
 */
public enum KnativeScaling {

    /**
     * Annotate the Service's latest ready Revision. Knative Serving 1.21 and later copy a Revision's autoscaling
     * annotations to its PodAutoscaler and leave them out of the pod template, so nothing restarts. On older
     * versions a Revision's annotations reach the pod template and every pod is replaced: do not use it there.
     */
    REVISION("revision"),

    /**
     * Annotate the Revision's PodAutoscaler ({@code autoscaling.internal.knative.dev/v1alpha1}). Knative Serving
     * 1.0 to 1.20 read the bounds from there and reconcile only the PodAutoscaler's spec; from 1.21 on the
     * Revision's annotations overwrite these.
     */
    POD_AUTOSCALER("pod-autoscaler");

    private final String yamlName;

    KnativeScaling(String yamlName) {
        this.yamlName = yamlName;
    }

    /** The name {@code graph.yaml} uses ({@code knative.scaling}). */
    public String yamlName() {
        return yamlName;
    }
}
