package io.squall.functions.engine.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.util.ForLoop;
import com.hubspot.jinjava.util.ObjectIterator;
import com.hubspot.jinjava.util.ObjectTruthValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Jinja2's filtered loops, {@code {% for x in items if x.role == 'user' %}}, which Jinjava parses as a conditional
 * expression without {@code else} and silently renders as an empty loop. {@link #rewrite} moves each condition
 * into a side table and turns the tag into {@code {% for x in squall_loop_filter(items, N) %}}; the function keeps
 * the items for which condition N holds with the loop variable bound, so {@code loop.index}, {@code loop.last} and
 * {@code loop.length} count the kept items only, as in Jinja2.
 *
 * <p>Handles one loop variable or a tuple of names unpacking list items. A tag whose condition contains
 * {@code else} is an inline conditional in the iterable, not a loop filter, and is left alone.
 */
public final class LoopFilters {
    /** The context variable holding a template's conditions while it renders. */
    static final String CONDITIONS_VARIABLE = "__squall_loop_conditions";

    private static final Pattern FILTERED_FOR = Pattern.compile(
            "\\{%(-?)\\s*for\\s+([A-Za-z_][\\w\\s,]*?)\\s+in\\s+((?:(?!%}).)+?)\\s+if\\s+((?:(?!%}).)+?)\\s*(-?)%}",
            Pattern.DOTALL);

    private LoopFilters() {
    }

    /** One filtered loop's condition. */
    record Condition(List<String> variables, String expression) {
    }

    /** A template source with its filtered loops rewritten, and their conditions by index. */
    record Rewritten(String source, List<Condition> conditions) {
    }

    static Rewritten rewrite(String source) {
        Matcher matcher = FILTERED_FOR.matcher(source);
        List<Condition> conditions = new ArrayList<>();
        StringBuilder out = new StringBuilder(source.length());
        while (matcher.find()) {
            String expression = matcher.group(4);
            if (expression.matches("(?s).*\\belse\\b.*")) {
                matcher.appendReplacement(out, Matcher.quoteReplacement(matcher.group()));
                continue;
            }
            List<String> variables = List.of(matcher.group(2).trim().split("\\s*,\\s*"));
            // A function call, not "(items)|filter": Jinjava turns a parenthesised method call into a 1-tuple.
            String tag = "{%" + matcher.group(1) + " for " + matcher.group(2).trim() + " in squall_loop_filter("
                    + matcher.group(3) + ", " + conditions.size() + ") " + matcher.group(5) + "%}";
            conditions.add(new Condition(variables, expression));
            matcher.appendReplacement(out, Matcher.quoteReplacement(tag));
        }
        matcher.appendTail(out);
        return new Rewritten(out.toString(), List.copyOf(conditions));
    }

    /**
     * {@code squall_loop_filter(items, index)}: the items for which the rendering template's condition
     * {@code index} holds. Runs inside {@link JinjaTemplate#render}, which makes its interpreter current.
     */
    public static List<Object> filter(Object items, int index) {
        JinjavaInterpreter interpreter = JinjavaInterpreter.getCurrent();
        @SuppressWarnings("unchecked")
        List<Condition> conditions = (List<Condition>) interpreter.getContext().get(CONDITIONS_VARIABLE);
        Condition condition = conditions.get(index);
        List<Object> kept = new ArrayList<>();
        ForLoop loop = ObjectIterator.getLoop(items);
        while (loop.hasNext()) {
            Object item = loop.next();
            try (var scope = interpreter.enterScope()) {
                bind(interpreter, condition.variables(), item);
                Object holds = interpreter.resolveELExpression(condition.expression(), interpreter.getLineNumber());
                if (ObjectTruthValue.evaluate(holds)) {
                    kept.add(item);
                }
            }
        }
        return kept;
    }

    private static void bind(JinjavaInterpreter interpreter, List<String> variables, Object item) {
        if (variables.size() == 1) {
            interpreter.getContext().put(variables.getFirst(), item);
            return;
        }
        List<?> values = item instanceof Map.Entry<?, ?> entry ? List.of(entry.getKey(), entry.getValue())
                : item instanceof List<?> list ? list : List.of();
        for (int i = 0; i < variables.size(); i++) {
            interpreter.getContext().put(variables.get(i), i < values.size() ? values.get(i) : null);
        }
    }
}
