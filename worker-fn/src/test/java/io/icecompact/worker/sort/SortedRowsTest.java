package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.RowOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.SortOrderComparators;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/** Rows come back in the order Iceberg's own comparator gives the rows themselves. */
class SortedRowsTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  @Property(tries = 100)
  void linearOrderAgreesWithIcebergsComparatorOnTheRows(
      @ForAll("rows") List<Record> rows, @ForAll("orders") SortOrder order) {
    SortedRows sorted = new SortedRows(SCHEMA, RowOrder.linear(order, SCHEMA, 0), null);
    rows.forEach(row -> sorted.add(row, null));

    List<Record> actual = sorted.sorted().stream().map(SortedRows.Keyed::row).toList();

    Comparator<StructLike> iceberg = SortOrderComparators.forSchema(SCHEMA, order);
    InternalRecordWrapper left = new InternalRecordWrapper(SCHEMA.asStruct());
    InternalRecordWrapper right = new InternalRecordWrapper(SCHEMA.asStruct());
    List<Record> expected = new ArrayList<>(rows);
    expected.sort((a, b) -> iceberg.compare(left.wrap(a), right.wrap(b)));
    assertThat(actual).containsExactlyElementsOf(expected);
  }

  @Provide
  Arbitrary<List<Record>> rows() {
    Arbitrary<Long> ids = Arbitraries.longs().between(-50, 50).injectNull(0.2);
    Arbitrary<String> names = Arbitraries.strings().alpha().ofMaxLength(3).injectNull(0.2);
    return Combinators.combine(ids, names)
        .as(
            (id, name) -> {
              Record row = GenericRecord.create(SCHEMA);
              row.setField("id", id);
              row.setField("name", name);
              return row;
            })
        .list()
        .ofMaxSize(200);
  }

  @Provide
  Arbitrary<SortOrder> orders() {
    Arbitrary<org.apache.iceberg.expressions.Term> terms =
        Arbitraries.of(
            Expressions.ref("id"),
            Expressions.ref("name"),
            Expressions.bucket("id", 4),
            Expressions.truncate("name", 1));
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
                  f ->
                      builder.sortBy(
                          (org.apache.iceberg.expressions.Term) f[0],
                          (SortDirection) f[1],
                          (NullOrder) f[2]));
              return builder.build();
            });
  }
}
