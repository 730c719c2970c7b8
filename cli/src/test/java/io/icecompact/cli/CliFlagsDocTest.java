package io.icecompact.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/configuration.md's "CLI flags" section names every visible flag of each command, on a line
 * that also gives the flag's default, so the documented defaults follow the code.
 */
class CliFlagsDocTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "compact",
        "convert-deletes",
        "plan",
        "health",
        "sweep",
        "history",
        "status",
        "demo"
      })
  void everyFlagIsDocumentedWithItsDefault(String command) throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    int start = doc.indexOf("## CLI flags");
    assertThat(start).isNotNegative();
    int end = doc.indexOf("\n## ", start + 1);
    List<String> lines = doc.substring(start, end < 0 ? doc.length() : end).lines().toList();

    CommandLine cli = IcecompactCli.commandLine().getSubcommands().get(command);
    for (OptionSpec option : cli.getCommandSpec().options()) {
      if (option.hidden() || option.usageHelp() || option.versionHelp()) {
        continue;
      }
      Pattern name = Pattern.compile(Pattern.quote(option.longestName()) + "(?![\\w-])");
      List<String> mentions = lines.stream().filter(line -> name.matcher(line).find()).toList();
      assertThat(mentions).as(command + " " + option.longestName()).isNotEmpty();
      if (option.defaultValue() != null) {
        assertThat(mentions)
            .as(command + " " + option.longestName() + " default")
            .anyMatch(line -> line.contains(option.defaultValue()));
      }
    }
  }
}
