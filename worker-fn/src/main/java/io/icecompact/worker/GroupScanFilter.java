package io.icecompact.worker;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * A row filter that selects exactly the partitions of a group's files, so a worker re-deriving its
 * scan tasks reads only the manifests of those partitions instead of the whole table's.
 *
 * <p>Each partition value becomes a predicate on its source column: identity values as equality,
 * year/month/day/hour values as the half-open time range they stand for, bucket and truncate values
 * as Iceberg's transform terms ({@code bucket(id, 4) = 2}), which its planning projects onto the
 * partition exactly. Other transforms (void, unknown ones) add no predicate, which only makes the
 * filter wider. A filter that is too narrow cannot go unnoticed: the worker fails with {@code
 * FileNotLiveException} if a planned file is missing.
 */
final class GroupScanFilter {
  private static final long MICROS_PER_HOUR = 3_600_000_000L;
  private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

  private static final Pattern SIZED = Pattern.compile("(bucket|truncate)\\[(\\d+)]");

  private GroupScanFilter() {}

  static Expression of(List<FileScanTask> tasks) {
    Expression any = Expressions.alwaysFalse();
    Set<String> seen = new HashSet<>();
    for (FileScanTask task : tasks) {
      PartitionSpec spec = task.spec();
      StructLike partition = task.file().partition();
      String key =
          spec.specId()
              + "/"
              + StructLikeWrapper.forType(spec.partitionType()).set(partition).hashCode()
              + "/"
              + spec.partitionToPath(partition);
      if (seen.add(key)) {
        any = Expressions.or(any, partitionPredicate(spec, partition));
      }
    }
    return any;
  }

  private static Expression partitionPredicate(PartitionSpec spec, StructLike partition) {
    Expression all = Expressions.alwaysTrue();
    List<PartitionField> fields = spec.fields();
    for (int pos = 0; pos < fields.size(); pos++) {
      PartitionField field = fields.get(pos);
      String column = spec.schema().findColumnName(field.sourceId());
      Type sourceType = spec.schema().findType(field.sourceId());
      Object value = partition.get(pos, Object.class);
      all = Expressions.and(all, predicate(field, column, sourceType, value));
    }
    return all;
  }

  private static Expression predicate(
      PartitionField field, String column, Type sourceType, Object value) {
    if (column == null) {
      return Expressions.alwaysTrue(); // source column dropped from the schema
    }
    String transform = field.transform().toString();
    if (value == null) {
      return transform.equals("identity") || isTime(transform)
          ? Expressions.isNull(column)
          : Expressions.alwaysTrue();
    }
    if (transform.equals("identity")) {
      // NaN equals nothing, not even itself: Iceberg has no NaN literal, only the isNaN predicate
      boolean nan =
          (value instanceof Double d && d.isNaN()) || (value instanceof Float f && f.isNaN());
      return nan ? Expressions.isNaN(column) : Expressions.equal(column, value);
    }
    Matcher sized = SIZED.matcher(transform);
    if (sized.matches()) {
      int size = Integer.parseInt(sized.group(2));
      // a bucket-partitioned table (a CDC table, say) is otherwise read whole by every worker
      return sized.group(1).equals("bucket")
          ? Expressions.equal(Expressions.bucket(column, size), value)
          : Expressions.equal(Expressions.truncate(column, size), value);
    }
    if (!isTime(transform)) {
      return Expressions.alwaysTrue();
    }
    boolean isDate = sourceType.typeId() == Type.TypeID.DATE;
    boolean isMicros = sourceType.typeId() == Type.TypeID.TIMESTAMP;
    if (!isDate && !isMicros) {
      return Expressions.alwaysTrue(); // e.g. nanosecond timestamps: no pruning
    }
    int ordinal = (Integer) value;
    long[] days = dayRange(transform, ordinal);
    if (isDate) {
      if (days == null) {
        return Expressions.alwaysTrue();
      }
      return Expressions.and(
          Expressions.greaterThanOrEqual(column, (int) days[0]),
          Expressions.lessThan(column, (int) days[1]));
    }
    long from = days == null ? ordinal * MICROS_PER_HOUR : days[0] * MICROS_PER_DAY;
    long to = days == null ? (ordinal + 1L) * MICROS_PER_HOUR : days[1] * MICROS_PER_DAY;
    return Expressions.and(
        Expressions.greaterThanOrEqual(column, from), Expressions.lessThan(column, to));
  }

  private static boolean isTime(String transform) {
    return transform.equals("year")
        || transform.equals("month")
        || transform.equals("day")
        || transform.equals("hour");
  }

  /** [first day, day after last) since epoch for a year/month/day ordinal; null for hours. */
  private static long[] dayRange(String transform, int ordinal) {
    java.time.LocalDate epoch = java.time.LocalDate.ofEpochDay(0);
    switch (transform) {
      case "year":
        return new long[] {
          epoch.plusYears(ordinal).toEpochDay(), epoch.plusYears(ordinal + 1L).toEpochDay()
        };
      case "month":
        return new long[] {
          epoch.plusMonths(ordinal).toEpochDay(), epoch.plusMonths(ordinal + 1L).toEpochDay()
        };
      case "day":
        return new long[] {ordinal, ordinal + 1L};
      default:
        return null;
    }
  }
}
