package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.RowOrder;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.types.Types;

/**
 * The column sort hands back {@link SortedRows}' row sequence exactly: every value of every type as
 * it was added, each row with the partition it came with, for linear orders over every key type
 * (directions, null orders, transforms, ties), z-orders and repartitioning, whatever the starting
 * capacity.
 */
class ColumnSortedRowsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "n", Types.IntegerType.get()),
          Types.NestedField.optional(3, "name", Types.StringType.get()),
          Types.NestedField.optional(4, "x", Types.DoubleType.get()),
          Types.NestedField.optional(5, "f", Types.FloatType.get()),
          Types.NestedField.optional(6, "day", Types.DateType.get()),
          Types.NestedField.optional(7, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(8, "local_ts", Types.TimestampType.withoutZone()),
          Types.NestedField.optional(9, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(10, "big", Types.DecimalType.of(30, 3)),
          Types.NestedField.optional(11, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(12, "bytes", Types.BinaryType.get()),
          Types.NestedField.optional(13, "at", Types.TimeType.get()),
          Types.NestedField.required(14, "seq", Types.IntegerType.get()),
          MetadataColumns.ROW_ID,
          MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER);
  private static final List<String> Z_ORDERABLE =
      List.of("id", "n", "name", "x", "f", "day", "ts", "flag", "bytes");
  private static final PartitionSpec BY_DAY =
      PartitionSpec.builderFor(SCHEMA).day("ts").identity("flag").build();

  @Property(tries = 100)
  void linearOrdersGiveTheRecordSortsSequence(
      @ForAll("rows") List<Record> rows,
      @ForAll("orders") SortOrder order,
      @ForAll boolean repartition,
      @ForAll @IntRange(min = 0, max = 300) int capacity) {
    RowOrder rowOrder = RowOrder.linear(order, SCHEMA, 0);
    assertSameSequence(rows, rowOrder, repartition ? BY_DAY : null, capacity);
  }

  @Property(tries = 50)
  void zOrdersGiveTheRecordSortsSequence(
      @ForAll("rows") List<Record> rows,
      @ForAll("zColumns") List<String> columns,
      @ForAll boolean repartition,
      @ForAll @IntRange(min = 1, max = 16) int varLengthBytes,
      @ForAll @IntRange(min = 1, max = 80) int maxBytes) {
    RowOrder rowOrder = RowOrder.zOrder(columns, varLengthBytes, maxBytes);
    assertSameSequence(rows, rowOrder, repartition ? BY_DAY : null, 0);
  }

  private static void assertSameSequence(
      List<Record> rows, RowOrder order, PartitionSpec repartition, int capacity) {
    List<StructLike> partitions =
        List.of(
            new PartitionData(BY_DAY.partitionType()), new PartitionData(BY_DAY.partitionType()));
    Drained byRecords = drain(new SortedRows(SCHEMA, order, repartition), rows, partitions);
    Drained byColumns =
        drain(new ColumnSortedRows(SCHEMA, order, repartition, capacity), rows, partitions);

    assertThat(byColumns.values()).containsExactlyElementsOf(byRecords.values());
    for (int i = 0; i < rows.size(); i++) {
      assertThat(byColumns.partitions().get(i)).isSameAs(byRecords.partitions().get(i));
    }
  }

  private record Drained(List<List<Object>> values, List<StructLike> partitions) {}

  /** Each row's values as handed over (the column sort reuses its record), and its partition. */
  private static Drained drain(RowSorter sorter, List<Record> rows, List<StructLike> partitions) {
    for (Record row : rows) {
      int seq = (Integer) row.getField("seq");
      sorter.add(row, seq % 3 == 2 ? null : partitions.get(seq % 3));
    }
    List<List<Object>> values = new ArrayList<>();
    List<StructLike> partitionsOut = new ArrayList<>();
    sorter.drainTo(
        (row, partition) -> {
          List<Object> columns = new ArrayList<>();
          for (int i = 0; i < SCHEMA.columns().size(); i++) {
            columns.add(row.get(i, Object.class));
          }
          values.add(columns);
          partitionsOut.add(partition);
        });
    sorter.close();
    return new Drained(values, partitionsOut);
  }

  @Provide
  Arbitrary<List<Record>> rows() {
    // few distinct values, so that many keys tie and only a stable sort keeps their order
    Arbitrary<Long> ids = Arbitraries.longs().between(-3, 3).injectNull(0.2);
    Arbitrary<Integer> ints = Arbitraries.integers().between(-3, 3).injectNull(0.2);
    Arbitrary<String> names =
        Arbitraries.of("", "a", "ab", "b", "é", "\uD83D\uDE00").injectNull(0.2);
    Arbitrary<Double> doubles =
        Arbitraries.of(-1.5, -0.0, 0.0, 2.5, Double.NaN, Double.NEGATIVE_INFINITY).injectNull(0.2);
    Arbitrary<Float> floats = Arbitraries.of(-1.5f, -0.0f, 0.0f, 2.5f, Float.NaN).injectNull(0.2);
    Arbitrary<LocalDate> days =
        Arbitraries.integers()
            .between(-2, 2)
            .map(d -> LocalDate.of(2026, 1, 1).plusDays(d))
            .injectNull(0.2);
    Arbitrary<Long> micros =
        Arbitraries.longs().between(-3, 3).map(h -> h * 3_600_000_000L * 20 + 123_456L);
    Arbitrary<BigDecimal> amounts =
        Arbitraries.of("-1.50", "0.00", "2.25", "9999999999.99")
            .map(BigDecimal::new)
            .injectNull(0.2);
    Arbitrary<BigDecimal> bigs =
        Arbitraries.of("-1.500", "123456789012345678901234567.891")
            .map(BigDecimal::new)
            .injectNull(0.2);
    Arbitrary<ByteBuffer> bytes =
        Arbitraries.of(new byte[0], new byte[] {1}, new byte[] {-1, 2})
            .map(ByteBuffer::wrap)
            .injectNull(0.2);
    Arbitrary<LocalTime> times =
        Arbitraries.integers()
            .between(0, 3)
            .map(h -> LocalTime.of(h, 30, 0, 123_456_000))
            .injectNull(0.2);
    Arbitrary<Object[]> first =
        Combinators.combine(
                ids,
                ints,
                names,
                doubles,
                floats,
                days,
                micros.injectNull(0.2),
                micros.injectNull(0.2))
            .as(
                (id, n, name, x, f, day, ts, localTs) ->
                    new Object[] {
                      id,
                      n,
                      name,
                      x,
                      f,
                      day,
                      ts == null
                          ? null
                          : OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)
                              .plusNanos(ts * 1000),
                      localTs == null
                          ? null
                          : LocalDateTime.of(1970, 1, 1, 0, 0).plusNanos(localTs * 1000)
                    });
    Arbitrary<Object[]> second =
        Combinators.combine(
                amounts,
                bigs,
                Arbitraries.of(true, false).injectNull(0.2),
                bytes,
                times,
                Arbitraries.longs().between(0, 1_000_000).injectNull(0.3))
            .as(
                (amount, big, flag, binary, at, rowId) ->
                    new Object[] {amount, big, flag, binary, at, rowId});
    return Combinators.combine(first, second)
        .as(
            (a, b) -> {
              Record row = GenericRecord.create(SCHEMA);
              for (int i = 0; i < a.length; i++) {
                row.set(i, a[i]);
              }
              for (int i = 0; i < 5; i++) {
                row.set(a.length + i, b[i]);
              }
              row.set(14, b[5]);
              row.set(15, 7L);
              return row;
            })
        .list()
        .ofMaxSize(1000)
        .map(
            list -> {
              for (int i = 0; i < list.size(); i++) {
                list.get(i).set(13, i); // seq: the input position
              }
              return list;
            });
  }

  @Provide
  Arbitrary<SortOrder> orders() {
    Arbitrary<Term> terms =
        Arbitraries.of(
            Expressions.ref("id"),
            Expressions.ref("n"),
            Expressions.ref("name"),
            Expressions.ref("x"),
            Expressions.ref("f"),
            Expressions.ref("day"),
            Expressions.ref("ts"),
            Expressions.ref("local_ts"),
            Expressions.ref("amount"),
            Expressions.ref("big"),
            Expressions.ref("flag"),
            Expressions.ref("bytes"),
            Expressions.ref("at"),
            Expressions.ref("_row_id"),
            Expressions.bucket("id", 4),
            Expressions.truncate("name", 1),
            Expressions.day("ts"),
            Expressions.hour("local_ts"),
            Expressions.month("day"),
            Expressions.truncate("amount", 100));
    return Combinators.combine(
            terms, Arbitraries.of(SortDirection.class), Arbitraries.of(NullOrder.class))
        .as((term, direction, nulls) -> new Object[] {term, direction, nulls})
        .list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .map(
            fields -> {
              SortOrder.Builder builder = SortOrder.builderFor(SCHEMA);
              fields.forEach(
                  f -> builder.sortBy((Term) f[0], (SortDirection) f[1], (NullOrder) f[2]));
              return builder.build();
            });
  }

  @Provide
  Arbitrary<List<String>> zColumns() {
    return Arbitraries.of(Z_ORDERABLE).list().uniqueElements().ofMinSize(1).ofMaxSize(3);
  }
}
