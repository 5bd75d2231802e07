/** JMH benchmarks of Squall's hot paths; run them from the shaded {@code benchmarks.jar} or the JMH runner. */
package io.squall.bench;
