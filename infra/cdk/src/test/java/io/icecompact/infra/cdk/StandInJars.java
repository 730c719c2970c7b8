package io.icecompact.infra.cdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A folder laid out like a built checkout, {@code <module>/target/icecompact-<module>-lambda.jar},
 * with a small file in place of each jar: FunctionCode.fromBuiltJars stages them as real CDK file
 * assets, without a build and without hashing and copying five ~50 MB jars per synthesis (about 2 s
 * each time, measured).
 */
final class StandInJars {
  static final List<String> MODULES =
      List.of("lease-fn", "planner-fn", "worker-fn", "committer-fn", "care-fn");

  private StandInJars() {}

  /** The content of a module's stand-in jar, to recognise it among the staged assets. */
  static String content(String module) {
    return "stand-in for " + FunctionCode.jarName(module);
  }

  static Path create() {
    try {
      Path root = ScratchDirs.create("jars");
      for (String module : MODULES) {
        Path jar = root.resolve(module).resolve("target").resolve(FunctionCode.jarName(module));
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, content(module), StandardCharsets.UTF_8);
      }
      return root;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
