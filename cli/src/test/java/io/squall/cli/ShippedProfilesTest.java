package io.squall.cli;

import io.squall.functions.engine.mock.StepShape;
import io.squall.functions.engine.mock.StepTimingModel;
import io.squall.scheduler.profile.Profile;
import io.squall.scheduler.profile.ProfileFiles;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

/**
 * The profiles under {@code examples/profiles/} drive both the mock engine (their timing) and the planner (their
 * tables); a mock worker is only a faithful stand-in for the planner's sizing if the two agree.
 */
class ShippedProfilesTest {

    private static final Path SHIPPED = Path.of("..", "examples", "profiles");

    /**
     * Tables are measured through a worker, so they carry its scheduling cost on top of the timing: on the loaded
     * two-core host the H100 tables were measured on, up to 25% on the shortest steps.
     */
    @Test
    void everyShippedProfileReadsAndItsTimingReproducesItsOwnDecodeTable() throws IOException {
        List<Path> files;
        try (Stream<Path> listing = Files.list(SHIPPED)) {
            files = listing.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).as("the shipped profiles").isNotEmpty();
        for (Path file : files) {
            Profile profile = ProfileFiles.read(file);
            assertThat(profile.source()).as(file + " says where its figures come from").isNotBlank();
            assertThat(profile.prefill()).as(file + " has a prefill table for the planner").isNotEmpty();
            assertThat(profile.decode()).as(file + " has a decode table for the planner").isNotEmpty();
            StepTimingModel timing = ProfileTimings.model(profile.timing());
            for (Profile.DecodePoint point : profile.decode()) {
                double modelled = timing.seconds(StepShape.decode(point.batch(), point.context())) * 1e3;
                assertThat(modelled).as("%s: a decode step of %d sequences at context %d", file, point.batch(),
                        point.context()).isCloseTo(point.itlMs(), withinPercentage(30));
            }
        }
    }
}
