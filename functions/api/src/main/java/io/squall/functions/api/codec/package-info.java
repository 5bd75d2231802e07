/**
 * The compact binary encoding of the internal payloads (version byte, message type, then fields as
 * varints, little-endian numbers and length-prefixed strings): {@link
 * io.squall.functions.api.codec.WireFormat} encodes and decodes each message, over the primitive
 * {@link io.squall.functions.api.codec.WireWriter} and the bounds-checking {@link
 * io.squall.functions.api.codec.WireReader}. The schema is published in {@code docs/wire-protocol.md}.
 * No framework types: the RSocket glue wraps these bytes into payloads.
 */
package io.squall.functions.api.codec;
