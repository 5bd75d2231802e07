/** Admission control: the bounded in-flight limit and its waiting queue. */
package io.squall.gateway.admission;
