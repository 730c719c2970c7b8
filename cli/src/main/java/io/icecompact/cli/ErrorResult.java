package io.icecompact.cli;

/**
 * What {@code --json} prints on stdout when a command stops with an error instead of a result, so a
 * script reading stdout always gets one JSON document. {@code errorType} is the exception's simple
 * name for icecompact's own errors ({@code JobInvariantViolationException}), else its class name.
 */
record ErrorResult(String status, String errorType, String message, int exitCode) {
  static final String ERROR = "ERROR";
}
