package io.icecompact.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/configuration.md's "Benchmark flags" section names every visible flag of each bench mode on
 * a line that also names the mode (`paths`) and gives the flag's default in that mode, so the
 * documented flags and defaults follow the code.
 */
class BenchFlagsDocTest {

  @Test
  void everyFlagOfEveryModeIsDocumentedWithTheModeAndItsDefault() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    int start = doc.indexOf("## Benchmark flags");
    assertThat(start).isNotNegative();
    int end = doc.indexOf("\n## ", start + 1);
    List<String> lines = doc.substring(start, end < 0 ? doc.length() : end).lines().toList();

    var modes = BenchMain.commandLine().getSubcommands();
    assertThat(modes.keySet())
        .containsExactly("paths", "memory", "e2e", "scale", "skipping", "commit-race", "convert");
    for (var mode : modes.entrySet()) {
      String name = mode.getKey();
      List<String> modeLines =
          lines.stream().filter(line -> line.contains("`" + name + "`")).toList();
      checkOptions(name, mode.getValue(), modeLines);
    }
  }

  private static void checkOptions(String mode, CommandLine cli, List<String> lines) {
    List<OptionSpec> visible =
        cli.getCommandSpec().options().stream()
            .filter(option -> !option.hidden() && !option.usageHelp() && !option.versionHelp())
            .toList();
    assertThat(visible).as(mode).isNotEmpty();
    for (OptionSpec option : visible) {
      Pattern flag = Pattern.compile(Pattern.quote(option.longestName()) + "(?![\\w-])");
      List<String> mentions = lines.stream().filter(line -> flag.matcher(line).find()).toList();
      assertThat(mentions).as(mode + " " + option.longestName()).isNotEmpty();
      if (option.defaultValue() != null) {
        assertThat(mentions)
            .as(mode + " " + option.longestName() + " default")
            .anyMatch(line -> line.contains(option.defaultValue()));
      }
    }
  }
}
