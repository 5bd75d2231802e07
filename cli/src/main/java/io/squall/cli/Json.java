package io.squall.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.PrintWriter;

/** Writes the JSON a command prints on stdout: one object a line. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static void print(PrintWriter out, Object value) {
        try {
            out.println(MAPPER.writeValueAsString(value));
            out.flush();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode output as JSON", e);
        }
    }
}
