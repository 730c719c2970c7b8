package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A {@code sort-order} as the user wrote it ({@link SortOrderText#parse}), not yet checked against
 * a table: a linear order, or Spark's {@code zorder(c1, c2)}. Column names resolve
 * case-insensitively, as in Spark's default session.
 */
public sealed interface RequestedSortOrder {

  /** Rows compared term after term, as Iceberg's {@link SortOrder}. */
  record Linear(List<Field> fields) implements RequestedSortOrder {
    public Linear {
      fields = List.copyOf(fields);
    }

    /**
     * The Iceberg sort order over {@code schema}; an unknown column or unsortable term is bad
     * input.
     */
    public SortOrder bind(Schema schema) {
      SortOrder.Builder builder = SortOrder.builderFor(schema).caseSensitive(false);
      for (Field field : fields) {
        column(schema, field.term().column());
        builder.sortBy(field.term().toIceberg(), field.direction(), field.nullOrder());
      }
      try {
        return builder.build();
      } catch (ValidationException | IllegalArgumentException e) {
        throw new InvalidJobInputException(
            String.format(
                "'%s' cannot be applied to the table: %s",
                RewriteOptions.SORT_ORDER, e.getMessage()),
            e);
      }
    }
  }

  /**
   * Spark's z-order: rows ordered by the interleaved bits of the columns' order-preserving bytes
   * (Iceberg's {@code ZOrderByteUtils}).
   */
  record ZOrder(List<String> columns) implements RequestedSortOrder {
    /**
     * Types whose values Spark's z-order turns into order-preserving bytes ({@code
     * SparkZOrderUDF}).
     */
    private static final Set<Type.TypeID> SUPPORTED =
        Set.of(
            Type.TypeID.BOOLEAN,
            Type.TypeID.INTEGER,
            Type.TypeID.LONG,
            Type.TypeID.FLOAT,
            Type.TypeID.DOUBLE,
            Type.TypeID.STRING,
            Type.TypeID.BINARY,
            Type.TypeID.DATE,
            Type.TypeID.TIMESTAMP);

    public ZOrder {
      columns = List.copyOf(columns);
    }

    /**
     * The columns' names as the schema spells them. As in Spark, a column that identity-partitions
     * {@code outputSpec} is left out (it is constant within a partition); when none is left, or a
     * column is unknown or of a type z-order cannot encode, the input is bad.
     */
    public List<String> bind(Schema schema, PartitionSpec outputSpec) {
      Set<Integer> identitySources = outputSpec.identitySourceIds();
      Set<String> kept = new LinkedHashSet<>();
      for (String name : columns) {
        Types.NestedField field = column(schema, name);
        if (!schema.columns().contains(field)) {
          throw new InvalidJobInputException(
              String.format(
                  "'%s' z-orders nested column '%s': z-order takes top-level columns, as in Spark",
                  RewriteOptions.SORT_ORDER, name));
        }
        if (!SUPPORTED.contains(field.type().typeId())) {
          throw new InvalidJobInputException(
              String.format(
                  "'%s' z-orders column '%s' of type %s, which z-order cannot encode; types it can: %s",
                  RewriteOptions.SORT_ORDER,
                  name,
                  field.type(),
                  SUPPORTED.stream()
                      .map(t -> t.name().toLowerCase(Locale.ROOT))
                      .sorted()
                      .collect(Collectors.joining(", "))));
        }
        if (!identitySources.contains(field.fieldId())) {
          kept.add(schema.findColumnName(field.fieldId()));
        }
      }
      if (kept.isEmpty()) {
        throw new InvalidJobInputException(
            String.format(
                "'%s' z-orders only identity partition columns (%s), which are constant within a"
                    + " partition: name at least one other column",
                RewriteOptions.SORT_ORDER, String.join(", ", columns)));
      }
      return new ArrayList<>(kept);
    }
  }

  /** One term of a linear order, with Spark's defaults already applied. */
  record Field(Term term, SortDirection direction, NullOrder nullOrder) {}

  /**
   * A column, or one of Iceberg's transforms of it as Spark writes them: {@code bucket(16, id)},
   * {@code truncate(4, name)}, {@code years(ts)}, {@code months(ts)}, {@code days(ts)}, {@code
   * hours(ts)}.
   *
   * @param transform null for the column itself
   * @param width the bucket count or truncation width, else null
   */
  record Term(String transform, String column, Integer width) {
    org.apache.iceberg.expressions.Term toIceberg() {
      if (transform == null) {
        return Expressions.ref(column);
      }
      return switch (transform) {
        case "bucket" -> Expressions.bucket(column, width);
        case "truncate" -> Expressions.truncate(column, width);
        case "years" -> Expressions.year(column);
        case "months" -> Expressions.month(column);
        case "days" -> Expressions.day(column);
        case "hours" -> Expressions.hour(column);
        default -> throw new IllegalStateException("unknown transform " + transform);
      };
    }
  }

  private static Types.NestedField column(Schema schema, String name) {
    Types.NestedField field = schema.caseInsensitiveFindField(name);
    if (field == null) {
      throw new InvalidJobInputException(
          String.format(
              "'%s' names column '%s', which the table does not have; its columns: %s",
              RewriteOptions.SORT_ORDER,
              name,
              schema.columns().stream()
                  .map(Types.NestedField::name)
                  .collect(Collectors.joining(", "))));
    }
    return field;
  }
}
