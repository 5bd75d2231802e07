package io.squall.cli;

import picocli.CommandLine;

import java.util.Objects;
import java.util.function.Function;

/**
 * A picocli converter that reads an option with its type's own parser, so a typo fails with the parser's message
 * while the command line is parsed, before anything starts.
 */
abstract class ParsingConverter<T> implements CommandLine.ITypeConverter<T> {

    private final Function<String, T> parser;

    /** @param parser throws {@link IllegalArgumentException} with the accepted values when it cannot read one */
    ParsingConverter(Function<String, T> parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
    }

    @Override
    public final T convert(String value) {
        try {
            return parser.apply(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
