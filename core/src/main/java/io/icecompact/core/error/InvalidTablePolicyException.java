package io.icecompact.core.error;

/**
 * A table property of icecompact's policy ({@code icecompact.*}) that cannot be used. The message
 * names the table and the property, so an operator can fix it with one {@code ALTER TABLE}.
 */
public class InvalidTablePolicyException extends InvalidJobInputException {
  public InvalidTablePolicyException(String table, String property, String problem) {
    super(String.format("Table %s: property '%s' %s", table, property, problem));
  }

  public InvalidTablePolicyException(
      String table, String property, String problem, Throwable cause) {
    super(String.format("Table %s: property '%s' %s", table, property, problem), cause);
  }
}
