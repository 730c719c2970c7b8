package io.icecompact.core.policy;

import com.fasterxml.jackson.annotation.JsonValue;
import io.icecompact.core.error.InvalidTablePolicyException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a sweep does with a table's live equality deletes ({@code
 * icecompact.equality-deletes.action}): let the decision tree choose ({@code auto}, the default),
 * always rewrite the data files they apply to ({@code rewrite}), or always convert them into
 * position deletes or deletion vectors without rewriting data ({@code convert}).
 */
public enum EqualityDeletesAction {
  AUTO("auto"),
  REWRITE("rewrite"),
  CONVERT("convert");

  private final String value;

  EqualityDeletesAction(String value) {
    this.value = value;
  }

  @JsonValue
  public String value() {
    return value;
  }

  /** The property's value; null is {@link #AUTO}, anything unknown an error naming the property. */
  static EqualityDeletesAction parse(String table, String property, String text) {
    if (text == null) {
      return AUTO;
    }
    String wanted = text.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(action -> action.value.equals(wanted))
        .findFirst()
        .orElseThrow(
            () ->
                new InvalidTablePolicyException(
                    table,
                    property,
                    "is '"
                        + text
                        + "' but must be one of "
                        + Arrays.stream(values())
                            .map(EqualityDeletesAction::value)
                            .collect(Collectors.joining(", "))));
  }
}
