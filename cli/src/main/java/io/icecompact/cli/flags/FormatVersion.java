package io.icecompact.cli.flags;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * An Iceberg format version for a generated table: 2 or 3. Version 1 has no delete files, which
 * every generated shape writes; Iceberg knows no version after 3 yet.
 */
public final class FormatVersion implements ITypeConverter<Integer> {
  @Override
  public Integer convert(String value) {
    return switch (value.trim()) {
      case "2" -> 2;
      case "3" -> 3;
      default -> throw new TypeConversionException("must be 2 or 3, got '" + value + "'");
    };
  }
}
