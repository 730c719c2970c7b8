package io.icecompact.core.policy;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A table care step that may run after a table's rewrite, named as {@code icecompact.steps} lists
 * it.
 */
public enum CareStep {
  /** Expire snapshots with the retention Iceberg's table properties define. */
  EXPIRE_SNAPSHOTS("expire-snapshots"),
  /** Rewrite the current snapshot's manifests when there are too many of them. */
  REWRITE_MANIFESTS("rewrite-manifests"),
  /** Remove files under the table's location that no snapshot references, past a safe age. */
  REMOVE_ORPHANS("remove-orphans"),
  /** v2: remove position and equality delete files that no longer apply to any live data file. */
  DELETE_CLEANUP("delete-cleanup");

  private final String propertyName;

  CareStep(String propertyName) {
    this.propertyName = propertyName;
  }

  /** The step's name in {@code icecompact.steps}. */
  @JsonValue
  public String propertyName() {
    return propertyName;
  }

  public static Optional<CareStep> byName(String name) {
    return Arrays.stream(values()).filter(step -> step.propertyName.equals(name)).findFirst();
  }

  /** Every step's name, comma-separated, for error messages. */
  public static String names() {
    return Arrays.stream(values()).map(CareStep::propertyName).collect(Collectors.joining(", "));
  }
}
