package io.squall.functions.engine.chat;

/**
 * A chat template could not be compiled or rendered. When the template itself rejected the conversation (via
 * {@code raise_exception}), {@link #raisedByTemplate()} is true and the message is the template's own text: the
 * gateway reports that to the client as a bad request rather than a server error.
 */
public final class ChatTemplateException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean raisedByTemplate;

    /**
     * @param message          what went wrong, shown to operators (and to clients when raised by the template)
     * @param raisedByTemplate true if the template called {@code raise_exception}
     * @param cause            the underlying error, nullable
     */
    public ChatTemplateException(String message, boolean raisedByTemplate, Throwable cause) {
        super(message, cause);
        this.raisedByTemplate = raisedByTemplate;
    }

    /** True if the template rejected its input with {@code raise_exception(message)}. */
    public boolean raisedByTemplate() {
        return raisedByTemplate;
    }
}
