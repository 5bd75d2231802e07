package io.squall.functions.engine.chat.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PythonJsonTest {

    @Test
    void writesLikeJsonDumpsWithDefaultSeparators() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("z", 1);
        value.put("a", List.of(2.5, true, "x"));
        value.put("n", null);
        value.put("e", Map.of());
        value.put("l", List.of());
        assertThat(PythonJson.dumps(value, null))
                .isEqualTo("{\"z\": 1, \"a\": [2.5, true, \"x\"], \"n\": null, \"e\": {}, \"l\": []}");
    }

    @Test
    void escapesControlCharactersAndKeepsNonAscii() {
        assertThat(PythonJson.dumps("quote \" back \\ nl \n tab \t bell \u0007 é 日本", null))
                .isEqualTo("\"quote \\\" back \\\\ nl \\n tab \\t bell \\u0007 é 日本\"");
    }

    @Test
    void indentsNestedContainersOneItemPerLine() {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("a", Arrays.asList(1, 2));
        value.put("b", Map.of());
        assertThat(PythonJson.dumps(value, 2)).isEqualTo("{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}");
    }
}
