package io.icecompact.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import java.math.BigDecimal;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class JobFilterTest {
  static final Schema SCHEMA = WhereClauseTest.SCHEMA;

  static Stream<Expression> icebergExpressions() {
    return Stream.of(
        Expressions.and(
            Expressions.greaterThanOrEqual("ordered_at", "2026-06-01T00:00:00+00:00"),
            Expressions.equal("region", "eu")),
        Expressions.or(Expressions.isNull("region"), Expressions.notIn("region", "eu", "us")),
        Expressions.not(Expressions.startsWith("region", "ab")),
        Expressions.in("id", 1L, 2L, 3L),
        Expressions.greaterThan("amount", new BigDecimal("12.50")),
        Expressions.equal("day", "2026-06-01"),
        Expressions.lessThan("price", 2.5d));
  }

  /** A filter given as Iceberg JSON means what the expression it was written from means. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("icebergExpressions")
  void jsonFilterRoundTrips(Expression expression) {
    String json = ExpressionParser.toJson(expression);
    Expression resolved = JobFilter.resolve(json, null, SCHEMA);
    assertThat(ExpressionUtil.equivalent(expression, resolved, SCHEMA.asStruct(), true))
        .as("%s -> %s -> %s", expression, json, resolved)
        .isTrue();
    // and the form a job stores survives a second trip, as the worker and committer read it
    String stored = JobFilter.toJson(resolved, SCHEMA);
    Expression reread = ExpressionParser.fromJson(stored, SCHEMA);
    assertThat(ExpressionUtil.equivalent(expression, reread, SCHEMA.asStruct(), true))
        .as("%s -> %s", stored, reread)
        .isTrue();
  }

  @Test
  void jsonAndWhereMeanTheSame() {
    Expression fromWhere =
        JobFilter.resolve(null, "ordered_at >= '2026-06-01' and region = 'eu'", SCHEMA);
    Expression fromJson =
        JobFilter.resolve(
            ExpressionParser.toJson(
                Expressions.and(
                    Expressions.greaterThanOrEqual("ordered_at", "2026-06-01T00:00:00+00:00"),
                    Expressions.equal("region", "eu"))),
            "  ",
            SCHEMA);
    assertThat(ExpressionUtil.equivalent(fromWhere, fromJson, SCHEMA.asStruct(), true)).isTrue();
    assertThat(JobFilter.toJson(fromWhere, SCHEMA)).isEqualTo(JobFilter.toJson(fromJson, SCHEMA));
  }

  @Test
  void noFilterMeansEveryFile() {
    assertThat(JobFilter.resolve(null, null, SCHEMA)).isEqualTo(Expressions.alwaysTrue());
    assertThat(JobFilter.resolve(" ", "", SCHEMA)).isEqualTo(Expressions.alwaysTrue());
  }

  @Test
  void bothJsonAndWhereIsAnError() {
    String json = ExpressionParser.toJson(Expressions.equal("region", "eu"));
    assertThatThrownBy(() -> JobFilter.resolve(json, "region = 'eu'", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Give either 'filter' (Iceberg JSON) or 'where', not both");
  }

  @Test
  void jsonNamingAnUnknownColumnNamesIt() {
    String json = "{\"type\":\"eq\",\"term\":\"regoin\",\"value\":\"eu\"}";
    assertThatThrownBy(() -> JobFilter.resolve(json, null, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON " + json + ": ")
        .hasMessageContaining("'regoin'");
  }

  @Test
  void unparsableJsonIsBadInput() {
    assertThatThrownBy(() -> JobFilter.resolve("{not json", null, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON {not json: ");
    assertThatThrownBy(() -> JobFilter.resolve("{\"type\":\"bogus\"}", null, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON {\"type\":\"bogus\"}: ")
        .hasMessageContaining("bogus");
  }

  @Test
  void jsonWithAValueOfTheWrongTypeIsBadInput() {
    String json = "{\"type\":\"lt\",\"term\":\"id\",\"value\":\"abc\"}";
    assertThatThrownBy(() -> JobFilter.resolve(json, null, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter JSON " + json + ": ")
        .hasMessageContaining("abc");
  }

  @Test
  void whereErrorsComeThroughUnchanged() {
    assertThatThrownBy(() -> JobFilter.resolve(null, "nope = 1", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter \"nope = 1\": unknown column 'nope'");
  }

  @Test
  void likeOnANonStringColumnFailsWhenBound() {
    assertThatThrownBy(() -> JobFilter.resolve(null, "id like 'ab%'", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter: ");
  }
}
