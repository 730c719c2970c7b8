package io.icecompact.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A local table's whole directory (catalog and files) copied over another: the bench builds a table
 * once and gives each run a fresh copy of it. The metadata names absolute paths, so a copy is only
 * usable back where the table was built.
 */
final class TableDirCopy {
  private TableDirCopy() {}

  /** Replaces {@code to} (if it exists) by a copy of {@code from}. */
  static void copy(Path from, Path to) {
    try {
      if (Files.exists(to)) {
        try (Stream<Path> walk = Files.walk(to)) {
          walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
      try (Stream<Path> walk = Files.walk(from)) {
        for (Path source : (Iterable<Path>) walk::iterator) {
          Path target = to.resolve(from.relativize(source).toString());
          if (Files.isDirectory(source)) {
            Files.createDirectories(target);
          } else {
            Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
