package io.icecompact.core.filter;

import io.icecompact.core.error.InvalidJobInputException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Parses the readable filter of the CLI, e.g. {@code ordered_at >= '2026-06-01' and region = 'eu'},
 * into an Iceberg expression, converting each literal to its column's type.
 *
 * <p>Hand-written because no small library turns SQL-like predicates into Iceberg expressions
 * without an engine (Spark's parser needs Spark). The grammar is deliberately small:
 *
 * <pre>
 * expr      := term ('or' term)*
 * term      := factor ('and' factor)*
 * factor    := 'not' factor | '(' expr ')' | predicate
 * predicate := column ( op literal | 'is' ['not'] 'null' | ['not'] 'in' '(' literal (',' literal)* ')'
 *              | 'between' literal 'and' literal | 'like' 'prefix%' )
 * op        := = | == | != | &lt;&gt; | &lt; | &lt;= | &gt; | &gt;=
 * literal   := 'text' | number | true | false
 * </pre>
 */
public final class WhereClause {
  private final String text;
  private final Schema schema;
  private final List<Token> tokens;
  private int pos;

  private WhereClause(String text, Schema schema) {
    this.text = text;
    this.schema = schema;
    this.tokens = Lexer.tokenize(text);
  }

  /**
   * Parses {@code text} against {@code schema}; any problem is an {@link InvalidJobInputException}.
   */
  public static Expression parse(String text, Schema schema) {
    WhereClause parser = new WhereClause(text, schema);
    Expression expression = parser.expression();
    if (!parser.atEnd()) {
      throw parser.error("unexpected '" + parser.peek().text + "'");
    }
    return expression;
  }

  private Expression expression() {
    Expression left = term();
    while (acceptKeyword("or")) {
      left = Expressions.or(left, term());
    }
    return left;
  }

  private Expression term() {
    Expression left = factor();
    while (acceptKeyword("and")) {
      left = Expressions.and(left, factor());
    }
    return left;
  }

  private Expression factor() {
    if (acceptKeyword("not")) {
      return Expressions.not(factor());
    }
    if (accept(Token.Kind.SYMBOL, "(")) {
      Expression inner = expression();
      expect(Token.Kind.SYMBOL, ")");
      return inner;
    }
    return predicate();
  }

  private Expression predicate() {
    Token columnToken = next("a column name");
    if (columnToken.kind != Token.Kind.WORD && columnToken.kind != Token.Kind.QUOTED_NAME) {
      throw error("expected a column name but found '" + columnToken.text + "'");
    }
    Types.NestedField field = schema.caseInsensitiveFindField(columnToken.text);
    if (field == null) {
      throw error("unknown column '" + columnToken.text + "'");
    }
    String column = schema.findColumnName(field.fieldId());

    if (acceptKeyword("is")) {
      boolean negated = acceptKeyword("not");
      expectKeyword("null");
      return negated ? Expressions.notNull(column) : Expressions.isNull(column);
    }
    boolean negated = acceptKeyword("not");
    if (acceptKeyword("in")) {
      expect(Token.Kind.SYMBOL, "(");
      List<Object> values = new ArrayList<>();
      do {
        values.add(literal(field));
      } while (accept(Token.Kind.SYMBOL, ","));
      expect(Token.Kind.SYMBOL, ")");
      return negated ? Expressions.notIn(column, values) : Expressions.in(column, values);
    }
    if (acceptKeyword("like")) {
      Token pattern = next("a quoted pattern");
      if (pattern.kind != Token.Kind.STRING
          || !pattern.text.endsWith("%")
          || pattern.text.substring(0, pattern.text.length() - 1).matches(".*[%_].*")) {
        throw error("only prefix patterns such as 'abc%' are supported after like");
      }
      String prefix = pattern.text.substring(0, pattern.text.length() - 1);
      return negated
          ? Expressions.notStartsWith(column, prefix)
          : Expressions.startsWith(column, prefix);
    }
    if (acceptKeyword("between")) {
      Object low = literal(field);
      expectKeyword("and");
      Object high = literal(field);
      Expression between =
          Expressions.and(
              Expressions.greaterThanOrEqual(column, low),
              Expressions.lessThanOrEqual(column, high));
      return negated ? Expressions.not(between) : between;
    }
    if (negated) {
      throw error("expected in, like or between after not");
    }
    Token op = next("a comparison operator");
    if (op.kind != Token.Kind.SYMBOL) {
      throw error("expected a comparison operator after '" + columnToken.text + "'");
    }
    Object value = literal(field);
    switch (op.text) {
      case "=":
      case "==":
        return Expressions.equal(column, value);
      case "!=":
      case "<>":
        return Expressions.notEqual(column, value);
      case "<":
        return Expressions.lessThan(column, value);
      case "<=":
        return Expressions.lessThanOrEqual(column, value);
      case ">":
        return Expressions.greaterThan(column, value);
      case ">=":
        return Expressions.greaterThanOrEqual(column, value);
      default:
        throw error("unknown operator '" + op.text + "'");
    }
  }

  /** Reads a literal and converts it to the column's type, so that binding cannot fail later. */
  private Object literal(Types.NestedField field) {
    Token token = next("a value");
    Type type = field.type();
    Literal<?> literal;
    switch (token.kind) {
      case STRING:
        literal = Literal.of(normalizeTemporal(token.text, type));
        break;
      case NUMBER:
        literal = numberLiteral(token.text, type);
        break;
      case WORD:
        String word = token.text.toLowerCase(Locale.ROOT);
        if (!word.equals("true") && !word.equals("false")) {
          throw error("expected a value for '" + field.name() + "' but found '" + token.text + "'");
        }
        literal = Literal.of(Boolean.parseBoolean(word));
        break;
      default:
        throw error("expected a value for '" + field.name() + "' but found '" + token.text + "'");
    }
    Object value = null;
    if (literal != null && type.isPrimitiveType()) {
      try {
        Literal<?> converted = literal.to(type);
        // value() of an out-of-range result (above the type's max or below its min) throws
        value = converted == null ? null : converted.value();
      } catch (RuntimeException e) { // unparsable date or timestamp text, out of range
        value = null;
      }
    }
    if (value == null) {
      throw error(
          String.format(
              "cannot use %s as a value of column '%s' (%s)", token.text, field.name(), type));
    }
    return value;
  }

  /**
   * A number in the column's terms: floating point for float and double columns, the column's scale
   * for decimals (when exact), long or decimal otherwise. Null when the text is not a number.
   */
  private static Literal<?> numberLiteral(String text, Type type) {
    try {
      if (text.matches("-?\\d+")) {
        return Literal.of(Long.parseLong(text));
      }
      BigDecimal decimal = new BigDecimal(text);
      switch (type.typeId()) {
        case FLOAT:
        case DOUBLE:
          return Literal.of(decimal.doubleValue());
        case DECIMAL:
          return Literal.of(decimal.setScale(((Types.DecimalType) type).scale()));
        default:
          return Literal.of(decimal);
      }
    } catch (NumberFormatException | ArithmeticException e) {
      return null; // e.g. 1.2.3, too many digits for a long, or more decimals than the column has
    }
  }

  /** Lets users write dates where timestamps are stored: '2026-06-01' means its midnight (UTC). */
  private static String normalizeTemporal(String value, Type type) {
    boolean timestamp =
        type.typeId() == Type.TypeID.TIMESTAMP || type.typeId() == Type.TypeID.TIMESTAMP_NANO;
    if (!timestamp) {
      return value;
    }
    String normalized = value.trim().replace(' ', 'T');
    if (normalized.matches("\\d{4}-\\d{2}-\\d{2}")) {
      normalized = normalized + "T00:00:00";
    }
    boolean withZone =
        type instanceof Types.TimestampType ts
            ? ts.shouldAdjustToUTC()
            : ((Types.TimestampNanoType) type).shouldAdjustToUTC();
    if (withZone && !normalized.matches(".*([+-]\\d{2}:\\d{2}|Z)$")) {
      normalized = normalized + "+00:00";
    }
    return normalized;
  }

  private boolean atEnd() {
    return pos >= tokens.size();
  }

  private Token peek() {
    return tokens.get(pos);
  }

  private Token next(String expected) {
    if (atEnd()) {
      throw error("expected " + expected + " but the filter ended");
    }
    return tokens.get(pos++);
  }

  private boolean accept(Token.Kind kind, String value) {
    if (!atEnd() && peek().kind == kind && peek().text.equals(value)) {
      pos++;
      return true;
    }
    return false;
  }

  private boolean acceptKeyword(String keyword) {
    if (!atEnd() && peek().kind == Token.Kind.WORD && peek().text.equalsIgnoreCase(keyword)) {
      pos++;
      return true;
    }
    return false;
  }

  private void expect(Token.Kind kind, String value) {
    if (!accept(kind, value)) {
      throw error(
          "expected '"
              + value
              + "'"
              + (atEnd() ? " but the filter ended" : " but found '" + peek().text + "'"));
    }
  }

  private void expectKeyword(String keyword) {
    if (!acceptKeyword(keyword)) {
      throw error(
          "expected '"
              + keyword
              + "'"
              + (atEnd() ? " but the filter ended" : " but found '" + peek().text + "'"));
    }
  }

  private InvalidJobInputException error(String problem) {
    return new InvalidJobInputException("Malformed filter \"" + text + "\": " + problem);
  }

  record Token(Kind kind, String text) {
    enum Kind {
      WORD,
      QUOTED_NAME,
      STRING,
      NUMBER,
      SYMBOL
    }
  }

  static final class Lexer {
    private Lexer() {}

    static List<Token> tokenize(String text) {
      if (text == null || text.isBlank()) {
        throw new InvalidJobInputException("Malformed filter: it is empty");
      }
      List<Token> tokens = new ArrayList<>();
      int i = 0;
      while (i < text.length()) {
        char c = text.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if (c == '\'' || c == '"') {
          int end = i + 1;
          StringBuilder value = new StringBuilder();
          while (true) {
            if (end >= text.length()) {
              throw new InvalidJobInputException(
                  "Malformed filter \"" + text + "\": unterminated quote at position " + i);
            }
            char ch = text.charAt(end);
            if (ch == c && end + 1 < text.length() && text.charAt(end + 1) == c) {
              value.append(c); // doubled quote escapes itself, as in SQL
              end += 2;
            } else if (ch == c) {
              break;
            } else {
              value.append(ch);
              end++;
            }
          }
          tokens.add(
              new Token(c == '\'' ? Token.Kind.STRING : Token.Kind.QUOTED_NAME, value.toString()));
          i = end + 1;
        } else if (Character.isDigit(c)
            || (c == '-' && i + 1 < text.length() && Character.isDigit(text.charAt(i + 1)))) {
          int end = i + 1;
          while (end < text.length()
              && (Character.isDigit(text.charAt(end)) || text.charAt(end) == '.')) {
            end++;
          }
          tokens.add(new Token(Token.Kind.NUMBER, text.substring(i, end)));
          i = end;
        } else if (Character.isLetter(c) || c == '_') {
          int end = i + 1;
          while (end < text.length()
              && (Character.isLetterOrDigit(text.charAt(end))
                  || text.charAt(end) == '_'
                  || text.charAt(end) == '.')) {
            end++;
          }
          tokens.add(new Token(Token.Kind.WORD, text.substring(i, end)));
          i = end;
        } else if ("<>!=".indexOf(c) >= 0) {
          int end = i + 1;
          if (end < text.length() && "=>".indexOf(text.charAt(end)) >= 0) {
            end++;
          }
          tokens.add(new Token(Token.Kind.SYMBOL, text.substring(i, end)));
          i = end;
        } else if ("(),".indexOf(c) >= 0) {
          tokens.add(new Token(Token.Kind.SYMBOL, String.valueOf(c)));
          i++;
        } else {
          throw new InvalidJobInputException(
              "Malformed filter \""
                  + text
                  + "\": unexpected character '"
                  + c
                  + "' at position "
                  + i);
        }
      }
      return tokens;
    }
  }
}
