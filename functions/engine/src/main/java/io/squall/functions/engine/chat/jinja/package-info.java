/**
 * The Jinja engine behind chat templates: HubSpot Jinjava configured like Hugging Face's Jinja2 environment
 * ({@code trim_blocks}, {@code lstrip_blocks}) plus what HF templates expect from Python and Jinja2 that Jinjava
 * lacks: Python string methods, {@code tojson} formatted like Python's {@code json.dumps}, {@code raise_exception},
 * {@code strftime_now} and the {@code {% generation %}} tag.
 */
package io.squall.functions.engine.chat.jinja;
