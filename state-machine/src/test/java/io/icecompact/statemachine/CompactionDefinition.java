package io.icecompact.statemachine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.icecompact.testkit.LocalLambda;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The state machine definition the deployment uses, {@code state-machine/compaction.asl.json}, with
 * its {@code ${...}} placeholders filled in as CloudFormation's {@code DefinitionSubstitutions}
 * fills them: every occurrence of {@code ${Name}} in the text is replaced by the value given for
 * {@code Name}, and nothing else is touched. Here the values are {@link LocalLambda#arn} of the
 * functions the tests register, so the definition's Task states reach the real handlers in the test
 * JVM.
 */
final class CompactionDefinition {
  /** Lambda function names, as the tests register them on {@link LocalLambda}. */
  static final String ACQUIRE_LEASE = "AcquireLease";

  static final String PLAN_REWRITE = "PlanRewrite";
  static final String REWRITE_GROUP = "RewriteGroup";
  static final String RECORD_GROUP_FAILURE = "RecordGroupFailure";
  static final String COMMIT_SNAPSHOT = "CommitSnapshot";
  static final String RELEASE_LEASE = "ReleaseLease";
  static final String CARE_FOR_TABLE = "CareForTable";

  /**
   * Placeholder name → function name; the deployment maps the same placeholders to its functions'
   * ARNs.
   */
  static final Map<String, String> FUNCTIONS = functions();

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");

  private CompactionDefinition() {}

  private static Map<String, String> functions() {
    Map<String, String> functions = new LinkedHashMap<>();
    functions.put("AcquireLeaseFunctionArn", ACQUIRE_LEASE);
    functions.put("PlanRewriteFunctionArn", PLAN_REWRITE);
    functions.put("RewriteGroupFunctionArn", REWRITE_GROUP);
    functions.put("RecordGroupFailureFunctionArn", RECORD_GROUP_FAILURE);
    functions.put("CommitSnapshotFunctionArn", COMMIT_SNAPSHOT);
    functions.put("ReleaseLeaseFunctionArn", RELEASE_LEASE);
    functions.put("CareForTableFunctionArn", CARE_FOR_TABLE);
    return Map.copyOf(functions);
  }

  /**
   * The definition file itself: {@code compaction.asl.json} in the folder named by the system
   * property {@code icecompact.state-machine.dir} (set by this module's build), else in the working
   * directory.
   */
  static Path source() {
    return source("compaction.asl.json");
  }

  /** A file of the {@code state-machine} folder (found as {@link #source()} is). */
  /**
   * The state named {@code name} in the definition {@code file}, at any depth (a Map's item
   * processor).
   */
  static JsonNode state(File file, String name) throws IOException {
    JsonNode found = find(new ObjectMapper().readTree(file), name);
    if (found == null) {
      throw new IllegalStateException(file + " has no state " + name);
    }
    return found;
  }

  private static JsonNode find(JsonNode node, String name) {
    JsonNode states = node.isObject() ? node.get("States") : null;
    if (states != null && states.has(name)) {
      return states.get(name);
    }
    for (JsonNode child : node) {
      JsonNode found = find(child, name);
      if (found != null) {
        return found;
      }
    }
    return null;
  }

  static Path source(String fileName) {
    Path dir = Paths.get(System.getProperty("icecompact.state-machine.dir", ""));
    Path file = dir.resolve(fileName).toAbsolutePath().normalize();
    if (!Files.isRegularFile(file)) {
      throw new IllegalStateException(
          file + " not found; set -Dicecompact.state-machine.dir=<repository>/state-machine");
    }
    return file;
  }

  static String sourceText() {
    try {
      return Files.readString(source(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The placeholders of {@code text}, in order of appearance, repeats included. */
  static List<String> placeholders(String text) {
    Matcher matcher = PLACEHOLDER.matcher(text);
    List<String> names = new java.util.ArrayList<>();
    while (matcher.find()) {
      names.add(matcher.group(1));
    }
    return names;
  }

  /**
   * Replaces {@code ${Name}} by {@code substitutions.get(Name)}, as DefinitionSubstitutions does.
   *
   * @throws IllegalStateException when a placeholder is left (the definition names a function
   *     nobody provides), or a substitution is not used (the definition lost a placeholder it
   *     should have)
   */
  static String substitute(String text, Map<String, String> substitutions) {
    String result = text;
    for (Map.Entry<String, String> substitution : substitutions.entrySet()) {
      String placeholder = "${" + substitution.getKey() + "}";
      if (!result.contains(placeholder)) {
        throw new IllegalStateException("the definition has no placeholder " + placeholder);
      }
      result = result.replace(placeholder, substitution.getValue());
    }
    List<String> left = placeholders(result);
    if (!left.isEmpty()) {
      throw new IllegalStateException("placeholders left after substitution: " + left);
    }
    return result;
  }

  /** The placeholders mapped to the {@link LocalLambda} ARNs of the functions. */
  static Map<String, String> localLambdaSubstitutions() {
    Map<String, String> substitutions = new LinkedHashMap<>();
    FUNCTIONS.forEach(
        (placeholder, function) -> substitutions.put(placeholder, LocalLambda.arn(function)));
    return substitutions;
  }

  /**
   * Writes the substituted definition to {@code dir/compaction.asl.json} (the runner names the
   * state machine after the file: {@code compaction}) and returns its path.
   */
  static Path writeForLocalLambda(Path dir) {
    Path file = dir.resolve("compaction.asl.json");
    try {
      Files.writeString(
          file, substitute(sourceText(), localLambdaSubstitutions()), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
