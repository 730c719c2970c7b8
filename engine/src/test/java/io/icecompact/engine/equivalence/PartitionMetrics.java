package io.icecompact.engine.equivalence;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The metrics of a set of data files folded per partition: record counts and value, null and NaN
 * counts summed, lower bounds the least and upper bounds the greatest. Two rewrites of the same
 * rows may roll files at different points; folded per partition their metrics must still agree.
 */
record PartitionMetrics(
    long records,
    Map<Integer, Long> valueCounts,
    Map<Integer, Long> nullCounts,
    Map<Integer, Long> nanCounts,
    Map<Integer, Object> lowerBounds,
    Map<Integer, Object> upperBounds) {

  static Map<String, PartitionMetrics> of(Table table, Iterable<DataFile> files) {
    Schema schema = table.schema();
    Map<String, PartitionMetrics> byPartition = new TreeMap<>();
    for (DataFile file : files) {
      String partition = table.specs().get(file.specId()).partitionToPath(file.partition());
      PartitionMetrics folded =
          byPartition.computeIfAbsent(
              partition,
              p ->
                  new PartitionMetrics(
                      0,
                      new TreeMap<>(),
                      new TreeMap<>(),
                      new TreeMap<>(),
                      new TreeMap<>(),
                      new TreeMap<>()));
      byPartition.put(partition, folded.plus(schema, file));
    }
    return byPartition;
  }

  private PartitionMetrics plus(Schema schema, DataFile file) {
    sum(valueCounts, file.valueCounts());
    sum(nullCounts, file.nullValueCounts());
    sum(nanCounts, file.nanValueCounts());
    fold(schema, lowerBounds, file.lowerBounds(), -1);
    fold(schema, upperBounds, file.upperBounds(), 1);
    return new PartitionMetrics(
        records + file.recordCount(), valueCounts, nullCounts, nanCounts, lowerBounds, upperBounds);
  }

  private static void sum(Map<Integer, Long> into, Map<Integer, Long> counts) {
    if (counts != null) {
      counts.forEach((id, count) -> into.merge(id, count, Long::sum));
    }
  }

  /** Keeps the least ({@code direction} -1) or greatest (+1) bound of each column. */
  private static void fold(
      Schema schema, Map<Integer, Object> into, Map<Integer, ByteBuffer> bounds, int direction) {
    if (bounds == null) {
      return;
    }
    bounds.forEach(
        (id, buffer) -> {
          Type.PrimitiveType type = type(schema, id);
          Object value = Conversions.fromByteBuffer(type, buffer);
          into.merge(
              id,
              value,
              (a, b) -> Comparators.forType(type).compare(a, b) * direction >= 0 ? a : b);
        });
  }

  private static Type.PrimitiveType type(Schema schema, int id) {
    if (id == MetadataColumns.ROW_ID.fieldId()
        || id == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId()) {
      return Types.LongType.get();
    }
    return schema.findType(id).asPrimitiveType();
  }

  /**
   * What differs between {@code expected} (the generic rewrite's) and {@code actual}; empty when
   * they agree. Float and double bounds may differ in the sign of a zero where the actual bound is
   * the looser one (-0.0 below +0.0 as a lower bound): still true of the data, and equal as
   * numbers.
   */
  static List<String> differences(
      Schema schema, Map<String, PartitionMetrics> expected, Map<String, PartitionMetrics> actual) {
    List<String> differences = new ArrayList<>();
    if (!expected.keySet().equals(actual.keySet())) {
      differences.add("partitions " + expected.keySet() + " vs " + actual.keySet());
      return differences;
    }
    for (String partition : expected.keySet()) {
      PartitionMetrics want = expected.get(partition);
      PartitionMetrics got = actual.get(partition);
      String where = "partition '" + partition + "' ";
      if (want.records != got.records) {
        differences.add(where + "records " + want.records + " vs " + got.records);
      }
      compare(differences, where + "value counts", want.valueCounts, got.valueCounts);
      compare(differences, where + "null counts", want.nullCounts, got.nullCounts);
      compare(differences, where + "NaN counts", want.nanCounts, got.nanCounts);
      compareBounds(
          differences, schema, where + "lower bounds", want.lowerBounds, got.lowerBounds, -1);
      compareBounds(
          differences, schema, where + "upper bounds", want.upperBounds, got.upperBounds, 1);
    }
    return differences;
  }

  private static <V> void compare(
      List<String> differences, String what, Map<Integer, V> want, Map<Integer, V> got) {
    if (!want.equals(got)) {
      differences.add(what + " " + want + " vs " + got);
    }
  }

  private static void compareBounds(
      List<String> differences,
      Schema schema,
      String what,
      Map<Integer, Object> want,
      Map<Integer, Object> got,
      int direction) {
    TreeSet<Integer> ids = new TreeSet<>(want.keySet());
    ids.addAll(got.keySet());
    for (int id : ids) {
      Object a = want.get(id);
      Object b = got.get(id);
      if (Objects.equals(a, b)
          || (a != null && b != null && looserZero(schema, id, a, b, direction))) {
        continue;
      }
      differences.add(what + " of field " + id + ": " + text(a) + " vs " + text(b));
    }
  }

  private static boolean looserZero(Schema schema, int id, Object want, Object got, int direction) {
    Type.PrimitiveType type = type(schema, id);
    if (!(want instanceof Number w)
        || !(got instanceof Number g)
        || (type.typeId() != Type.TypeID.FLOAT && type.typeId() != Type.TypeID.DOUBLE)) {
      return false;
    }
    double a = w.doubleValue();
    double b = g.doubleValue();
    Comparator<Object> order = Comparators.forType(type);
    return a == 0.0 && b == 0.0 && order.compare(got, want) * direction >= 0;
  }

  private static String text(Object value) {
    return value instanceof ByteBuffer buffer
        ? "0x"
            + java.util.HexFormat.of()
                .formatHex(org.apache.iceberg.util.ByteBuffers.toByteArray(buffer))
        : String.valueOf(value);
  }
}
