package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.testkit.LocalLambda;
import io.icecompact.testkit.LocalStateMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scenario 8: the definition is valid States Language once its placeholders are filled. */
class CompactionDefinitionTest {
  @TempDir Path dir;

  @Test
  void everyPlaceholderIsAFunctionArnAndTheSubstitutedDefinitionIsValid() throws Exception {
    assertThat(CompactionDefinition.placeholders(CompactionDefinition.sourceText()))
        .containsExactlyInAnyOrderElementsOf(
            java.util.List.of(
                "AcquireLeaseFunctionArn",
                "PlanRewriteFunctionArn",
                "RewriteGroupFunctionArn",
                "RecordGroupFailureFunctionArn",
                "CommitSnapshotFunctionArn",
                "CareForTableFunctionArn",
                "ReleaseLeaseFunctionArn",
                "ReleaseLeaseFunctionArn"));

    Path substituted = CompactionDefinition.writeForLocalLambda(dir);

    String text = Files.readString(substituted);
    assertThat(text).doesNotContain("${").contains("\"" + LocalLambda.arn("RewriteGroup") + "\"");
    try (LocalStateMachine validator = new LocalStateMachine(java.net.URI.create("http://127.0.0.1:1"))) {
      assertThat(validator.validate(substituted)).isEmpty();
    }
  }

  @Test
  void aPlaceholderLeftOrMissingFailsTheSubstitution() {
    Map<String, String> substitutions = new LinkedHashMap<>(CompactionDefinition.localLambdaSubstitutions());
    substitutions.remove("CommitSnapshotFunctionArn");
    assertThatThrownBy(() -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("placeholders left after substitution: [CommitSnapshotFunctionArn]");

    substitutions.put("CommitSnapshotFunctionArn", LocalLambda.arn("CommitSnapshot"));
    substitutions.put("CompactFunctionArn", LocalLambda.arn("Compact"));
    assertThatThrownBy(() -> CompactionDefinition.substitute(CompactionDefinition.sourceText(), substitutions))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the definition has no placeholder ${CompactFunctionArn}");
  }
}
