package io.icecompact.core.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.options.RequestedSortOrder.Field;
import io.icecompact.core.options.RequestedSortOrder.Linear;
import io.icecompact.core.options.RequestedSortOrder.Term;
import io.icecompact.core.options.RequestedSortOrder.ZOrder;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class SortOrderTextTest {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(4, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(5, "Region", Types.StringType.get()),
          Types.NestedField.optional(6, "ship to", Types.StringType.get()));

  @Test
  void sparkDefaultsAscendingNullsFirstAndDescendingNullsLast() {
    assertThat(SortOrderText.parse("c1 ASC NULLS LAST, c2 DESC, c3, c4 desc nulls first"))
        .isEqualTo(
            new Linear(
                List.of(
                    new Field(new Term(null, "c1", null), SortDirection.ASC, NullOrder.NULLS_LAST),
                    new Field(new Term(null, "c2", null), SortDirection.DESC, NullOrder.NULLS_LAST),
                    new Field(new Term(null, "c3", null), SortDirection.ASC, NullOrder.NULLS_FIRST),
                    new Field(
                        new Term(null, "c4", null), SortDirection.DESC, NullOrder.NULLS_FIRST))));
  }

  @Test
  void zOrderTransformsNestedAndQuotedNames() {
    assertThat(SortOrderText.parse("ZORDER(a,b.c)")).isEqualTo(new ZOrder(List.of("a", "b.c")));
    assertThat(SortOrderText.parse("bucket(16, id), truncate(name, 4) DESC, days(ts), `odd name`"))
        .isEqualTo(
            new Linear(
                List.of(
                    new Field(
                        new Term("bucket", "id", 16), SortDirection.ASC, NullOrder.NULLS_FIRST),
                    new Field(
                        new Term("truncate", "name", 4), SortDirection.DESC, NullOrder.NULLS_LAST),
                    new Field(
                        new Term("days", "ts", null), SortDirection.ASC, NullOrder.NULLS_FIRST),
                    new Field(
                        new Term(null, "odd name", null),
                        SortDirection.ASC,
                        NullOrder.NULLS_FIRST))));
  }

  @Test
  void malformedOrdersNameTheProblemAndWhere() {
    assertProblem("", "it is empty (at character 1)");
    assertProblem("id,", "expected a column name but the text ended (at character 4)");
    assertProblem("id NULLS", "expected FIRST or LAST after NULLS (at character 9)");
    assertProblem("id; name", "unexpected character ';' (at character 3)");
    assertProblem(
        "zorder(a, b), id",
        "a z-order cannot be combined with other terms (Spark refuses it too)"
            + " (at character 15)");
    assertProblem(
        "id, zorder(a)",
        "a z-order cannot be combined with other terms (Spark refuses it too)"
            + " (at character 5)");
    assertProblem("zorder(a", "expected ')' but the text ended (at character 9)");
    assertProblem(
        "bucket(id)", "bucket takes a number and a column, e.g. bucket(16, id) (at character 1)");
    assertProblem("days(3, ts)", "days takes one column, e.g. days(ts) (at character 1)");
    assertProblem("bucket(0, id)", "width 0 must be a whole number > 0 (at character 8)");
    assertProblem(
        "hash(id)",
        "unknown transform 'hash'; known: bucket, truncate, years, months, days, hours"
            + " (at character 1)");
    assertProblem("`id", "a backquote is not closed (at character 1)");
  }

  private static void assertProblem(String text, String problem) {
    assertThatThrownBy(() -> SortOrderText.parse(text))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' is set to "
                + text
                + " but is not a sort order: "
                + problem
                + ". Write it as Spark does, e.g. \"c1 ASC NULLS FIRST, c2 DESC\" or \"zorder(c1, c2)\"");
  }

  @Test
  void bindingResolvesNamesIgnoringCaseAndRefusesUnknownColumns() {
    SortOrder order = ((Linear) SortOrderText.parse("ID desc, region")).bind(SCHEMA);
    assertThat(order.fields()).hasSize(2);
    assertThat(order.fields().get(0).sourceId()).isEqualTo(1);
    assertThat(order.fields().get(1).sourceId()).isEqualTo(5);
    assertThat(SortOrderText.describe(order, SCHEMA))
        .isEqualTo("id DESC NULLS LAST, Region ASC NULLS FIRST");

    assertThatThrownBy(() -> ((Linear) SortOrderText.parse("id, customer")).bind(SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' names column 'customer', which the table does not have; its columns:"
                + " id, name, ts, amount, Region, ship to");
  }

  @Test
  void zOrderDropsIdentityPartitionColumnsAndRefusesTypesItCannotEncode() {
    PartitionSpec byRegion = PartitionSpec.builderFor(SCHEMA).identity("Region").build();
    assertThat(((ZOrder) SortOrderText.parse("zorder(region, ID, ts)")).bind(SCHEMA, byRegion))
        .containsExactly("id", "ts");
    assertThatThrownBy(
            () -> ((ZOrder) SortOrderText.parse("zorder(region)")).bind(SCHEMA, byRegion))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' z-orders only identity partition columns (region), which are constant"
                + " within a partition: name at least one other column");
    assertThatThrownBy(
            () -> ((ZOrder) SortOrderText.parse("zorder(id, amount)")).bind(SCHEMA, byRegion))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "'sort-order' z-orders column 'amount' of type decimal(12, 2), which z-order cannot encode;"
                + " types it can: binary, boolean, date, double, float, integer, long, string, timestamp");
  }

  /** What the plan records ({@code describe}) reads back as the same order. */
  @Property(tries = 200)
  void describedOrderParsesBackToTheSameOrder(@ForAll("orders") SortOrder order) {
    String text = SortOrderText.describe(order, SCHEMA);
    SortOrder parsed = ((Linear) SortOrderText.parse(text)).bind(SCHEMA);
    assertThat(parsed.sameOrder(order)).as(text).isTrue();
  }

  @Provide
  Arbitrary<SortOrder> orders() {
    Arbitrary<org.apache.iceberg.expressions.Term> terms =
        Arbitraries.of(
            org.apache.iceberg.expressions.Expressions.ref("id"),
            org.apache.iceberg.expressions.Expressions.ref("name"),
            org.apache.iceberg.expressions.Expressions.ref("ship to"),
            org.apache.iceberg.expressions.Expressions.bucket("id", 16),
            org.apache.iceberg.expressions.Expressions.truncate("name", 3),
            org.apache.iceberg.expressions.Expressions.year("ts"),
            org.apache.iceberg.expressions.Expressions.month("ts"),
            org.apache.iceberg.expressions.Expressions.day("ts"),
            org.apache.iceberg.expressions.Expressions.hour("ts"));
    Arbitrary<Object[]> fields =
        Combinators.combine(
                terms, Arbitraries.of(SortDirection.class), Arbitraries.of(NullOrder.class))
            .as((term, direction, nulls) -> new Object[] {term, direction, nulls});
    return fields
        .list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .map(
            list -> {
              SortOrder.Builder builder = SortOrder.builderFor(SCHEMA);
              for (Object[] field : list) {
                builder.sortBy(
                    (org.apache.iceberg.expressions.Term) field[0],
                    (SortDirection) field[1],
                    (NullOrder) field[2]);
              }
              return builder.build();
            });
  }
}
