package io.icecompact.core.job;

/**
 * A group whose worker gave up: the error type (an exception class name) and its message. Recorded by
 * whoever ran the worker (the embedded runner, or the Map state's Catch) and handed to the committer.
 */
public record GroupFailure(int groupIndex, String errorType, String message) {}
