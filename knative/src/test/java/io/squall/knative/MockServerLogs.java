package io.squall.knative;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Keeps fabric8's mock server from logging every request it serves (it logs through java.util.logging at INFO). */
public final class MockServerLogs {

    /** Held so the level set on it is not lost when the logger is garbage-collected. */
    private static final Logger MOCK_WEB_SERVER = Logger.getLogger("io.fabric8.mockwebserver");

    private MockServerLogs() {
    }

    /** Logs only the mock server's warnings and errors. */
    public static void quiet() {
        MOCK_WEB_SERVER.setLevel(Level.WARNING);
    }
}
