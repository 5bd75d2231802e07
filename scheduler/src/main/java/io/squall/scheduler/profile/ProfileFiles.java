package io.squall.scheduler.profile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads and writes {@link Profile}s as JSON with snake_case keys. */
public final class ProfileFiles {

    private static final ObjectMapper JSON = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .disable(MapperFeature.SORT_CREATOR_PROPERTIES_FIRST)
            .build()
            // derived figures (tokens per second) are written for readers and ignored when read back
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private ProfileFiles() {
    }

    /**
     * Reads {@code file}.
     *
     * @throws IllegalArgumentException naming the file when it is missing, not JSON or not a valid profile
     */
    public static Profile read(Path file) {
        try {
            return JSON.readValue(file.toFile(), Profile.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + " is not a valid profile: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read profile " + file + ": " + e.getMessage(), e);
        }
    }

    /** Writes {@code profile} to {@code file}, replacing it. */
    public static void write(Profile profile, Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            JSON.writeValue(file.toFile(), profile);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write profile " + file, e);
        }
    }

    /** {@code profile} as JSON text. */
    public static String toJson(Profile profile) {
        try {
            return JSON.writeValueAsString(profile);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
