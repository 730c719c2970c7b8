package io.icecompact.cli.flags;

import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A word from a fixed list, for flags whose values are not Java enum names ({@code
 * scattered-deletes}). Subclasses name the list; picocli instantiates them with their no-argument
 * constructor.
 */
public abstract class OneOf implements ITypeConverter<String> {
  private final List<String> values;

  protected OneOf(String... values) {
    this.values = List.of(values);
  }

  @Override
  public String convert(String value) {
    if (!values.contains(value)) {
      throw new TypeConversionException(
          "'" + value + "' is not one of " + String.join(", ", values));
    }
    return value;
  }
}
