package io.icecompact.infra.cdk;

import io.icecompact.infra.PolicyStatements;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Reading a template held as maps and lists: casts, resources of a type, policy statements. */
final class CfnMaps {
  private CfnMaps() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  static List<Object> list(Object value) {
    return value instanceof List<?> l ? (List<Object>) l : List.of(value);
  }

  static Set<String> strings(Object value) {
    Set<String> out = new TreeSet<>();
    list(value).forEach(v -> out.add(String.valueOf(v)));
    return out;
  }

  static Map<String, Object> props(Map<String, Object> resource) {
    return map(resource.getOrDefault("Properties", Map.of()));
  }

  /** Resources of a type by logical id, sorted. */
  static Map<String, Map<String, Object>> ofType(Map<String, Object> resources, String type) {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    resources.forEach(
        (id, resource) -> {
          if (type.equals(map(resource).get("Type"))) {
            out.put(id, map(resource));
          }
        });
    return out;
  }

  /** Every policy statement under a value (a Policies list, a policy document). */
  static List<Map<String, Object>> statements(Object value) {
    return PolicyStatements.under(value);
  }

  /** Every action of every statement under a value. */
  static Set<String> actions(Object value) {
    Set<String> out = new TreeSet<>();
    statements(value).forEach(s -> out.addAll(strings(s.get("Action"))));
    return out;
  }
}
