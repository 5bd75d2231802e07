package io.squall.functions.engine.chat.jinja;

import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Resolves calls of Python {@code str} methods on Java strings ({@code s.startswith('x')}, {@code s.strip()},
 * ...), which Jinja2 templates use freely and Jinjava does not know. Placed before Jinjava's own resolvers; it
 * only answers method calls on a {@link String} whose name is one listed here, and leaves everything else alone.
 *
 * <p>Supported: {@code startswith}, {@code endswith} (a string or a list of strings), {@code strip},
 * {@code lstrip}, {@code rstrip} (optional characters), {@code upper}, {@code lower}, {@code title},
 * {@code capitalize}, {@code replace}, {@code split} (whitespace or a separator, optional maxsplit),
 * {@code join}, {@code find}. Stateless and thread-safe.
 */
public final class PythonStringMethods extends ELResolver {

    @Override
    public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
        if (!(base instanceof String s) || !(method instanceof String name)) {
            return null;
        }
        Object[] args = params == null ? new Object[0] : params;
        Object result = switch (name) {
            case "startswith" -> anyMatch(args, name, s::startsWith);
            case "endswith" -> anyMatch(args, name, s::endsWith);
            case "strip" -> rstrip(lstrip(s, chars(args)), chars(args));
            case "lstrip" -> lstrip(s, chars(args));
            case "rstrip" -> rstrip(s, chars(args));
            case "upper" -> s.toUpperCase(Locale.ROOT);
            case "lower" -> s.toLowerCase(Locale.ROOT);
            case "title" -> title(s);
            case "capitalize" -> s.isEmpty() ? s
                    : s.substring(0, 1).toUpperCase(Locale.ROOT) + s.substring(1).toLowerCase(Locale.ROOT);
            case "replace" -> s.replace(string(args, 0, name), string(args, 1, name));
            case "split" -> split(s, args);
            case "join" -> join(s, args, name);
            case "find" -> s.indexOf(string(args, 0, name));
            default -> null;
        };
        if (result != null) {
            context.setPropertyResolved(true);
        }
        return result;
    }

    private interface StringTest {
        boolean test(String prefix);
    }

    private static Boolean anyMatch(Object[] args, String method, StringTest test) {
        Object arg = args.length == 1 ? args[0] : null;
        if (arg instanceof Collection<?> options) {
            for (Object option : options) {
                if (test.test(String.valueOf(option))) {
                    return true;
                }
            }
            return false;
        }
        return test.test(string(args, 0, method));
    }

    /** The characters to strip: null means whitespace, as in Python. */
    private static String chars(Object[] args) {
        return args.length > 0 && args[0] != null ? args[0].toString() : null;
    }

    private static boolean strippable(char c, String chars) {
        return chars == null ? Character.isWhitespace(c) : chars.indexOf(c) >= 0;
    }

    private static String lstrip(String s, String chars) {
        int start = 0;
        while (start < s.length() && strippable(s.charAt(start), chars)) {
            start++;
        }
        return s.substring(start);
    }

    private static String rstrip(String s, String chars) {
        int end = s.length();
        while (end > 0 && strippable(s.charAt(end - 1), chars)) {
            end--;
        }
        return s.substring(0, end);
    }

    private static String title(String s) {
        StringBuilder out = new StringBuilder(s.length());
        boolean previousIsLetter = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(previousIsLetter ? Character.toLowerCase(c) : Character.toUpperCase(c));
            previousIsLetter = Character.isLetter(c);
        }
        return out.toString();
    }

    private static List<String> split(String s, Object[] args) {
        String separator = args.length > 0 && args[0] != null ? args[0].toString() : null;
        int maxSplit = args.length > 1 ? ((Number) args[1]).intValue() : -1;
        List<String> parts = new ArrayList<>();
        if (separator == null) {
            String rest = lstrip(s, null);
            while (!rest.isEmpty()) {
                if (maxSplit >= 0 && parts.size() == maxSplit) {
                    parts.add(rest);
                    return parts;
                }
                int end = 0;
                while (end < rest.length() && !Character.isWhitespace(rest.charAt(end))) {
                    end++;
                }
                parts.add(rest.substring(0, end));
                rest = lstrip(rest.substring(end), null);
            }
            return parts;
        }
        if (separator.isEmpty()) {
            throw new IllegalArgumentException("split(): empty separator");
        }
        int from = 0;
        int at;
        while ((maxSplit < 0 || parts.size() < maxSplit) && (at = s.indexOf(separator, from)) >= 0) {
            parts.add(s.substring(from, at));
            from = at + separator.length();
        }
        parts.add(s.substring(from));
        return parts;
    }

    private static String join(String separator, Object[] args, String method) {
        if (args.length != 1 || !(args[0] instanceof Iterable<?> items)) {
            throw new IllegalArgumentException(method + "() takes one list argument");
        }
        StringBuilder out = new StringBuilder();
        Iterator<?> iterator = items.iterator();
        while (iterator.hasNext()) {
            out.append(iterator.next());
            if (iterator.hasNext()) {
                out.append(separator);
            }
        }
        return out.toString();
    }

    private static String string(Object[] args, int index, String method) {
        if (index >= args.length || args[index] == null) {
            throw new IllegalArgumentException(method + "() is missing string argument " + (index + 1));
        }
        return args[index].toString();
    }

    @Override
    public Object getValue(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public Class<?> getType(ELContext context, Object base, Object property) {
        return null;
    }

    @Override
    public void setValue(ELContext context, Object base, Object property, Object value) {
        // Never resolves properties: Jinjava's resolvers handle assignment.
    }

    @Override
    public boolean isReadOnly(ELContext context, Object base, Object property) {
        return true;
    }

    @Override
    public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
        return null;
    }

    @Override
    public Class<?> getCommonPropertyType(ELContext context, Object base) {
        return null;
    }
}
