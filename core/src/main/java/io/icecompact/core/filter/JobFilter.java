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
      throw new InvalidJobInputException("Give either 'filter' (Iceberg JSON) or 'where', not both");
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
}
