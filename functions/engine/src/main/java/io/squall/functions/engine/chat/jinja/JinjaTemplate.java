package io.squall.functions.engine.chat.jinja;

import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.interpret.Context;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import com.hubspot.jinjava.tree.Node;
import io.squall.functions.engine.chat.ChatTemplateException;
import io.squall.functions.engine.chat.jinja.TemplateFunctions.TemplateRaisedException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import jinjava.javax.el.CompositeELResolver;

/**
 * A Jinja template parsed once and rendered many times with Jinjava, in an environment that behaves like the
 * Jinja2 environment Hugging Face renders chat templates in: {@code trim_blocks} and {@code lstrip_blocks} on, one
 * trailing newline of the source dropped ({@code keep_trailing_newline=False}), Jinja2's operator precedence and
 * whitespace control, plus {@link PythonStringMethods}, {@link ToJsonFilter}, {@link GenerationTag},
 * {@code raise_exception}, {@code strftime_now} and filtered loops ({@link LoopFilters}).
 *
 * <p>Thread-safe: the parsed tree is only read while rendering, and every rendering has its own interpreter and
 * context. The shared Jinjava instance is configured once and never rendered through directly (its
 * {@code renderForResult} resets shared state).
 */
public final class JinjaTemplate {
    /**
     * Jinjava's opt-in Jinja2 behaviours: {@code -} whitespace control on expressions, Python operator precedence,
     * Python-style printing of lists and dicts, {@code None} loop items kept, map literal keys evaluated, iteration
     * over a dict's keys. Not {@code whitespaceRequiredWithinTokens}: it stops {@code {%-} from parsing.
     */
    private static final LegacyOverrides JINJA2_COMPATIBLE = LegacyOverrides.newBuilder()
            .withParseWhitespaceControlStrictly(true)
            .withUseTrimmingForNotesAndExpressions(true)
            .withUseNaturalOperatorPrecedence(true)
            .withUsePyishObjectMapper(true)
            .withKeepNullableLoopValues(true)
            .withEvaluateMapKeys(true)
            .withIterateOverMapKeys(true)
            .build();
    private static final JinjavaConfig CONFIG = JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withLegacyOverrides(JINJA2_COMPATIBLE)
            .withElResolver(pythonCompatibleResolver())
            .build();
    private static final Jinjava JINJAVA = createJinjava();

    /**
     * Variables naming the global functions, so that {@code strftime_now is defined} holds as in Hugging Face's
     * environment (Llama 3.x templates test it); calls still go to the registered functions.
     */
    private static final Map<String, Object> FUNCTION_NAMES = Map.of(
            "raise_exception", "raise_exception", "strftime_now", "strftime_now");

    private final Node root;
    private final List<LoopFilters.Condition> loopConditions;

    private JinjaTemplate(Node root, List<LoopFilters.Condition> loopConditions) {
        this.root = root;
        this.loopConditions = loopConditions;
    }

    /**
     * Parses a template.
     *
     * @param source the Jinja source, not null
     * @throws ChatTemplateException if the source does not parse (e.g. an unknown tag or an unclosed block)
     */
    public static JinjaTemplate compile(String source) {
        Objects.requireNonNull(source, "source");
        String trimmed = source.endsWith("\n") ? source.substring(0, source.length() - 1) : source;
        LoopFilters.Rewritten rewritten = LoopFilters.rewrite(trimmed);
        JinjavaInterpreter interpreter = newInterpreter(Map.of());
        try (var current = JinjavaInterpreter.closeablePushCurrent(interpreter).get()) {
            Node root = interpreter.parse(rewritten.source());
            failOnFatalErrors(interpreter.getErrorsCopy(), "does not compile");
            return new JinjaTemplate(root, rewritten.conditions());
        }
    }

    /**
     * Renders the template.
     *
     * @param bindings the template's variables; values are strings, numbers, booleans, lists and maps
     * @return the rendered text
     * @throws ChatTemplateException if rendering fails, with {@link ChatTemplateException#raisedByTemplate()} set
     *                               when the template called {@code raise_exception}
     */
    public String render(Map<String, ?> bindings) {
        Map<String, Object> variables = new HashMap<>(FUNCTION_NAMES);
        variables.put(LoopFilters.CONDITIONS_VARIABLE, loopConditions);
        variables.putAll(bindings);
        JinjavaInterpreter interpreter = newInterpreter(variables);
        try (var current = JinjavaInterpreter.closeablePushCurrent(interpreter).get()) {
            String output = interpreter.render(root);
            failOnFatalErrors(interpreter.getErrorsCopy(), "failed to render");
            return output;
        } catch (TemplateRaisedException e) {
            throw new ChatTemplateException(e.getMessage(), true, e);
        }
    }

    private static JinjavaInterpreter newInterpreter(Map<String, ?> bindings) {
        Context context = new Context(JINJAVA.getGlobalContextCopy(), bindings, CONFIG.getDisabled());
        return new JinjavaInterpreter(JINJAVA, context, CONFIG);
    }

    private static void failOnFatalErrors(List<TemplateError> errors, String what) {
        for (TemplateError error : errors) {
            if (error.getSeverity() != TemplateError.ErrorType.FATAL) {
                continue;
            }
            for (Throwable cause = error.getException(); cause != null; cause = cause.getCause()) {
                if (cause instanceof TemplateRaisedException raised) {
                    throw new ChatTemplateException(raised.getMessage(), true, raised);
                }
            }
            throw new ChatTemplateException("chat template " + what + " at line " + error.getLineno() + ": "
                    + error.getMessage(), false, error.getException());
        }
    }

    private static CompositeELResolver pythonCompatibleResolver() {
        CompositeELResolver resolver = new CompositeELResolver();
        resolver.add(new PythonStringMethods());
        resolver.add(JinjavaConfig.newBuilder().build().getElResolver());
        return resolver;
    }

    private static Jinjava createJinjava() {
        Jinjava jinjava = new Jinjava(CONFIG);
        jinjava.registerFilter(new ToJsonFilter());
        jinjava.registerTag(new GenerationTag());
        jinjava.registerFunction(new ELFunctionDefinition(
                "", "raise_exception", TemplateFunctions.class, "raiseException", String.class));
        jinjava.registerFunction(new ELFunctionDefinition(
                "", "strftime_now", TemplateFunctions.class, "strftimeNow", String.class));
        jinjava.registerFunction(new ELFunctionDefinition(
                "", "squall_loop_filter", LoopFilters.class, "filter", Object.class, int.class));
        return jinjava;
    }
}
