package io.icecompact.infra.cdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Folders for stand-in jars and cloud assemblies, under target/ so that `mvn clean` removes them.
 */
final class ScratchDirs {
  private static final Path BASE = Path.of("target", "test-scratch");

  private ScratchDirs() {}

  static Path create(String prefix) {
    try {
      Files.createDirectories(BASE);
      return Files.createTempDirectory(BASE, prefix).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
