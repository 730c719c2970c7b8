package io.icecompact.engine.care;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.WarehouseTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A local warehouse per test, a fragmented table, a compaction run embedded, and readers of
 * storage. Tests print their figures to stderr: they run concurrently with the CLI tests, which
 * check that nothing writes to System.out behind picocli's back.
 */
@Execution(ExecutionMode.CONCURRENT)
abstract class CareTestBase extends WarehouseTestBase {
  JobResult compact(Map<String, String> options, String where) {
    return new EmbeddedJobRunner(2, ProgressListener.NONE)
        .run(new JobSpec(null, TABLE, catalog, options, null, where, null));
  }

  static Path folder(Table table) {
    return Path.of(table.location().replaceFirst("^file:", ""));
  }

  /** Every file under the table's folder. */
  static List<Path> filesUnder(Path folder) {
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(folder)) {
      return files.filter(Files::isRegularFile).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Makes every file under {@code folder} look {@code age} old to a listing. */
  static void age(Path folder, Duration age) {
    filesUnder(folder).forEach(file -> ageFile(file, age));
  }

  static Path ageFile(Path file, Duration age) {
    try {
      Files.setLastModifiedTime(file, FileTime.from(Instant.now().minus(age)));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path write(Path file, String text) {
    try {
      Files.createDirectories(file.getParent());
      return Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every file {@code snapshot} reaches: its manifest list, manifests, data and delete files. */
  static List<String> filesOf(Table table, Snapshot snapshot) {
    List<String> files = new ArrayList<>();
    files.add(snapshot.manifestListLocation());
    for (ManifestFile manifest : snapshot.allManifests(table.io())) {
      files.add(manifest.path());
      try (CloseableIterable<? extends ContentFile<?>> entries =
          manifest.content() == org.apache.iceberg.ManifestContent.DATA
              ? ManifestFiles.read(manifest, table.io(), table.specs())
              : ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
        entries.forEach(file -> files.add(file.location()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return files;
  }

  static boolean exists(String location) {
    return Files.exists(Path.of(location.replaceFirst("^file:", "")));
  }
}
