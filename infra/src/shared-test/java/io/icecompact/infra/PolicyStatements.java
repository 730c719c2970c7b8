package io.icecompact.infra;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The IAM policy statements anywhere under a template value (a Policies list, a policy document, the branches of
 * an {@code Fn::If}). Shared by the tests of infra and infra/cdk.
 */
public final class PolicyStatements {
  private PolicyStatements() {}

  @SuppressWarnings("unchecked")
  public static List<Map<String, Object>> under(Object value) {
    List<Map<String, Object>> out = new ArrayList<>();
    collect(value, out);
    return out;
  }

  /**
   * Whether one of the statements allows {@code action} on {@code resource} (an ARN without wildcards), matching
   * each statement's resources as IAM does ({@code *} any characters, {@code ?} one). {@code render} turns a
   * template value (a string or an intrinsic) into the ARN text it stands for. Conditions other than the
   * {@code s3:prefix} of a ListBucket are not evaluated: a statement with one does not count.
   */
  public static boolean allows(List<Map<String, Object>> statements, String action, String resource,
      java.util.function.Function<Object, String> render) {
    return statements.stream().anyMatch(s -> "Allow".equals(s.get("Effect")) && !s.containsKey("Condition")
        && strings(s.get("Action")).contains(action)
        && list(s.get("Resource")).stream().anyMatch(r -> globMatches(render.apply(r), resource)));
  }

  /** Whether one of the statements allows s3:ListBucket on {@code bucketArn} for keys under {@code prefix}. */
  @SuppressWarnings("unchecked")
  public static boolean allowsListing(List<Map<String, Object>> statements, String bucketArn, String prefix,
      java.util.function.Function<Object, String> render) {
    return statements.stream().anyMatch(s -> {
      if (!"Allow".equals(s.get("Effect")) || !strings(s.get("Action")).contains("s3:ListBucket")
          || list(s.get("Resource")).stream().noneMatch(r -> globMatches(render.apply(r), bucketArn))) {
        return false;
      }
      Object condition = s.get("Condition");
      if (condition == null) {
        return true;
      }
      Map<String, Object> c = (Map<String, Object>) condition;
      if (c.size() != 1 || !c.containsKey("StringLike") || ((Map<String, Object>) c.get("StringLike")).size() != 1) {
        return false;
      }
      Object allowed = ((Map<String, Object>) c.get("StringLike")).get("s3:prefix");
      return allowed != null && list(allowed).stream().anyMatch(p -> globMatches(render.apply(p), prefix));
    });
  }

  /** IAM's wildcard match: {@code *} any characters (slashes included), {@code ?} one character. */
  public static boolean globMatches(String pattern, String value) {
    if (pattern == null) {
      return false;
    }
    StringBuilder regex = new StringBuilder();
    for (char ch : pattern.toCharArray()) {
      switch (ch) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(java.util.regex.Pattern.quote(String.valueOf(ch)));
      }
    }
    return value.matches(regex.toString());
  }

  private static List<Object> list(Object value) {
    return value instanceof List<?> l ? new ArrayList<>(l) : value == null ? List.of() : List.of(value);
  }

  private static List<String> strings(Object value) {
    return list(value).stream().map(String::valueOf).toList();
  }

  @SuppressWarnings("unchecked")
  private static void collect(Object value, List<Map<String, Object>> out) {
    if (value instanceof Map<?, ?> m) {
      if (m.containsKey("Effect") && m.containsKey("Action")) {
        out.add((Map<String, Object>) m);
        return;
      }
      m.values().forEach(v -> collect(v, out));
    } else if (value instanceof List<?> l) {
      l.forEach(v -> collect(v, out));
    }
  }
}
