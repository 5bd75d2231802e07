package io.squall.functions.engine.chat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.engine.chat.ChatMessage.Content;
import io.squall.functions.engine.chat.ChatMessage.ContentPart;
import io.squall.functions.engine.chat.ChatMessage.ToolCall;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Renders templates written in the style of real models' {@code tokenizer.chat_template} values. */
class ChatTemplateTest {
    private static final SpecialTokens NO_TOKENS = new SpecialTokens("", "");

    private static final List<ChatMessage> CONVERSATION = List.of(
            ChatMessage.of("system", "You are terse."),
            ChatMessage.of("user", "Hi"),
            ChatMessage.of("assistant", "Hello!"),
            ChatMessage.of("user", "Weather?"));

    @Test
    void qwen2RendersChatMlWithAndWithoutGenerationPrompt() {
        ChatTemplate template = load("qwen2", NO_TOKENS);
        String history = "<|im_start|>system\nYou are terse.<|im_end|>\n"
                + "<|im_start|>user\nHi<|im_end|>\n"
                + "<|im_start|>assistant\nHello!<|im_end|>\n"
                + "<|im_start|>user\nWeather?<|im_end|>\n";
        assertThat(template.render(new ChatTemplateInput(CONVERSATION, null, true)))
                .isEqualTo(history + "<|im_start|>assistant\n");
        assertThat(template.render(new ChatTemplateInput(CONVERSATION, null, false))).isEqualTo(history);
    }

    @Test
    void qwen2RendersToolsToolCallsAndToolResponses() {
        List<Map<String, Object>> tools = List.of(json("""
                {"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
                 "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
                """));
        List<ChatMessage> messages = List.of(
                ChatMessage.of("user", "Weather in Paris?"),
                new ChatMessage("assistant", null, null,
                        List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}")), null),
                new ChatMessage("tool", new Content.Text("22C"), null, List.of(), "call_1"));
        String expected = "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n\n"
                + "You may call one or more functions to assist with the user query.\n\n"
                + "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
                + "{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"description\": \"Get the weather\","
                + " \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}},"
                + " \"required\": [\"city\"]}}}\n</tools>\n\n"
                + "For each function call, return a json object with function name and arguments within"
                + " <tool_call></tool_call> XML tags:\n<tool_call>\n"
                + "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n"
                + "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
                + "<|im_start|>assistant\n<tool_call>\n"
                + "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>\n"
                + "<|im_start|>user\n<tool_response>\n22C\n</tool_response><|im_end|>\n"
                + "<|im_start|>assistant\n";
        assertThat(load("qwen2", NO_TOKENS).render(new ChatTemplateInput(messages, tools, true))).isEqualTo(expected);
    }

    @Test
    void llama3RendersHeadersTrimmedContentAndTodaysDate() {
        ChatTemplate template = load("llama3", new SpecialTokens("<|begin_of_text|>", "<|eot_id|>"));
        List<ChatMessage> messages = List.of(
                ChatMessage.of("system", "  Be brief. "),
                ChatMessage.of("user", " Hi "),
                ChatMessage.of("assistant", "Hello"));
        String rendered = template.render(ChatTemplateInput.of(messages));
        String today = DateTimeFormatter.ofPattern("dd MMM yyyy", Locale.US).format(ZonedDateTime.now(ZoneOffset.UTC));
        assertThat(rendered).isEqualTo("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
                + "Cutting Knowledge Date: December 2023\nToday Date: " + today + "\n\n"
                + "Be brief.<|eot_id|>"
                + "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    @Test
    void llama3RendersToolsAsIndentedJson() {
        ChatTemplate template = load("llama3", new SpecialTokens("<|begin_of_text|>", "<|eot_id|>"));
        List<Map<String, Object>> tools = List.of(json("""
                {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
                """));
        List<ChatMessage> messages = List.of(
                ChatMessage.of("user", "Weather?"),
                new ChatMessage("assistant", null, null, List.of(new ToolCall(null, "get_weather", "{\"city\": \"Paris\"}")),
                        null),
                new ChatMessage("tool", new Content.Text("22C"), null, List.of(), null));
        String rendered = template.render(new ChatTemplateInput(messages, tools, false));
        assertThat(rendered).contains("You have access to the following functions.\n\n"
                + "{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"get_weather\",\n"
                + "        \"parameters\": {\n            \"type\": \"object\"\n        }\n    }\n}\n\n<|eot_id|>");
        assertThat(rendered).endsWith("<|start_header_id|>user<|end_header_id|>\n\nWeather?<|eot_id|>"
                + "<|start_header_id|>assistant<|end_header_id|>\n\n"
                + "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eot_id|>"
                + "<|start_header_id|>ipython<|end_header_id|>\n\n22C<|eot_id|>");
    }

    @Test
    void mistralRendersInstBlocksAndRejectsNonAlternatingRoles() {
        ChatTemplate template = load("mistral", new SpecialTokens("<s>", "</s>"));
        List<ChatMessage> messages = List.of(
                ChatMessage.of("system", "Sys"),
                ChatMessage.of("user", "Hi"),
                ChatMessage.of("assistant", "Hello"),
                ChatMessage.of("user", "Bye"));
        assertThat(template.render(ChatTemplateInput.of(messages)))
                .isEqualTo("<s> [INST] Sys\n\nHi [/INST] Hello</s> [INST] Bye [/INST]");

        List<ChatMessage> twoUsers = List.of(ChatMessage.of("user", "a"), ChatMessage.of("user", "b"));
        assertThatThrownBy(() -> template.render(ChatTemplateInput.of(twoUsers)))
                .isInstanceOfSatisfying(ChatTemplateException.class, e -> assertThat(e.raisedByTemplate()).isTrue())
                .hasMessage("After the optional system message, conversation roles must alternate "
                        + "user/assistant/user/assistant/...");
    }

    @Test
    void llama2RendersTheSystemBlockOnlyWhenThereIsASystemMessage() {
        ChatTemplate template = load("llama2", new SpecialTokens("<s>", "</s>"));
        List<ChatMessage> withSystem = List.of(
                ChatMessage.of("system", "Sys"),
                ChatMessage.of("user", "Hi "),
                ChatMessage.of("assistant", " Hello"),
                ChatMessage.of("user", "Bye"));
        assertThat(template.render(ChatTemplateInput.of(withSystem)))
                .isEqualTo("<s>[INST] <<SYS>>\nSys\n<</SYS>>\n\nHi [/INST] Hello </s><s>[INST] Bye [/INST]");
        assertThat(template.render(ChatTemplateInput.of(List.of(ChatMessage.of("user", "Hi")))))
                .isEqualTo("<s>[INST] Hi [/INST]");
    }

    @Test
    void gemmaRendersContentPartsAndModelTurns() {
        ChatTemplate template = load("gemma", new SpecialTokens("<bos>", "<eos>"));
        List<ChatMessage> messages = List.of(
                new ChatMessage("system", new Content.Parts(List.of(ContentPart.text("Sys"))), null, List.of(), null),
                new ChatMessage("user", new Content.Parts(List.of(ContentPart.text(" Look "),
                        new ContentPart("image", null))), null, List.of(), null),
                ChatMessage.of("assistant", "Nice"),
                ChatMessage.of("user", "Bye"));
        assertThat(template.render(ChatTemplateInput.of(messages))).isEqualTo("<bos>"
                + "<start_of_turn>user\nSys\n\nLook<start_of_image><end_of_turn>\n"
                + "<start_of_turn>model\nNice<end_of_turn>\n"
                + "<start_of_turn>user\nBye<end_of_turn>\n"
                + "<start_of_turn>model\n");
        assertThatThrownBy(() -> template.render(ChatTemplateInput.of(List.of(ChatMessage.of("assistant", "x")))))
                .isInstanceOf(ChatTemplateException.class)
                .hasMessage("Conversation roles must alternate user/assistant/user/assistant/...");
    }

    @Test
    void fallsBackToChatMlWhenTheModelHasNoTemplate() {
        ChatTemplate template = ChatTemplate.forModel(null, NO_TOKENS);
        List<ChatMessage> messages = List.of(
                ChatMessage.of("system", "S"),
                new ChatMessage("user", new Content.Parts(List.of(ContentPart.text("Hi"), ContentPart.text("!"))),
                        null, List.of(), null));
        assertThat(template.render(ChatTemplateInput.of(messages)))
                .isEqualTo("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n");
        assertThat(ChatTemplate.forModel("  ", NO_TOKENS).render(new ChatTemplateInput(messages, null, false)))
                .isEqualTo("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n");
    }

    @Test
    void supportsNamespacesLoopControlsAndPythonStringMethods() {
        String source = """
                {%- set ns = namespace(count=0, last_user='') -%}
                {%- for m in messages -%}
                {%- if m.role == 'system' %}{% continue %}{% endif -%}
                {%- if m.role == 'user' %}{% set ns.last_user = m.content.strip() %}{% endif -%}
                {%- set ns.count = ns.count + 1 -%}
                {%- if ns.count == 2 %}{% break %}{% endif -%}
                {%- endfor -%}
                {{ ns.count }}|{{ ns.last_user }}|{% if ns.last_user.startswith('he') %}S{% endif %}
                {%- if ns.last_user.endswith(('x', 'lo')) %}E{% endif %}
                {%- if not ns.last_user.endswith('x') %}N{% endif %}|{{ 'a, b,c'.split(', ') | join('+') }}
                |{{ ' x '|trim }}|{{ 'MiX'.lower() }}{{ 'MiX'.upper() }}|{{ '--a--'.lstrip('-') }}|{{ {'k': [1, 'v', none, true]}|tojson }}
                |{% generation %}gen{% endgeneration %}
                """;
        List<ChatMessage> messages = List.of(
                ChatMessage.of("system", "s"),
                ChatMessage.of("user", "  hello "),
                ChatMessage.of("assistant", "a"),
                ChatMessage.of("user", "ignored"));
        assertThat(ChatTemplate.compile(source, NO_TOKENS).render(ChatTemplateInput.of(messages)))
                .isEqualTo("2|hello|SEN|a+b,c\n|x|mixMIX|a--|{\"k\": [1, \"v\", null, true]}\n|gen");
    }

    @Test
    void filtersLoopsLikeJinja2() {
        String source = """
                {%- for m in messages if m.role == 'user' -%}
                {{ loop.index }}:{{ m.content }}{% if loop.last %}.{% else %},{% endif %}
                {%- endfor %}|{% for m in messages %}{% if m.role == 'system' %}{{ m.content }}{% endif %}{% endfor %}
                {%- for k, v in {'a': 1, 'b': 2}.items() if v > 1 %}|{{ k }}={{ v }}{% endfor %}
                {%- for x in (messages if add_generation_prompt else []) %}|{{ x.role }}{% endfor %}
                """;
        List<ChatMessage> messages = List.of(
                ChatMessage.of("system", "S"), ChatMessage.of("user", "a"), ChatMessage.of("assistant", "b"),
                ChatMessage.of("user", "c"), ChatMessage.of("assistant", "d"));
        assertThat(ChatTemplate.compile(source, NO_TOKENS).render(ChatTemplateInput.of(messages)))
                .isEqualTo("1:a,2:c.|S|b=2|system|user|assistant|user|assistant");
    }

    @Test
    void globalFunctionsCountAsDefinedLikeInHuggingFace() {
        // Llama 3.2 picks today's date only when strftime_now is defined, else a fixed 26 Jul 2024.
        String source = """
                {%- if not date_string is defined %}
                    {%- if strftime_now is defined %}
                        {%- set date_string = strftime_now("%Y-%m-%d") %}
                    {%- else %}
                        {%- set date_string = "26 Jul 2024" %}
                    {%- endif %}
                {%- endif %}
                {{- date_string }}
                """;
        String today = DateTimeFormatter.ISO_LOCAL_DATE.format(ZonedDateTime.now(ZoneOffset.UTC));
        assertThat(ChatTemplate.compile(source, NO_TOKENS).render(ChatTemplateInput.of(List.of()))).isEqualTo(today);
    }

    @Test
    void reportsCompileAndRenderErrorsClearly() {
        assertThatThrownBy(() -> ChatTemplate.compile("{% if messages %}unclosed", NO_TOKENS))
                .isInstanceOfSatisfying(ChatTemplateException.class, e -> assertThat(e.raisedByTemplate()).isFalse())
                .hasMessageContaining("chat template does not compile");
        ChatTemplate badCall = ChatTemplate.compile("{{ messages[0].content.nosuchmethod() }}", NO_TOKENS);
        assertThatThrownBy(() -> badCall.render(ChatTemplateInput.of(List.of(ChatMessage.of("user", "x")))))
                .isInstanceOf(ChatTemplateException.class)
                .hasMessageContaining("chat template failed to render at line 1");
        ChatTemplate qwen = load("qwen2", NO_TOKENS);
        List<ChatMessage> badArguments = List.of(
                new ChatMessage("assistant", null, null, List.of(new ToolCall("1", "f", "[1, 2]")), null));
        assertThatThrownBy(() -> qwen.render(ChatTemplateInput.of(badArguments)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("arguments of the call to tool 'f' are not a JSON object: [1, 2]");
    }

    @Test
    void rendersConcurrentlyFromOneCompiledTemplate() throws Exception {
        ChatTemplate template = load("qwen2", NO_TOKENS);
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                results.add(pool.submit(() -> {
                    for (int i = 0; i < 200; i++) {
                        String text = "t" + thread + "-" + i;
                        String rendered = template.render(ChatTemplateInput.of(List.of(ChatMessage.of("user", text))));
                        if (!rendered.equals("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
                                + "<|im_start|>user\n" + text + "<|im_end|>\n<|im_start|>assistant\n")) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> result : results) {
                assertThat(result.get()).isTrue();
            }
        }
    }

    private static ChatTemplate load(String name, SpecialTokens tokens) {
        try (InputStream in = ChatTemplateTest.class.getResourceAsStream("/chat-templates/" + name + ".jinja")) {
            return ChatTemplate.compile(new String(in.readAllBytes(), StandardCharsets.UTF_8), tokens);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(String text) {
        try {
            return new ObjectMapper().readValue(text, Map.class);
        } catch (IOException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
