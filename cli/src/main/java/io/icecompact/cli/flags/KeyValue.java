package io.icecompact.cli.flags;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * One {@code KEY=VALUE} of a repeatable property flag ({@code -c}, {@code -o}). Neither part may be
 * empty: {@code -c warehouse=} is a mistake, not a property with an empty value.
 */
public record KeyValue(String key, String value) {

  /** Parses {@code KEY=VALUE}, splitting at the first '=' (a value may contain '='). */
  public static final class Converter implements ITypeConverter<KeyValue> {
    @Override
    public KeyValue convert(String text) {
      int equals = text.indexOf('=');
      if (equals < 0) {
        throw new TypeConversionException("'" + text + "' is not KEY=VALUE");
      }
      String key = text.substring(0, equals).trim();
      String value = text.substring(equals + 1);
      if (key.isEmpty()) {
        throw new TypeConversionException("'" + text + "' has no key before '='");
      }
      if (value.isBlank()) {
        throw new TypeConversionException("'" + text + "' has no value after '='");
      }
      return new KeyValue(key, value);
    }
  }

  /**
   * The pairs as a map in the order given; a key given twice with different values is ambiguous.
   *
   * @throws IllegalArgumentException naming the key and both values
   */
  public static Map<String, String> toMap(List<KeyValue> pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    for (KeyValue pair : pairs) {
      String earlier = map.putIfAbsent(pair.key(), pair.value());
      if (earlier != null && !earlier.equals(pair.value())) {
        throw new IllegalArgumentException(
            "'"
                + pair.key()
                + "' is given twice, as '"
                + earlier
                + "' and as '"
                + pair.value()
                + "'");
      }
    }
    return map;
  }
}
