package io.icecompact.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.InvalidJobInputException;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class WhereClauseTest {
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(12, 2)),
          Types.NestedField.optional(4, "ordered_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(5, "day", Types.DateType.get()),
          Types.NestedField.optional(6, "price", Types.DoubleType.get()),
          Types.NestedField.optional(7, "flag", Types.BooleanType.get()),
          Types.NestedField.optional(8, "qty", Types.IntegerType.get()),
          Types.NestedField.optional(9, "local_ts", Types.TimestampType.withoutZone()));

  static final OffsetDateTime JUNE_1 = OffsetDateTime.of(2026, 6, 1, 0, 0, 0, 0, ZoneOffset.UTC);
  static final String[] REGIONS = {"eu", "us", "apac", "abc", "abd", "a", "it's", null};

  /** Seeded rows around the literals used below, so every clause has matches and non-matches. */
  static final List<Record> ROWS = rows(400);

  static List<Record> rows(int count) {
    Random random = new Random(7);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < count; id++) {
      GenericRecord row = GenericRecord.create(SCHEMA);
      row.setField("id", id);
      row.setField("region", REGIONS[random.nextInt(REGIONS.length)]);
      row.setField("amount", BigDecimal.valueOf(random.nextInt(4000), 2)); // 0.00 .. 39.99
      // May 30 .. June 3, to the second; a few exactly at midnight of June 1
      OffsetDateTime at =
          random.nextInt(20) == 0
              ? JUNE_1
              : JUNE_1.minusDays(2).plusSeconds(random.nextInt(5 * 24 * 3600));
      row.setField("ordered_at", at);
      row.setField("day", at.toLocalDate());
      row.setField("price", random.nextInt(400) / 100.0);
      row.setField("flag", random.nextBoolean());
      row.setField("qty", random.nextInt(10));
      row.setField("local_ts", at.toLocalDateTime());
      rows.add(row);
    }
    return rows;
  }

  static boolean matches(Expression expression, Record row) {
    return new Evaluator(SCHEMA.asStruct(), expression, true)
        .eval(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row));
  }

  static String region(Record r) {
    return (String) r.getField("region");
  }

  static OffsetDateTime orderedAt(Record r) {
    return (OffsetDateTime) r.getField("ordered_at");
  }

  static BigDecimal amount(Record r) {
    return (BigDecimal) r.getField("amount");
  }

  static long id(Record r) {
    return (Long) r.getField("id");
  }

  static double price(Record r) {
    return (Double) r.getField("price");
  }

  /**
   * Each clause against an oracle in plain Java, with Iceberg's two-valued null semantics: a
   * comparison with null is false, and its negation (not, !=, not in, not like) is true.
   */
  static Stream<Arguments> clauses() {
    return Stream.of(
        clause(
            "ordered_at >= '2026-06-01' and region = 'eu'",
            r -> !orderedAt(r).isBefore(JUNE_1) && "eu".equals(region(r))),
        clause("ordered_at < '2026-06-01'", r -> orderedAt(r).isBefore(JUNE_1)),
        clause("ordered_at = '2026-06-01'", r -> orderedAt(r).isEqual(JUNE_1)),
        clause(
            "ordered_at > '2026-06-01 12:30:00'",
            r -> orderedAt(r).isAfter(JUNE_1.plusHours(12).plusMinutes(30))),
        clause(
            "ordered_at <= '2026-06-01T02:00:00+02:00'", // = midnight UTC
            r -> !orderedAt(r).isAfter(JUNE_1)),
        clause("local_ts >= '2026-06-02'", r -> !orderedAt(r).isBefore(JUNE_1.plusDays(1))),
        clause("day = '2026-06-01'", r -> r.getField("day").equals(LocalDate.of(2026, 6, 1))),
        clause("region in ('eu', 'us')", r -> "eu".equals(region(r)) || "us".equals(region(r))),
        clause(
            "region not in ('eu', 'us')", r -> !"eu".equals(region(r)) && !"us".equals(region(r))),
        clause("region is null", r -> region(r) == null),
        clause("region IS NOT NULL", r -> region(r) != null),
        clause("region = 'it''s'", r -> "it's".equals(region(r))),
        clause("\"region\" <> 'eu'", r -> !"eu".equals(region(r))),
        clause("region != 'eu'", r -> !"eu".equals(region(r))),
        clause("REGION == 'eu'", r -> "eu".equals(region(r))),
        clause("region like 'ab%'", r -> region(r) != null && region(r).startsWith("ab")),
        clause("region not like 'ab%'", r -> region(r) == null || !region(r).startsWith("ab")),
        clause("id between 10 and 20", r -> id(r) >= 10 && id(r) <= 20),
        clause("id not between 10 and 390", r -> id(r) < 10 || id(r) > 390),
        clause("id in (1, 3, 5)", r -> id(r) == 1 || id(r) == 3 || id(r) == 5),
        clause("id > -1 and id < 3", r -> id(r) < 3),
        clause(
            "amount >= 20 and amount < 30.5",
            r ->
                amount(r).compareTo(new BigDecimal("20")) >= 0
                    && amount(r).compareTo(new BigDecimal("30.5")) < 0),
        clause(
            "amount between 1.25 and 2.50",
            r ->
                amount(r).compareTo(new BigDecimal("1.25")) >= 0
                    && amount(r).compareTo(new BigDecimal("2.50")) <= 0),
        clause("price > 1.5", r -> price(r) > 1.5),
        clause("price <= 2", r -> price(r) <= 2.0),
        clause("qty = 3", r -> (Integer) r.getField("qty") == 3),
        clause("flag = true", r -> (Boolean) r.getField("flag")),
        clause("flag = FALSE", r -> !(Boolean) r.getField("flag")),
        // precedence: and binds tighter than or, not binds to the next factor only
        clause(
            "region = 'eu' or region = 'us' and id < 100",
            r -> "eu".equals(region(r)) || ("us".equals(region(r)) && id(r) < 100)),
        clause(
            "(region = 'eu' or region = 'us') and id < 100",
            r -> ("eu".equals(region(r)) || "us".equals(region(r))) && id(r) < 100),
        clause("not region = 'eu' and id < 100", r -> !"eu".equals(region(r)) && id(r) < 100),
        clause("not (region = 'eu' and id < 100)", r -> !("eu".equals(region(r)) && id(r) < 100)),
        clause(
            "id < 50 and region = 'us' or id > 350 and not region in ('us') or region is null",
            r ->
                (id(r) < 50 && "us".equals(region(r)))
                    || (id(r) > 350 && !"us".equals(region(r)))
                    || region(r) == null),
        clause("not not region = 'eu'", r -> "eu".equals(region(r))));
  }

  static Arguments clause(String where, Predicate<Record> oracle) {
    return Arguments.of(where, oracle);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clauses")
  void clauseSelectsExactlyTheRowsItSays(String where, Predicate<Record> oracle) {
    Expression expression = WhereClause.parse(where, SCHEMA);
    int matched = 0;
    for (Record row : ROWS) {
      boolean expected = oracle.test(row);
      assertThat(matches(expression, row))
          .as("%s on %s (parsed as %s)", where, row, expression)
          .isEqualTo(expected);
      matched += expected ? 1 : 0;
    }
    // the rows must discriminate: a clause that matched everything or nothing proves little
    assertThat(matched).as("rows matching %s", where).isBetween(1, ROWS.size() - 1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("clauses")
  void clauseSurvivesTheJsonFormTheJobStores(String where, Predicate<Record> oracle) {
    Expression expression = WhereClause.parse(where, SCHEMA);
    String json = JobFilter.toJson(expression, SCHEMA);
    Expression back = JobFilter.resolve(json, null, SCHEMA);
    assertThat(ExpressionUtil.equivalent(expression, back, SCHEMA.asStruct(), true))
        .as("%s -> %s -> %s", expression, json, back)
        .isTrue();
    assertThat(JobFilter.toJson(back, SCHEMA)).isEqualTo(json);
    for (Record row : ROWS) {
      assertThat(matches(back, row)).as("%s on %s", json, row).isEqualTo(oracle.test(row));
    }
  }

  @Test
  void documentedExampleBuildsTheExpectedExpression() {
    long juneFirstMicros = JUNE_1.toEpochSecond() * 1_000_000L;
    Expression parsed = WhereClause.parse("ordered_at >= '2026-06-01' and region = 'eu'", SCHEMA);
    Expression expected =
        Expressions.and(
            Expressions.greaterThanOrEqual("ordered_at", juneFirstMicros),
            Expressions.equal("region", "eu"));
    assertThat(parsed.toString()).isEqualTo(expected.toString());
    assertThat(ExpressionUtil.equivalent(parsed, expected, SCHEMA.asStruct(), true)).isTrue();
    assertThat(
            ExpressionUtil.equivalent(
                parsed,
                Expressions.and(
                    Expressions.greaterThanOrEqual("ordered_at", juneFirstMicros + 1),
                    Expressions.equal("region", "eu")),
                SCHEMA.asStruct(),
                true))
        .isFalse();
  }

  @Test
  void precedenceShapesTheTree() {
    assertThat(WhereClause.parse("region = 'a' or region = 'b' and id = 1", SCHEMA).toString())
        .isEqualTo(
            Expressions.or(
                    Expressions.equal("region", "a"),
                    Expressions.and(Expressions.equal("region", "b"), Expressions.equal("id", 1L)))
                .toString());
    assertThat(WhereClause.parse("not region = 'a' and id = 1", SCHEMA).toString())
        .isEqualTo(
            Expressions.and(
                    Expressions.not(Expressions.equal("region", "a")), Expressions.equal("id", 1L))
                .toString());
  }

  @Test
  void unknownColumnIsNamed() {
    assertThatThrownBy(() -> WhereClause.parse("regoin = 'eu'", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter \"regoin = 'eu'\": unknown column 'regoin'");
  }

  @Test
  void unterminatedQuoteIsReportedWithItsPosition() {
    assertThatThrownBy(() -> WhereClause.parse("region = 'eu", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter \"region = 'eu\": unterminated quote at position 9");
  }

  @Test
  void trailingGarbageIsNamed() {
    assertThatThrownBy(() -> WhereClause.parse("region = 'eu' limit 5", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter \"region = 'eu' limit 5\": unexpected 'limit'");
  }

  @Test
  void wrongLiteralTypeNamesValueColumnAndType() {
    assertThatThrownBy(() -> WhereClause.parse("id = 'abc'", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Malformed filter \"id = 'abc'\": cannot use abc as a value of column 'id' (long)");
    assertThatThrownBy(() -> WhereClause.parse("region = 5", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage(
            "Malformed filter \"region = 5\": cannot use 5 as a value of column 'region' (string)");
  }

  /**
   * Values that cannot be converted must be bad input too, never a raw parse or range exception.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "ordered_at > 'yesterday'",
        "day = 'abc'",
        "id = 1.2.3",
        "qty = 99999999999",
        "id = 1.5",
        "amount > 1.234",
        "flag = 'maybe'"
      })
  void unconvertibleValuesAreBadInput(String where) {
    String column = where.substring(0, where.indexOf(' '));
    assertThatThrownBy(() -> WhereClause.parse(where, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter \"" + where + "\": cannot use ")
        .hasMessageContaining("as a value of column '" + column + "'");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "(region = 'eu'",
        "region = ",
        "id = 1 and",
        "region ! 'x'",
        "id >> 3",
        "region like '%ab'",
        "region like 'a_b%'",
        "region not = 'eu'",
        "region is 'eu'",
        "= 5",
        "region = 'eu' )",
        "region in ('eu'",
        "region = 'eu' ; drop table x",
        "id between 1 or 5"
      })
  void malformedClausesAreBadInput(String where) {
    assertThatThrownBy(() -> WhereClause.parse(where, SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessageStartingWith("Malformed filter \"" + where + "\": ");
  }

  @Test
  void specificSyntaxErrorsSayWhatWasExpected() {
    assertThatThrownBy(() -> WhereClause.parse("(region = 'eu'", SCHEMA))
        .hasMessage("Malformed filter \"(region = 'eu'\": expected ')' but the filter ended");
    assertThatThrownBy(() -> WhereClause.parse("region like '%ab'", SCHEMA))
        .hasMessage(
            "Malformed filter \"region like '%ab'\": only prefix patterns such as 'abc%' are"
                + " supported after like");
    assertThatThrownBy(() -> WhereClause.parse("region ; 1", SCHEMA))
        .hasMessage("Malformed filter \"region ; 1\": unexpected character ';' at position 7");
    assertThatThrownBy(() -> WhereClause.parse("  ", SCHEMA))
        .isInstanceOf(InvalidJobInputException.class)
        .hasMessage("Malformed filter: it is empty");
  }
}
