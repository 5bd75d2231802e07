package io.squall.functions.engine.chat.jinja;

import com.hubspot.jinjava.objects.date.StrftimeFormatter;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Locale;

/**
 * The global functions Hugging Face adds to the chat-template environment, registered by {@link JinjaEngine}.
 */
public final class TemplateFunctions {
    private TemplateFunctions() {
    }

    /** {@code raise_exception(message)}: aborts rendering; surfaces as a template-raised error. */
    public static Object raiseException(String message) {
        throw new TemplateRaisedException(message);
    }

    /** {@code strftime_now(format)}: the current UTC time formatted with a Python strftime pattern. */
    public static String strftimeNow(String format) {
        return StrftimeFormatter.format(ZonedDateTime.now(ZoneOffset.UTC), format, Locale.US);
    }

    /** Thrown by {@code raise_exception}; {@link JinjaEngine} finds it in Jinjava's error and reports its text. */
    public static final class TemplateRaisedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TemplateRaisedException(String message) {
            super(message, null, false, false);
        }
    }
}
