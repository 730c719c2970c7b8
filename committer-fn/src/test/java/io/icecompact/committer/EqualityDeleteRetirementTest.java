package io.icecompact.committer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.icecompact.core.job.ConvertedGroup;
import io.icecompact.core.job.EqualityDeleteScope;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which equality deletes a conversion retires, and which data files' new deletes it commits. */
class EqualityDeleteRetirementTest {
  private static final EqualityDeleteScope SCOPE =
      new EqualityDeleteScope(7L, Map.of("eq-a", 2, "eq-b", 3, "eq-global", 4));

  private static ConvertedGroup.File file(String dataFile, boolean wrote, String... deletes) {
    return new ConvertedGroup.File(
        dataFile,
        List.of(deletes),
        wrote ? 5 : 0,
        wrote
            ? JsonNodeFactory.instance.objectNode().put("file-path", dataFile + ".deletes")
            : null,
        List.of());
  }

  private static ConvertedGroup group(int index, ConvertedGroup.File... files) {
    return new ConvertedGroup("job", index, 1, 7L, List.of(files), 100, 1);
  }

  @Test
  void aDeleteIsRetiredOnlyWhenEveryDataFileItAppliesToWasConverted() {
    ConvertedGroup.File d1 = file("d1", true, "eq-a", "eq-global");
    ConvertedGroup.File d2 = file("d2", true, "eq-a", "eq-b", "eq-global");
    ConvertedGroup.File d3 = file("d3", false, "eq-b", "eq-global");
    EqualityDeleteRetirement retirement =
        EqualityDeleteRetirement.of(SCOPE, List.of(group(0, d1, d2), group(1, d3)));

    // eq-a: 2 of 2 files; eq-b: 2 of 3; eq-global: 3 of 4
    assertThat(retirement.retired()).containsExactly("eq-a");
    assertThat(retirement.kept()).containsExactlyInAnyOrder("eq-b", "eq-global");
    assertThat(retirement.commits(d1)).isTrue();
    assertThat(retirement.commits(d2)).isTrue();
    assertThat(retirement.commits(d3)).as("wrote nothing").isFalse();
    assertThat(retirement.fullyConverted(d1)).isFalse();
  }

  @Test
  void aFileWhoseDeletesAreAllKeptCommitsNothing() {
    ConvertedGroup.File d3 = file("d3", true, "eq-b");
    EqualityDeleteRetirement retirement = EqualityDeleteRetirement.of(SCOPE, List.of(group(0, d3)));

    assertThat(retirement.retired()).isEmpty();
    assertThat(retirement.commits(d3)).isFalse();
  }

  @Test
  void aDeleteTheScopeDoesNotKnowIsKept() {
    ConvertedGroup.File d9 = file("d9", true, "eq-unknown");
    EqualityDeleteRetirement retirement = EqualityDeleteRetirement.of(SCOPE, List.of(group(0, d9)));

    assertThat(retirement.retired()).isEmpty();
    assertThat(retirement.kept()).containsExactly("eq-unknown");
  }
}
