package io.icecompact.infra.cdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A definition of state-machine/ (compaction.asl.json, sweep.asl.json), as the build copies it into
 * this module's jar: the construct deploys this text unchanged, with its {@code ${...}}
 * placeholders filled by DefinitionSubstitutions, as SAM does.
 */
final class StateMachineDefinition {
  static final String RESOURCE = "compaction.asl.json";
  static final String SWEEP_RESOURCE = "sweep.asl.json";
  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]+)}");

  private final String text;

  private StateMachineDefinition(String text) {
    this.text = text;
  }

  /** The compaction state machine's definition. */
  static StateMachineDefinition bundled() {
    return bundled(RESOURCE);
  }

  static StateMachineDefinition bundled(String resource) {
    try (InputStream in = StateMachineDefinition.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is missing from the classpath (copied from state-machine/ by the build)");
      }
      return new StateMachineDefinition(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String text() {
    return text;
  }

  /** The names between {@code ${} and {@code }}, e.g. {@code AcquireLeaseFunctionArn}. */
  Set<String> placeholders() {
    Set<String> names = new TreeSet<>();
    Matcher m = PLACEHOLDER.matcher(text);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }
}
