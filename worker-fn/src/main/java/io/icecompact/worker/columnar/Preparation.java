package io.icecompact.worker.columnar;

import java.util.Optional;

/**
 * What {@link ColumnarRewritePath#prepare} found: the group ready to copy ({@link PreparedGroup}),
 * or why it must take the generic path after all ({@link Refused}).
 */
public sealed interface Preparation permits PreparedGroup, Preparation.Refused {
  /** Why the group must take the generic path, or empty when it is a {@link PreparedGroup}. */
  Optional<String> refusal();

  /**
   * A footer showed what the columnar path does not copy exactly; {@code reason} says what and
   * where.
   */
  record Refused(String reason) implements Preparation {
    @Override
    public Optional<String> refusal() {
      return Optional.of(reason);
    }
  }
}
