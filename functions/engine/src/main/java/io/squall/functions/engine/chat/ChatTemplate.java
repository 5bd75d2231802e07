package io.squall.functions.engine.chat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.squall.functions.engine.chat.ChatMessage.Content;
import io.squall.functions.engine.chat.ChatMessage.ContentPart;
import io.squall.functions.engine.chat.ChatMessage.ToolCall;
import io.squall.functions.engine.chat.jinja.JinjaTemplate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A model's chat template: the Jinja source from the GGUF key {@code tokenizer.chat_template} (Hugging Face's
 * format), compiled once and rendered for every request.
 *
 * <p>Variables passed to the template, as Hugging Face's {@code apply_chat_template} passes them:
 * {@code messages} (maps with {@code role}, {@code content} as a string or a list of {@code {type, text}} maps,
 * and when present {@code name}, {@code tool_calls} as {@code [{id, type: "function", function: {name,
 * arguments}}]} with the arguments parsed into a map, {@code tool_call_id}), {@code tools} (the request's tool
 * definitions, or none), {@code add_generation_prompt}, {@code bos_token}, {@code eos_token}.
 *
 * <p>Models without a template get {@link #chatMl ChatML}, the format llama.cpp also falls back to.
 *
 * <p>Immutable and thread-safe: render concurrently from any number of request threads.
 */
public final class ChatTemplate {
    /**
     * The fallback template: ChatML ({@code <|im_start|>role\ncontent<|im_end|>\n} per message, then
     * {@code <|im_start|>assistant\n} when a generation prompt is asked for). Text content parts are concatenated.
     */
    public static final String CHATML_SOURCE = """
            {%- for message in messages -%}
            {{ '<|im_start|>' + message.role + '\\n' }}
            {%- if message.content is string -%}
            {{ message.content }}
            {%- else -%}
            {%- for part in message.content -%}{%- if part.type == 'text' -%}{{ part.text }}{%- endif -%}{%- endfor -%}
            {%- endif -%}
            {{ '<|im_end|>\\n' }}
            {%- endfor -%}
            {%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}
            """;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final JinjaTemplate template;
    private final SpecialTokens specialTokens;

    private ChatTemplate(JinjaTemplate template, SpecialTokens specialTokens) {
        this.template = template;
        this.specialTokens = specialTokens;
    }

    /**
     * Compiles a template.
     *
     * @param source        the Jinja source, not null
     * @param specialTokens the model's BOS/EOS strings, not null
     * @throws ChatTemplateException if the source does not parse
     */
    public static ChatTemplate compile(String source, SpecialTokens specialTokens) {
        return new ChatTemplate(JinjaTemplate.compile(source), Objects.requireNonNull(specialTokens, "specialTokens"));
    }

    /** The ChatML fallback, {@link #CHATML_SOURCE}. */
    public static ChatTemplate chatMl(SpecialTokens specialTokens) {
        return compile(CHATML_SOURCE, specialTokens);
    }

    /**
     * The model's own template, or ChatML when the GGUF has none.
     *
     * @param source the {@code tokenizer.chat_template} value; null or blank when absent
     */
    public static ChatTemplate forModel(String source, SpecialTokens specialTokens) {
        return source == null || source.isBlank() ? chatMl(specialTokens) : compile(source, specialTokens);
    }

    /**
     * Renders the prompt text for a conversation.
     *
     * @param input the messages, tools and whether to add the generation prompt; not null
     * @return the prompt, to be tokenized without adding BOS again when the template emits {@code bos_token}
     * @throws ChatTemplateException    if rendering fails; {@link ChatTemplateException#raisedByTemplate()} when the
     *                                  template rejected the conversation (e.g. roles that do not alternate)
     * @throws IllegalArgumentException if a tool call's arguments are not a JSON object
     */
    public String render(ChatTemplateInput input) {
        Objects.requireNonNull(input, "input");
        Map<String, Object> bindings = new HashMap<>();
        List<Object> messages = new ArrayList<>(input.messages().size());
        for (ChatMessage message : input.messages()) {
            messages.add(toTemplateValue(message));
        }
        bindings.put("messages", messages);
        bindings.put("tools", input.tools());
        bindings.put("add_generation_prompt", input.addGenerationPrompt());
        bindings.put("bos_token", specialTokens.bos());
        bindings.put("eos_token", specialTokens.eos());
        return template.render(bindings);
    }

    /** Builds the dict Hugging Face templates expect: only the keys the message has, like a Python dict would. */
    private static Map<String, Object> toTemplateValue(ChatMessage message) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("role", message.role());
        value.put("content", switch (message.content()) {
            case null -> null;
            case Content.Text text -> text.text();
            case Content.Parts parts -> parts.parts().stream().map(ChatTemplate::toTemplateValue).toList();
        });
        if (message.name() != null) {
            value.put("name", message.name());
        }
        if (!message.toolCalls().isEmpty()) {
            value.put("tool_calls", message.toolCalls().stream().map(ChatTemplate::toTemplateValue).toList());
        }
        if (message.toolCallId() != null) {
            value.put("tool_call_id", message.toolCallId());
        }
        return value;
    }

    private static Map<String, Object> toTemplateValue(ContentPart part) {
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("type", part.type());
        if (part.text() != null) {
            value.put("text", part.text());
        }
        return value;
    }

    private static Map<String, Object> toTemplateValue(ToolCall call) {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", call.name());
        function.put("arguments", parseArguments(call));
        Map<String, Object> value = new LinkedHashMap<>();
        if (call.id() != null) {
            value.put("id", call.id());
        }
        value.put("type", "function");
        value.put("function", function);
        return value;
    }

    private static Map<?, ?> parseArguments(ToolCall call) {
        String problem = "arguments of the call to tool '" + call.name() + "' are not a JSON object: ";
        Object parsed;
        try {
            parsed = JSON.readValue(call.arguments(), Object.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(problem + call.arguments(), e);
        }
        if (parsed instanceof Map<?, ?> arguments) {
            return arguments;
        }
        throw new IllegalArgumentException(problem + call.arguments());
    }
}
