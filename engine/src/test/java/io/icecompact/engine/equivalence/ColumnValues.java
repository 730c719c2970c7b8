package io.icecompact.engine.equivalence;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Values of a column's type, with the edges that tell encoders apart: NaN and both zeros,
 * infinities, empty and multi-byte strings longer than the 16 characters a bound keeps, extreme
 * integers.
 */
final class ColumnValues {
  private static final String[] WORDS = {
    "", "a", "zz", "éte", "漢字", "long value past sixteen chars", "\u0000x"
  };
  private static final OffsetDateTime EPOCH =
      OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  private ColumnValues() {}

  /** A value of {@code type}; {@code null} at {@code nullPercent} for optional fields. */
  static Object value(Type type, boolean optional, int nullPercent, Random random) {
    if (optional && random.nextInt(100) < nullPercent) {
      return null;
    }
    return switch (type.typeId()) {
      case INTEGER ->
          pick(random, 8)
              ? edge(random, 0, Integer.MIN_VALUE, Integer.MAX_VALUE, -1)
              : random.nextInt(2000) - 1000;
      case LONG ->
          pick(random, 8)
              ? edge(random, 0L, Long.MIN_VALUE, Long.MAX_VALUE, -1L)
              : random.nextLong();
      case FLOAT ->
          pick(random, 4)
              ? edge(
                  random, Float.NaN, 0.0f, -0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY)
              : random.nextFloat() * 200 - 100;
      case DOUBLE ->
          pick(random, 4)
              ? edge(
                  random,
                  Double.NaN,
                  0.0d,
                  -0.0d,
                  Double.POSITIVE_INFINITY,
                  Double.NEGATIVE_INFINITY)
              : random.nextDouble() * 2e6 - 1e6;
      case DECIMAL ->
          BigDecimal.valueOf(
              random.nextLong() % 1_000_000_000_000L, ((Types.DecimalType) type).scale());
      case STRING -> string(random);
      case BINARY -> {
        byte[] bytes = new byte[random.nextInt(24)];
        random.nextBytes(bytes);
        yield ByteBuffer.wrap(bytes);
      }
      case DATE -> LocalDate.ofEpochDay(random.nextInt(60_000) - 20_000);
      case TIMESTAMP -> EPOCH.plus(random.nextLong() % 4_000_000_000_000_000L, ChronoUnit.MICROS);
      case BOOLEAN -> random.nextBoolean();
      case STRUCT -> {
        Types.StructType struct = type.asStructType();
        GenericRecord record = GenericRecord.create(struct);
        for (Types.NestedField field : struct.fields()) {
          record.setField(field.name(), value(field.type(), field.isOptional(), 20, random));
        }
        yield record;
      }
      case LIST -> {
        Types.ListType list = type.asListType();
        List<Object> elements = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          elements.add(value(list.elementType(), list.isElementOptional(), 20, random));
        }
        yield elements;
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          entries.put(
              value(map.keyType(), false, 0, random),
              value(map.valueType(), map.isValueOptional(), 20, random));
        }
        yield entries;
      }
      default -> throw new IllegalArgumentException("No values for " + type);
    };
  }

  private static String string(Random random) {
    if (pick(random, 3)) {
      return WORDS[random.nextInt(WORDS.length)];
    }
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(30); i > 0; i--) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  /** True one time in {@code n}. */
  private static boolean pick(Random random, int n) {
    return random.nextInt(n) == 0;
  }

  @SafeVarargs
  private static <T> T edge(Random random, T... values) {
    return values[random.nextInt(values.length)];
  }
}
