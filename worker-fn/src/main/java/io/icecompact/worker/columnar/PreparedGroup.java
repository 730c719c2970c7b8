package io.icecompact.worker.columnar;

import java.util.List;
import java.util.Optional;

/**
 * A group ready for the columnar copy: every input file's footer read once and checked against the
 * output columns, with each output column's source column found. Made by {@link
 * ColumnarRewritePath#prepare}.
 */
public record PreparedGroup(OutputColumns columns, List<ColumnarInput> inputs)
    implements Preparation {
  public PreparedGroup {
    inputs = List.copyOf(inputs);
  }

  @Override
  public Optional<String> refusal() {
    return Optional.empty();
  }
}
