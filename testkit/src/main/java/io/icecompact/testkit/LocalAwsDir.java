package io.icecompact.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Finds the repository's {@code local-aws/} folder, where the testkit module's build installed
 * dynalite, aws-local-stepfunctions and asl-validator with {@code npm ci}, next to the node scripts
 * that drive them.
 *
 * <p>The system property {@code icecompact.local-aws.dir} wins; otherwise the folder is looked up
 * from the working directory upwards (Surefire runs each module's tests in that module's folder),
 * so a module that uses the testkit needs no configuration.
 */
final class LocalAwsDir {
  static final String PROPERTY = "icecompact.local-aws.dir";

  private LocalAwsDir() {}

  static Path resolve() {
    String configured = System.getProperty(PROPERTY);
    Path dir = null;
    if (configured != null && !configured.isBlank()) {
      dir = Paths.get(configured).toAbsolutePath().normalize();
    } else {
      for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
        if (Files.isRegularFile(p.resolve("local-aws").resolve("package.json"))) {
          dir = p.resolve("local-aws");
          break;
        }
      }
    }
    if (dir == null || !Files.isRegularFile(dir.resolve("package.json"))) {
      throw new IllegalStateException(
          "local-aws/ not found (looked "
              + (configured != null
                  ? "at " + configured
                  : "upwards from " + Paths.get("").toAbsolutePath())
              + "); set -D"
              + PROPERTY
              + "=<repository>/local-aws");
    }
    if (!Files.isDirectory(dir.resolve("node_modules"))) {
      throw new IllegalStateException(
          dir
              + "/node_modules is missing: build the testkit module (it runs npm ci) or run `npm ci --prefix "
              + dir
              + "`");
    }
    return dir;
  }

  /** The node executable: {@code icecompact.node} if set, else {@code node} from the PATH. */
  static String node() {
    return System.getProperty("icecompact.node", "node");
  }
}
