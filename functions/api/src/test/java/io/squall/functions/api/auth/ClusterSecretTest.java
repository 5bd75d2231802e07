package io.squall.functions.api.auth;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClusterSecretTest {

    private static final byte[] SECRET = "0123456789abcdef0123".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @Test
    void theClusterNameCarriesADigestOnlyTheSecretGives() {
        String closed = ClusterSecret.of(SECRET).clusterName("squall");
        assertThat(closed).startsWith("squall-").hasSize("squall-".length() + 32).doesNotContain("0123456789abcdef");
        assertThat(ClusterSecret.of(SECRET).clusterName("squall")).isEqualTo(closed);
        assertThat(ClusterSecret.of("0123456789abcdef0124".getBytes(StandardCharsets.US_ASCII)).clusterName("squall"))
                .isNotEqualTo(closed);
        assertThat(ClusterSecret.open().clusterName("squall")).isEqualTo("squall");
    }

    @Test
    void aFileGivesItsBytesWithoutTrailingWhitespace() throws IOException {
        Path plain = Files.write(dir.resolve("plain"), SECRET);
        Path echoed = Files.writeString(dir.resolve("echoed"), new String(SECRET, StandardCharsets.US_ASCII) + "\n");
        assertThat(ClusterSecret.read(echoed).clusterName("c")).isEqualTo(ClusterSecret.read(plain).clusterName("c"))
                .isEqualTo(ClusterSecret.of(SECRET).clusterName("c"));
        assertThat(ClusterSecret.read(plain).isOpen()).isFalse();
    }

    @Test
    void shortLongAndMissingSecretsAreRefusedWithAClearMessage() throws IOException {
        assertThatThrownBy(() -> ClusterSecret.of(new byte[15])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16 to 4096 bytes, got 15");
        Path tooShort = Files.writeString(dir.resolve("short"), "tiny secret\n");
        assertThatThrownBy(() -> ClusterSecret.read(tooShort)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(tooShort.toString()).hasMessageContaining("got 11");
        Path huge = Files.write(dir.resolve("huge"), new byte[ClusterSecret.MAX_BYTES + 100]);
        assertThatThrownBy(() -> ClusterSecret.read(huge)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("larger than");
        assertThatThrownBy(() -> ClusterSecret.read(dir.resolve("absent"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot read");
    }

    @Test
    void toStringNamesNoSecret() {
        assertThat(ClusterSecret.of(SECRET)).hasToString("ClusterSecret[closed]");
        assertThat(ClusterSecret.open()).hasToString("ClusterSecret[open]");
    }
}
