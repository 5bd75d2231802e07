/** Starting {@code squall} commands as processes of their own, in a JVM like this one. */
package io.squall.cli.launch;
