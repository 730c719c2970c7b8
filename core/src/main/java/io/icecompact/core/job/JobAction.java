package io.icecompact.core.job;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.icecompact.core.error.InvalidJobInputException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a job does to its table, named after Iceberg's actions: {@code rewrite-data-files} (the
 * default: compaction, as Spark's {@code rewrite_data_files}) or {@code convert-equality-deletes}
 * (Iceberg's {@code ConvertEqualityDeleteFiles}: equality deletes replaced by position deletes or
 * deletion vectors, data files untouched). Both run through the same stages, whose plan says which.
 */
public enum JobAction {
  REWRITE_DATA_FILES("rewrite-data-files"),
  CONVERT_EQUALITY_DELETES("convert-equality-deletes");

  private final String value;

  JobAction(String value) {
    this.value = value;
  }

  @JsonValue
  public String value() {
    return value;
  }

  /** The action a job spec or plan names; null or blank is the default, a rewrite. */
  @JsonCreator
  public static JobAction parse(String text) {
    if (text == null || text.isBlank()) {
      return REWRITE_DATA_FILES;
    }
    String wanted = text.trim().toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(action -> action.value.equals(wanted))
        .findFirst()
        .orElseThrow(
            () ->
                new InvalidJobInputException(
                    String.format(
                        "Unknown action '%s': expected one of %s",
                        text,
                        Arrays.stream(values())
                            .map(JobAction::value)
                            .collect(Collectors.joining(", ")))));
  }

  /** {@code action}, or the default when null (plans stored before actions existed). */
  public static JobAction orDefault(JobAction action) {
    return action == null ? REWRITE_DATA_FILES : action;
  }
}
