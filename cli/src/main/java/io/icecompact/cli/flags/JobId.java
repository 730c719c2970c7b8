package io.icecompact.cli.flags;

import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A job id, which becomes part of output file names and of the work location's path: the pattern of
 * the execution input's {@code job_id} (state-machine/execution-input.schema.json).
 */
public final class JobId implements ITypeConverter<String> {
  static final Pattern PATTERN = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  @Override
  public String convert(String value) {
    if (!PATTERN.matcher(value).matches()) {
      throw new TypeConversionException(
          "'"
              + value
              + "' is not a job id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter"
              + " or digit");
    }
    return value;
  }
}
