package io.icecompact.statemachine;

import io.icecompact.testkit.LocalLambda;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sweep's definition, {@code state-machine/sweep.asl.json}, with its placeholders filled in as
 * {@code DefinitionSubstitutions} fills them ({@link CompactionDefinition#substitute}): the
 * AssessTables function's {@link LocalLambda} ARN and the ARN the tests give the compaction state
 * machine, whose definition the runner executes for each child ({@code
 * LocalStateMachine#childDefinition}).
 */
final class SweepDefinition {
  /** The Lambda function name the tests register AssessTablesHandler under. */
  static final String ASSESS_TABLES = "AssessTables";

  /** The compaction state machine's ARN as the sweep names it in the tests. */
  static final String COMPACTION_STATE_MACHINE_ARN =
      "arn:aws:states:us-east-1:123456789012:stateMachine:compaction";

  private SweepDefinition() {}

  static Map<String, String> localSubstitutions() {
    Map<String, String> substitutions = new LinkedHashMap<>();
    substitutions.put("AssessTablesFunctionArn", LocalLambda.arn(ASSESS_TABLES));
    substitutions.put("CompactionStateMachineArn", COMPACTION_STATE_MACHINE_ARN);
    return substitutions;
  }

  /** Writes the substituted definition to {@code dir/sweep.asl.json} and returns its path. */
  static Path writeForLocalLambda(Path dir) {
    Path file = dir.resolve("sweep.asl.json");
    try {
      String text =
          Files.readString(CompactionDefinition.source("sweep.asl.json"), StandardCharsets.UTF_8);
      Files.writeString(
          file,
          CompactionDefinition.substitute(text, localSubstitutions()),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
