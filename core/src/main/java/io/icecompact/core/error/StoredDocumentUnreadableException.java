package io.icecompact.core.error;

/**
 * Thrown when a document a job stored (its plan, a group's result, its result) is there but cannot
 * be parsed: cut short, overwritten, or edited by hand. The message is one line: the document, that
 * it cannot be parsed, and the parser's reason with its line and column. A {@link
 * PlanIntegrityException}, so that whoever degrades gracefully on an unreadable document (one group
 * failing alone, one row of a history) still does.
 */
public final class StoredDocumentUnreadableException extends PlanIntegrityException {
  public StoredDocumentUnreadableException(String message, Throwable cause) {
    super(message, cause);
  }
}
