package io.icecompact.statemachine;

import java.io.File;
import java.nio.file.Path;

/**
 * Jars of this JVM's class path, by Maven artifact, for tests that start another JVM with one of
 * them.
 */
public final class ClassPathJars {
  private ClassPathJars() {}

  /** The jar of Maven artifact {@code artifactId} on this JVM's class path. */
  public static Path find(String artifactId) {
    for (String candidate : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Path.of(candidate).getFileName().toString();
      if (name.startsWith(artifactId + "-") && name.endsWith(".jar")) {
        return Path.of(candidate);
      }
    }
    throw new IllegalStateException(
        artifactId + " is not on the class path (a dependency of this module or profile)");
  }
}
