package io.squall.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One {@code squall} command run in this JVM, as tests run them: its exit code and what it wrote to stdout and
 * stderr.
 */
record CliRun(int exitCode, String out, String err) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Runs {@code squall args…}. */
    static CliRun squall(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Squall.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** Stdout as JSON. */
    JsonNode json() throws Exception {
        return JSON.readTree(out);
    }
}
