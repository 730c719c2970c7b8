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
