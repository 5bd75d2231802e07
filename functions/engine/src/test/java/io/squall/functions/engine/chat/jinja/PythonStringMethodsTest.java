package io.squall.functions.engine.chat.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.functions.engine.chat.ChatTemplateException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PythonStringMethodsTest {

    @Test
    void behaveLikePythonStrMethods() {
        assertThat(render("{{ s.split() | join('|') }}", "  a  b\tc \n")).isEqualTo("a|b|c");
        assertThat(render("{{ s.split(',', 1) | join('|') }}", "a,b,c")).isEqualTo("a|b,c");
        assertThat(render("{{ s.split('.') | join('|') }}", "a.b")).isEqualTo("a|b");
        assertThat(render("{{ s.rstrip() }}|{{ s.strip('x ') }}", "xx hi x ")).isEqualTo("xx hi x|hi");
        assertThat(render("{{ s.title() }}|{{ s.capitalize() }}", "hello wORLD")).isEqualTo("Hello World|Hello world");
        assertThat(render("{{ s.replace('a', 'o') }}|{{ s.find('n') }}|{{ '-'.join(['x', 'y']) }}", "banana"))
                .isEqualTo("bonono|2|x-y");
    }

    @Test
    void reportMisuseAsATemplateError() {
        assertThatThrownBy(() -> render("{{ s.replace('a') }}", "abc"))
                .isInstanceOf(ChatTemplateException.class);
    }

    private static String render(String source, String s) {
        return JinjaTemplate.compile(source).render(Map.of("s", s));
    }
}
