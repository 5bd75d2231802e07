package io.squall.functions.engine.chat.jinja;

import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.lib.filter.Filter;
import java.util.Map;

/**
 * {@code tojson} as Hugging Face defines it for chat templates ({@link PythonJson}), replacing Jinjava's compact
 * form. Accepts {@code indent} as a keyword or the first positional argument. Stateless and thread-safe.
 */
public final class ToJsonFilter implements Filter {

    @Override
    public String getName() {
        return "tojson";
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
        Object indent = kwargs.containsKey("indent") ? kwargs.get("indent") : args.length > 0 ? args[0] : null;
        return PythonJson.dumps(var, indent == null ? null : ((Number) indent).intValue());
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
        return PythonJson.dumps(var, args.length > 0 ? Integer.valueOf(args[0]) : null);
    }
}
