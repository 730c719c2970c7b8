package io.icecompact.infra.cdk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A CloudFormation template with its parameters filled in and its intrinsic functions worked out as
 * far as they can be without deploying: conditions decide {@code Fn::If} and which resources exist,
 * {@code AWS::NoValue} disappears, {@code Fn::Split} becomes a list, and {@code Ref}, {@code
 * Fn::GetAtt}, {@code Fn::Sub} and {@code Fn::Join} become strings in which what only a deployment
 * knows stays a placeholder: {@code ${AWS::Partition}}, {@code ${LeaseTable}}, {@code
 * ${LeaseTable.Arn}}. Logical ids go through a renaming (the CDK's hashed ids to the SAM
 * template's), so that a SAM template and a synthesized stack resolve to comparable maps.
 */
final class ResolvedTemplate {
  private static final Object NO_VALUE = new Object();
  private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{([^}!][^}]*)}");

  private final Map<String, Object> parameters;
  private final Map<String, Object> conditionDefinitions;
  private final Map<String, Boolean> conditions = new TreeMap<>();
  private final UnaryOperator<String> logicalIds;
  private final Map<String, Object> resources = new LinkedHashMap<>();

  /**
   * @param template the template as maps and lists (CfnYaml's or the CDK's {@code
   *     Template.toJSON()})
   * @param parameterValues values of parameters; the others take their defaults
   * @param logicalIds renames a logical id (identity for the SAM template)
   */
  ResolvedTemplate(
      Map<String, Object> template,
      Map<String, Object> parameterValues,
      UnaryOperator<String> logicalIds) {
    this.logicalIds = logicalIds;
    this.parameters = new LinkedHashMap<>();
    CfnMaps.map(template.getOrDefault("Parameters", Map.of()))
        .forEach(
            (name, definition) -> {
              Object value =
                  parameterValues.containsKey(name)
                      ? parameterValues.get(name)
                      : CfnMaps.map(definition).get("Default");
              parameters.put(name, value);
            });
    this.conditionDefinitions = CfnMaps.map(template.getOrDefault("Conditions", Map.of()));
    CfnMaps.map(template.get("Resources"))
        .forEach(
            (id, resource) -> {
              Map<String, Object> r = CfnMaps.map(resource);
              if (r.containsKey("Condition") && !condition((String) r.get("Condition"))) {
                return;
              }
              Map<String, Object> resolved = CfnMaps.map(resolve(r));
              resolved.remove("Condition");
              resolved.remove("DependsOn");
              resolved.remove("Metadata");
              resources.put(logicalIds.apply(id), resolved);
            });
  }

  /** Resources by (renamed) logical id. */
  Map<String, Object> resources() {
    return resources;
  }

  boolean condition(String name) {
    Boolean known = conditions.get(name);
    if (known == null) {
      Object definition = conditionDefinitions.get(name);
      if (definition == null) {
        throw new IllegalArgumentException("no condition " + name);
      }
      known = evaluate(definition);
      conditions.put(name, known);
    }
    return known;
  }

  private boolean evaluate(Object expression) {
    Map<String, Object> m = CfnMaps.map(expression);
    if (m.containsKey("Condition")) {
      return condition((String) m.get("Condition"));
    }
    if (m.containsKey("Fn::Equals")) {
      List<Object> operands = CfnMaps.list(m.get("Fn::Equals"));
      return String.valueOf(resolve(operands.get(0)))
          .equals(String.valueOf(resolve(operands.get(1))));
    }
    if (m.containsKey("Fn::Not")) {
      return !evaluate(CfnMaps.list(m.get("Fn::Not")).get(0));
    }
    if (m.containsKey("Fn::Or")) {
      return CfnMaps.list(m.get("Fn::Or")).stream().anyMatch(this::evaluate);
    }
    if (m.containsKey("Fn::And")) {
      return CfnMaps.list(m.get("Fn::And")).stream().allMatch(this::evaluate);
    }
    throw new IllegalArgumentException("cannot evaluate condition " + expression);
  }

  private Object resolve(Object value) {
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      for (Object item : list) {
        Object resolved = resolve(item);
        if (resolved != NO_VALUE) {
          out.add(resolved);
        }
      }
      return out;
    }
    if (!(value instanceof Map<?, ?>)) {
      return value;
    }
    Map<String, Object> m = CfnMaps.map(value);
    if (m.size() == 1) {
      String key = m.keySet().iterator().next();
      Object argument = m.get(key);
      switch (key) {
        case "Ref":
          return ref((String) argument);
        case "Fn::GetAtt":
          List<Object> parts =
              argument instanceof String s ? List.of(s.split("\\.", 2)) : CfnMaps.list(argument);
          return "${" + logicalIds.apply((String) parts.get(0)) + "." + parts.get(1) + "}";
        case "Fn::Sub":
          return sub(argument);
        case "Fn::Join":
          {
            List<Object> join = CfnMaps.list(argument);
            List<String> pieces = new ArrayList<>();
            for (Object piece : CfnMaps.list(resolve(join.get(1)))) {
              pieces.add(String.valueOf(piece));
            }
            return String.join((String) join.get(0), pieces);
          }
        case "Fn::Split":
          {
            List<Object> split = CfnMaps.list(argument);
            String source = String.valueOf(resolve(split.get(1)));
            return new ArrayList<Object>(
                List.of(source.split(Pattern.quote((String) split.get(0)), -1)));
          }
        case "Fn::If":
          {
            List<Object> branches = CfnMaps.list(argument);
            return resolve(condition((String) branches.get(0)) ? branches.get(1) : branches.get(2));
          }
        default:
          break;
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    m.forEach(
        (k, v) -> {
          Object resolved = resolve(v);
          if (resolved != NO_VALUE) {
            out.put(k, resolved);
          }
        });
    return out;
  }

  private Object ref(String name) {
    if (name.equals("AWS::NoValue")) {
      return NO_VALUE;
    }
    if (parameters.containsKey(name)) {
      return parameters.get(name);
    }
    return "${" + (name.startsWith("AWS::") ? name : logicalIds.apply(name)) + "}";
  }

  private String sub(Object argument) {
    String text;
    Map<String, Object> variables = new LinkedHashMap<>();
    if (argument instanceof String s) {
      text = s;
    } else {
      List<Object> parts = CfnMaps.list(argument);
      text = (String) parts.get(0);
      CfnMaps.map(parts.get(1)).forEach((k, v) -> variables.put(k, resolve(v)));
    }
    Matcher m = SUB_VARIABLE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String name = m.group(1);
      Object replacement;
      if (variables.containsKey(name)) {
        replacement = variables.get(name);
      } else if (name.contains(".")) {
        String[] parts = name.split("\\.", 2);
        replacement = "${" + logicalIds.apply(parts[0]) + "." + parts[1] + "}";
      } else {
        replacement = ref(name);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(String.valueOf(replacement)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
