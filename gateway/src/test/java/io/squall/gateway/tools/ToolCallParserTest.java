package io.squall.gateway.tools;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ToolCallParserTest {

    @Test
    void hermesCallsWithSurroundingText() {
        ToolCallParser.Parsed parsed = ToolCallParser.parse("Sure.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n"
                + "</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {}}</tool_call>");
        assertThat(parsed.content()).isEqualTo("Sure.");
        assertThat(parsed.calls()).extracting(ToolCallParser.ToolCall::name).containsExactly("a", "b");
        assertThat(parsed.calls().getFirst().arguments()).isEqualTo("{\"x\":1}");
        assertThat(parsed.calls().getFirst().id()).startsWith("call_");
    }

    @Test
    void llama3JsonAndMistralArrays() {
        assertThat(ToolCallParser.parse("<|python_tag|>{\"name\": \"f\", \"parameters\": {\"q\": \"s\"}}").calls().getFirst()
                .arguments()).isEqualTo("{\"q\":\"s\"}");
        assertThat(ToolCallParser.parse("{\"name\": \"f\", \"parameters\": {}}; {\"name\": \"g\", \"parameters\": {}}").calls())
                .hasSize(2);
        assertThat(ToolCallParser.parse("[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": true}}]").calls()).hasSize(1);
    }

    @Test
    void anythingElseIsContent() {
        assertThat(ToolCallParser.parse("just text").calls()).isEmpty();
        assertThat(ToolCallParser.parse("{\"not\": \"a call\"}").content()).isEqualTo("{\"not\": \"a call\"}");
        assertThat(ToolCallParser.parse("<tool_call>{broken</tool_call>").calls()).isEmpty();
        assertThat(ToolCallParser.parse("{\"name\": \"f\", \"arguments\": [1]}").calls()).isEmpty();
    }
}
