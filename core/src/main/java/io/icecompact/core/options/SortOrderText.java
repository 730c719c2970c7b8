package io.icecompact.core.options;

import io.icecompact.core.error.InvalidJobInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortDirection;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;

/**
 * Reads and writes {@code sort-order} in the syntax of Spark's {@code rewrite_data_files(sort_order
 * => ...)}: {@code "c1 ASC NULLS FIRST, c2 DESC"}, transforms such as {@code bucket(16, id)} or
 * {@code days(ts)}, or {@code "zorder(c1, c2)"}. Without a direction a term is ascending; without a
 * null order, ascending puts nulls first and descending last (Spark's defaults).
 *
 * <p>Hand-written because Iceberg parses this syntax only inside its Spark SQL extensions (an ANTLR
 * grammar run by Spark's parser, {@code ExtendedParser.parseSortOrder}); Iceberg's own {@code
 * SortOrderParser} reads only the JSON of table metadata.
 */
public final class SortOrderText {
  /** Spark's transform names (and their singular aliases) to the canonical name. */
  private static final Map<String, String> TRANSFORMS =
      Map.ofEntries(
          Map.entry("bucket", "bucket"),
          Map.entry("truncate", "truncate"),
          Map.entry("years", "years"),
          Map.entry("year", "years"),
          Map.entry("months", "months"),
          Map.entry("month", "months"),
          Map.entry("days", "days"),
          Map.entry("day", "days"),
          Map.entry("date", "days"),
          Map.entry("hours", "hours"),
          Map.entry("hour", "hours"),
          Map.entry("date_hour", "hours"));

  private final String text;
  private final List<Token> tokens;
  private int next;

  private SortOrderText(String text) {
    this.text = text;
    this.tokens = Token.split(text, this::fail);
  }

  /** The order {@code text} describes; malformed text is bad input naming the problem and where. */
  public static RequestedSortOrder parse(String text) {
    return new SortOrderText(text).order();
  }

  /**
   * {@code order} in the syntax {@link #parse} reads, with every direction and null order spelt
   * out.
   */
  public static String describe(SortOrder order, Schema schema) {
    return order.fields().stream()
        .map(
            field ->
                term(field, quoted(schema.findColumnName(field.sourceId())))
                    + " "
                    + field.direction()
                    + " "
                    + (field.nullOrder() == NullOrder.NULLS_FIRST ? "NULLS FIRST" : "NULLS LAST"))
        .collect(Collectors.joining(", "));
  }

  /** Spark's {@code zorder(c1, c2)}. */
  public static String describeZOrder(List<String> columns) {
    return "zorder("
        + columns.stream().map(SortOrderText::quoted).collect(Collectors.joining(", "))
        + ")";
  }

  /**
   * A column name as {@link #parse} reads it back: parts that are not plain names in backquotes.
   */
  private static String quoted(String name) {
    return java.util.Arrays.stream(name.split("\\.", -1))
        .map(part -> part.matches("[A-Za-z_][A-Za-z0-9_]*") ? part : "`" + part + "`")
        .collect(Collectors.joining("."));
  }

  private static String term(SortField field, String column) {
    String transform = field.transform().toString();
    if (transform.equals("identity")) {
      return column;
    }
    if (transform.startsWith("bucket[") || transform.startsWith("truncate[")) {
      String name = transform.substring(0, transform.indexOf('['));
      String width = transform.substring(transform.indexOf('[') + 1, transform.length() - 1);
      return name + "(" + width + ", " + column + ")";
    }
    return transform + "s(" + column + ")"; // year, month, day, hour: Spark's names are plural
  }

  private RequestedSortOrder order() {
    if (tokens.isEmpty()) {
      throw fail("it is empty", 0);
    }
    List<RequestedSortOrder.Field> fields = new ArrayList<>();
    List<String> zOrder = null;
    do {
      if (peekWord("zorder") && peekAt(1, "(")) {
        if (zOrder != null || !fields.isEmpty()) {
          throw fail(
              "a z-order cannot be combined with other terms (Spark refuses it too)", position());
        }
        zOrder = zOrderColumns();
      } else {
        if (zOrder != null) {
          throw fail(
              "a z-order cannot be combined with other terms (Spark refuses it too)", position());
        }
        fields.add(field());
      }
    } while (accept(","));
    if (next < tokens.size()) {
      throw fail("expected ',' or the end but found '" + tokens.get(next).text() + "'", position());
    }
    return zOrder != null
        ? new RequestedSortOrder.ZOrder(zOrder)
        : new RequestedSortOrder.Linear(fields);
  }

  private List<String> zOrderColumns() {
    next += 2; // zorder (
    List<String> columns = new ArrayList<>();
    do {
      columns.add(columnName());
    } while (accept(","));
    expect(")");
    return columns;
  }

  private RequestedSortOrder.Field field() {
    RequestedSortOrder.Term term = term();
    SortDirection direction = SortDirection.ASC;
    if (acceptWord("asc")) {
      direction = SortDirection.ASC;
    } else if (acceptWord("desc")) {
      direction = SortDirection.DESC;
    }
    NullOrder nulls = direction == SortDirection.ASC ? NullOrder.NULLS_FIRST : NullOrder.NULLS_LAST;
    if (acceptWord("nulls")) {
      if (acceptWord("first")) {
        nulls = NullOrder.NULLS_FIRST;
      } else if (acceptWord("last")) {
        nulls = NullOrder.NULLS_LAST;
      } else {
        throw fail("expected FIRST or LAST after NULLS", position());
      }
    }
    return new RequestedSortOrder.Field(term, direction, nulls);
  }

  private RequestedSortOrder.Term term() {
    int start = position();
    String name = columnName();
    if (!accept("(")) {
      return new RequestedSortOrder.Term(null, name, null);
    }
    String transform = TRANSFORMS.get(name.toLowerCase(Locale.ROOT));
    if (transform == null) {
      throw fail(
          "unknown transform '" + name + "'; known: bucket, truncate, years, months, days, hours",
          start);
    }
    String column = null;
    Integer width = null;
    do {
      Token argument = current("an argument of " + name);
      if (argument.kind() == Token.Kind.NUMBER) {
        if (width != null) {
          throw fail(name + " takes one number", argument.start());
        }
        width = parseWidth(argument);
        next++;
      } else {
        if (column != null) {
          throw fail(name + " takes one column", argument.start());
        }
        column = columnName();
      }
    } while (accept(","));
    expect(")");
    boolean takesWidth = transform.equals("bucket") || transform.equals("truncate");
    if (column == null || takesWidth != (width != null)) {
      throw fail(
          name
              + (takesWidth
                  ? " takes a number and a column, e.g. " + transform + "(16, id)"
                  : " takes one column, e.g. " + transform + "(ts)"),
          start);
    }
    return new RequestedSortOrder.Term(transform, column, width);
  }

  private int parseWidth(Token token) {
    try {
      int width = Integer.parseInt(token.text());
      if (width > 0) {
        return width;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw fail("width " + token.text() + " must be a whole number > 0", token.start());
  }

  /** A possibly dotted (nested) column name; backquotes quote names with other characters. */
  private String columnName() {
    StringBuilder name = new StringBuilder(identifier());
    while (accept(".")) {
      name.append('.').append(identifier());
    }
    return name.toString();
  }

  private String identifier() {
    Token token = current("a column name");
    if (token.kind() != Token.Kind.NAME) {
      throw fail("expected a column name but found '" + token.text() + "'", token.start());
    }
    next++;
    return token.text();
  }

  private Token current(String expected) {
    if (next >= tokens.size()) {
      throw fail("expected " + expected + " but the text ended", text.length());
    }
    return tokens.get(next);
  }

  private boolean accept(String symbol) {
    if (peekAt(0, symbol)) {
      next++;
      return true;
    }
    return false;
  }

  private void expect(String symbol) {
    Token token = current("'" + symbol + "'");
    if (!accept(symbol)) {
      throw fail("expected '" + symbol + "' but found '" + token.text() + "'", token.start());
    }
  }

  private boolean peekAt(int ahead, String symbol) {
    int at = next + ahead;
    return at < tokens.size()
        && tokens.get(at).kind() == Token.Kind.SYMBOL
        && tokens.get(at).text().equals(symbol);
  }

  private boolean peekWord(String word) {
    return next < tokens.size()
        && tokens.get(next).kind() == Token.Kind.NAME
        && !tokens.get(next).quoted()
        && tokens.get(next).text().equalsIgnoreCase(word);
  }

  private boolean acceptWord(String word) {
    if (peekWord(word)) {
      next++;
      return true;
    }
    return false;
  }

  private int position() {
    return next < tokens.size() ? tokens.get(next).start() : text.length();
  }

  private InvalidJobInputException fail(String problem, int at) {
    return new InvalidJobInputException(
        String.format(
            "'%s' is set to %s but is not a sort order: %s (at character %d). Write it as Spark does,"
                + " e.g. \"c1 ASC NULLS FIRST, c2 DESC\" or \"zorder(c1, c2)\"",
            RewriteOptions.SORT_ORDER, text, problem, at + 1));
  }

  /** A name (plain or backquoted), a whole number, or one of {@code ( ) , .}. */
  private record Token(Kind kind, String text, int start, boolean quoted) {
    enum Kind {
      NAME,
      NUMBER,
      SYMBOL
    }

    interface Failure {
      InvalidJobInputException at(String problem, int position);
    }

    static List<Token> split(String text, Failure failure) {
      List<Token> tokens = new ArrayList<>();
      int i = 0;
      while (i < text.length()) {
        char c = text.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if ("(),.".indexOf(c) >= 0) {
          tokens.add(new Token(Kind.SYMBOL, String.valueOf(c), i, false));
          i++;
        } else if (c == '`') {
          int end = text.indexOf('`', i + 1);
          if (end < 0) {
            throw failure.at("a backquote is not closed", i);
          }
          if (end == i + 1) {
            throw failure.at("an empty quoted name", i);
          }
          tokens.add(new Token(Kind.NAME, text.substring(i + 1, end), i, true));
          i = end + 1;
        } else if (Character.isDigit(c) || c == '-') {
          int end = i + 1;
          while (end < text.length() && Character.isLetterOrDigit(text.charAt(end))) {
            end++;
          }
          String number = text.substring(i, end);
          if (!number.matches("-?[0-9]+")) {
            throw failure.at("'" + number + "' is neither a name nor a number", i);
          }
          tokens.add(new Token(Kind.NUMBER, number, i, false));
          i = end;
        } else if (Character.isLetter(c) || c == '_') {
          int end = i + 1;
          while (end < text.length()
              && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '_')) {
            end++;
          }
          tokens.add(new Token(Kind.NAME, text.substring(i, end), i, false));
          i = end;
        } else {
          throw failure.at("unexpected character '" + c + "'", i);
        }
      }
      return tokens;
    }
  }
}
