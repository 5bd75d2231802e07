/**
 * The one container image of every stage, built without a Docker daemon by Jib:
 * {@link io.squall.knative.image.JavaRuntime} links a small JDK 25 runtime with {@code jlink} and finds the C
 * libraries it needs, {@link io.squall.knative.image.AotTraining} trains a JDK ahead-of-time cache for it, and
 * {@link io.squall.knative.image.SquallImage} lays them out with the {@code squall} jar as an image written to a
 * tarball or pushed to a registry.
 */
package io.squall.knative.image;
