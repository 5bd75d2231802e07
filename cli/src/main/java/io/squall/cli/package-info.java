/**
 * The {@code squall} command (picocli): one class per subcommand. Output meant for programs is JSON on
 * stdout; logs and errors go to stderr, and a failure exits non-zero with a one-line message.
 */
package io.squall.cli;
