package io.icecompact.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * An IAM policy document as the S3 stand-in evaluates it: an action on a resource is allowed when
 * an {@code Allow} statement matches it and no {@code Deny} statement does. {@code Action} and
 * {@code NotAction} match case-insensitively, {@code Resource} case-sensitively, both with {@code
 * *} and {@code ?} wildcards; {@code ${*}}, {@code ${?}} and {@code ${$}} stand for the characters
 * themselves.
 *
 * <p>Hand-written because no library on Maven Central evaluates IAM policies offline (AWS's own
 * evaluation runs only in IAM and its policy simulator, both remote). What it does not model:
 * {@code Condition}, {@code NotResource}, {@code Principal}, policy variables other than the three
 * escapes, and the other policies AWS intersects with a session policy (the role's identity policy,
 * bucket policies, SCPs, permission boundaries): the stand-in answers for the session policy alone,
 * which is what a stage's scoping adds.
 */
public final class IamPolicy {
  private record Statement(
      boolean allow, List<Pattern> actions, boolean notAction, List<Pattern> resources) {
    boolean matches(String action, String resource) {
      boolean actionMatches = actions.stream().anyMatch(p -> p.matcher(action).matches());
      return actionMatches != notAction
          && resources.stream().anyMatch(p -> p.matcher(resource).matches());
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private final String document;
  private final List<Statement> statements;

  private IamPolicy(String document, List<Statement> statements) {
    this.document = document;
    this.statements = statements;
  }

  /** Parses a policy document; an unsupported element is refused, not ignored. */
  public static IamPolicy parse(String document) {
    JsonNode root;
    try {
      root = JSON.readTree(document);
    } catch (IOException e) {
      throw new UncheckedIOException("Malformed policy document", e);
    }
    List<Statement> statements = new ArrayList<>();
    JsonNode list = root.get("Statement");
    for (JsonNode statement : list.isArray() ? list : List.of(list)) {
      for (String unsupported : List.of("Condition", "NotResource", "Principal")) {
        if (statement.has(unsupported)) {
          throw new IllegalArgumentException("IamPolicy does not model " + unsupported);
        }
      }
      boolean notAction = statement.has("NotAction");
      statements.add(
          new Statement(
              "Allow".equals(statement.get("Effect").asText()),
              patterns(statement.get(notAction ? "NotAction" : "Action"), true),
              notAction,
              patterns(statement.get("Resource"), false)));
    }
    return new IamPolicy(document, List.copyOf(statements));
  }

  public boolean allows(String action, String resource) {
    boolean allowed = false;
    for (Statement statement : statements) {
      if (statement.matches(action, resource)) {
        if (!statement.allow()) {
          return false;
        }
        allowed = true;
      }
    }
    return allowed;
  }

  public String document() {
    return document;
  }

  private static List<Pattern> patterns(JsonNode node, boolean caseInsensitive) {
    List<Pattern> patterns = new ArrayList<>();
    for (JsonNode value : node.isArray() ? node : List.of(node)) {
      String text = value.asText();
      patterns.add(
          Pattern.compile(
              regex(caseInsensitive ? text.toLowerCase(Locale.ROOT) : text),
              caseInsensitive ? Pattern.CASE_INSENSITIVE : 0));
    }
    return patterns;
  }

  private static String regex(String glob) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < glob.length(); i++) {
      char c = glob.charAt(i);
      if (c == '$'
          && glob.startsWith("${", i)
          && i + 3 < glob.length()
          && glob.charAt(i + 3) == '}') {
        out.append(Pattern.quote(String.valueOf(glob.charAt(i + 2))));
        i += 3;
      } else if (c == '*') {
        out.append(".*");
      } else if (c == '?') {
        out.append('.');
      } else {
        out.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return out.toString();
  }
}
