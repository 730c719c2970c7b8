package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.options.RewriteOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the options and input fields the code accepts. */
class ConfigurationDocTest {
  private static final Path ROOT =
      Path.of(System.getProperty("icecompact.state-machine.dir", ".")).getParent();

  @Test
  void everyRewriteOptionIsDocumentedAndNothingElse() throws Exception {
    assertThat(tableNames("## Rewrite options"))
        .isEqualTo(new TreeSet<>(RewriteOptions.validOptionNames()));
  }

  @Test
  void everyExecutionInputFieldIsDocumentedAndNothingElse() throws Exception {
    JsonNode schema =
        JobJson.mapper()
            .readTree(ROOT.resolve("state-machine/execution-input.schema.json").toFile());
    Set<String> fields = new TreeSet<>();
    schema.get("properties").fieldNames().forEachRemaining(fields::add);
    assertThat(tableNames("## Execution input")).isEqualTo(fields);
  }

  @Test
  void everySweepInputFieldIsDocumentedAndNothingElse() throws Exception {
    JsonNode schema =
        JobJson.mapper().readTree(ROOT.resolve("state-machine/sweep-input.schema.json").toFile());
    Set<String> fields = new TreeSet<>();
    schema.get("properties").fieldNames().forEachRemaining(fields::add);
    assertThat(tableNames("## Sweep input")).isEqualTo(fields);
  }

  /** First-column names (in backticks) of the table under {@code heading}. */
  private static Set<String> tableNames(String heading) throws Exception {
    String doc = Files.readString(ROOT.resolve("docs/configuration.md"));
    int start = doc.indexOf(heading);
    assertThat(start).as("section " + heading).isNotNegative();
    int end = doc.indexOf("\n## ", start + heading.length());
    String section = doc.substring(start, end < 0 ? doc.length() : end);
    Set<String> names = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| `([^`]+)` \\|").matcher(section);
    while (row.find()) {
      names.add(row.group(1));
    }
    return names;
  }
}
