package io.icecompact.cli.flags;

import picocli.CommandLine.TypeConversionException;

/**
 * Whole-number flags with a lower bound, checked while picocli parses: a value out of range is a
 * usage error (exit 2) reported with the flag's name, before anything runs.
 */
public final class WholeNumber {
  private WholeNumber() {}

  /** 1 or more: worker and thread counts, measured rounds, file and row counts. */
  public static final class Positive implements picocli.CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return (int) atLeast(1, value, Integer.MAX_VALUE);
    }
  }

  /** 0 or more: warm-up runs, delete counts. */
  public static final class NonNegative implements picocli.CommandLine.ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
      return (int) atLeast(0, value, Integer.MAX_VALUE);
    }
  }

  /** 1 or more, as a long: intervals in milliseconds. */
  public static final class PositiveLong implements picocli.CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return atLeast(1, value, Long.MAX_VALUE);
    }
  }

  /** 0 or more, as a long: milliseconds. */
  public static final class NonNegativeLong implements picocli.CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return atLeast(0, value, Long.MAX_VALUE);
    }
  }

  static long atLeast(long minimum, String value, long maximum) {
    long parsed;
    try {
      parsed = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + value + "' is not a whole number");
    }
    if (parsed < minimum) {
      throw new TypeConversionException("must be at least " + minimum + ", got " + parsed);
    }
    if (parsed > maximum) {
      throw new TypeConversionException("must be at most " + maximum + ", got " + parsed);
    }
    return parsed;
  }
}
