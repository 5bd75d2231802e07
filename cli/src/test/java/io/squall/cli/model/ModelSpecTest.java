package io.squall.cli.model;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModelSpecTest {

    private static final URI HUB = URI.create("https://huggingface.co");

    @Test
    void aHubNameResolvesToTheRepositorysResolveUrlAtMain() {
        ModelSpec spec = ModelSpec.parse("hf:ggml-org/models/tinyllamas/stories260K.gguf", HUB);

        assertThat(spec).isInstanceOfSatisfying(ModelSpec.Download.class, d -> {
            assertThat(d.url()).hasToString("https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf");
            assertThat(d.cacheKey()).isEqualTo(Path.of("huggingface.co/ggml-org/models/main/tinyllamas/stories260K.gguf"));
            assertThat(d.fileName()).isEqualTo("stories260K.gguf");
        });
    }

    @Test
    void aRevisionFollowsTheRepository() {
        ModelSpec spec = ModelSpec.parse("hf:Qwen/Qwen3-0.6B-GGUF@v1.0/Qwen3-0.6B-Q8_0.gguf", HUB);

        assertThat(((ModelSpec.Download) spec).url())
                .hasToString("https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/v1.0/Qwen3-0.6B-Q8_0.gguf");
    }

    @Test
    void aUrlIsCachedUnderItsHostAndPath() {
        ModelSpec spec = ModelSpec.parse("https://example.com:8443/m/tiny.gguf", HUB);

        assertThat(((ModelSpec.Download) spec).cacheKey()).isEqualTo(Path.of("example.com_8443/m/tiny.gguf"));
    }

    @Test
    void anythingElseIsALocalFile() {
        assertThat(ModelSpec.parse("models/m.gguf", HUB)).isEqualTo(new ModelSpec.LocalFile(Path.of("models/m.gguf")));
    }

    @Test
    void malformedNamesAreRefusedWithTheAcceptedForm() {
        for (String bad : new String[] {"hf:owner/file.gguf", "hf:owner/repo/../../etc/passwd", "hf:", "hf:o/r/"}) {
            assertThatThrownBy(() -> ModelSpec.parse(bad, HUB)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hf:OWNER/REPO/FILE.gguf");
        }
        assertThatThrownBy(() -> ModelSpec.parse("https://example.com/", HUB))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must name a file");
        assertThatThrownBy(() -> ModelSpec.parse("https://example.com/a/../b.gguf", HUB))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
