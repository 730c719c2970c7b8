package io.icecompact.core.filter;

import io.icecompact.core.error.InvalidJobInputException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;

/**
 * Turns a job's filter, given either as Iceberg JSON or as a readable where clause, into an Iceberg
 * expression checked against the table's schema, so that a typo fails before planning.
 */
public final class JobFilter {
  private JobFilter() {}

  public static Expression resolve(String filterJson, String where, Schema schema) {
    boolean hasJson = filterJson != null && !filterJson.isBlank();
    boolean hasWhere = where != null && !where.isBlank();
    if (hasJson && hasWhere) {
      throw new InvalidJobInputException(
          "Give either 'filter' (Iceberg JSON) or 'where', not both");
    }
    Expression expression;
    if (hasJson) {
      try {
        expression = ExpressionParser.fromJson(filterJson, schema);
      } catch (RuntimeException e) {
        throw new InvalidJobInputException(
            "Malformed filter JSON " + filterJson + ": " + e.getMessage(), e);
      }
    } else if (hasWhere) {
      expression = WhereClause.parse(where, schema);
    } else {
      return Expressions.alwaysTrue();
    }
    try {
      Binder.bind(schema.asStruct(), expression, false);
    } catch (ValidationException | IllegalArgumentException e) {
      throw new InvalidJobInputException("Malformed filter: " + e.getMessage(), e);
    }
    return expression;
  }

  /**
   * The filter as a job stores it in its plan, for workers and the committer to read back with
   * {@code ExpressionParser.fromJson(json, schema)}. Serialized bound, so that each value is
   * written in its column's JSON form (ISO text for dates and timestamps, the column's scale for
   * decimals): an unbound expression holding converted values writes e.g. a timestamp as a number
   * of microseconds, which {@code fromJson} with a schema refuses.
   */
  public static String toJson(Expression expression, Schema schema) {
    return ExpressionParser.toJson(Binder.bind(schema.asStruct(), expression, false));
  }
}
