package io.icecompact.infra.cdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Files of this repository the tests compare the stack with (the build passes the root as a system
 * property).
 */
final class RepositoryFiles {
  private RepositoryFiles() {}

  static Path root() {
    return Path.of(System.getProperty("icecompact.root.dir", "../..")).toAbsolutePath().normalize();
  }

  static Path definitionFile() {
    return root().resolve("state-machine/compaction.asl.json");
  }

  static Path executionInputSchema() {
    return root().resolve("state-machine/execution-input.schema.json");
  }

  static Path samTemplate() {
    return root().resolve("infra/template.yaml");
  }

  static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
