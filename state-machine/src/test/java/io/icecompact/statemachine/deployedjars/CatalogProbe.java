package io.icecompact.statemachine.deployedjars;

import io.icecompact.care.DeleteCleanupStep;
import io.icecompact.core.job.PinnedSnapshot;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Runs in a fresh JVM whose class path is a function's deployable jar (plus what a deployment adds
 * next to it, such as a JDBC driver) and this class alone: it uses only the jar's classes, so a
 * class the jar leaves out fails here as it would in Lambda. Started by {@link DeployedJar}.
 *
 * <p>Each case is a properties file: Iceberg catalog properties, handed to icecompact's {@link
 * TableAccess} as the planner and committer hand them, plus steps under {@code probe.}: {@code
 * probe.load} (a table to load through the catalog), {@code probe.set-property} (then commit this
 * value as a table property and read it back), {@code probe.pinned-metadata} and {@code
 * probe.pinned-snapshot} (load that metadata file without the catalog, as a worker does, and count
 * the live rows, or with {@code probe.delete-cleanup} run CareForTable's delete cleanup on it,
 * which decides from its manifests). Without steps, the catalog is only created (initialized). The
 * outcome of every case goes into one properties file, keyed by the case's name.
 */
public final class CatalogProbe {
  static final String STEP_PREFIX = "probe.";
  static final String LOAD = STEP_PREFIX + "load";
  static final String SET_PROPERTY = STEP_PREFIX + "set-property";
  static final String PINNED_METADATA = STEP_PREFIX + "pinned-metadata";
  static final String PINNED_SNAPSHOT = STEP_PREFIX + "pinned-snapshot";

  /**
   * With a pinned table: run delete cleanup on it (every delete applying: it decides and commits
   * nothing).
   */
  static final String DELETE_CLEANUP = STEP_PREFIX + "delete-cleanup";

  /** The table property {@link #SET_PROPERTY} commits. */
  static final String PROBE_PROPERTY = "icecompact.probe";

  private CatalogProbe() {}

  /** {@code args[0]}: the folder of case files; {@code args[1]}: the outcome file to write. */
  public static void main(String[] args) throws IOException {
    List<Path> cases;
    try (Stream<Path> files = Files.list(Path.of(args[0]))) {
      cases = files.filter(f -> f.toString().endsWith(".properties")).sorted().toList();
    }
    Properties outcomes = new Properties();
    for (Path file : cases) {
      String name = file.getFileName().toString().replaceFirst("\\.properties$", "");
      Map<String, String> outcome = run(read(file));
      outcome.forEach((key, value) -> outcomes.setProperty(name + "." + key, value));
    }
    try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
      outcomes.store(out, null);
    }
    // The AWS SDK and log4j leave non-daemon threads behind; the outcome is written.
    System.exit(0);
  }

  private static Map<String, String> run(Map<String, String> properties) {
    Map<String, String> steps = new TreeMap<>();
    Map<String, String> catalogProperties = new TreeMap<>();
    properties.forEach(
        (key, value) -> (key.startsWith(STEP_PREFIX) ? steps : catalogProperties).put(key, value));
    Map<String, String> outcome = new TreeMap<>();
    try (TableAccess access = new TableAccess(catalogProperties)) {
      if (steps.containsKey(PINNED_METADATA)) {
        Table table = access.loadPinned("probe", pinned(steps));
        if (steps.containsKey(DELETE_CLEANUP)) {
          outcome.putAll(CareProbe.deleteCleanup(table));
        } else {
          outcome.put("rows", Long.toString(liveRows(table)));
        }
      } else {
        outcome.put("catalog", access.catalog().getClass().getName());
      }
      if (steps.containsKey(LOAD)) {
        Table table = access.loadTable(steps.get(LOAD));
        outcome.put("metadata", TableAccess.metadataLocation(table));
        if (steps.containsKey(SET_PROPERTY)) {
          table.updateProperties().set(PROBE_PROPERTY, steps.get(SET_PROPERTY)).commit();
          outcome.put(
              "property", access.loadTable(steps.get(LOAD)).properties().get(PROBE_PROPERTY));
        }
      }
      outcome.put("outcome", "ok");
    } catch (Throwable e) { // LinkageErrors above all: they are what this probe is for
      outcome.put("outcome", "failed");
      outcome.put("error.classes", String.join(",", causeClasses(e)));
      outcome.put("error", stackTrace(e));
    }
    return outcome;
  }

  private static PinnedSnapshot pinned(Map<String, String> steps) {
    // Only the metadata location and the snapshot id matter to loadPinned.
    return new PinnedSnapshot(
        Long.parseLong(steps.get(PINNED_SNAPSHOT)), 0, steps.get(PINNED_METADATA), 0, 0, 0, 2);
  }

  /**
   * Live rows, every delete applied: reads the data and delete files as a worker does (Parquet,
   * S3FileIO).
   */
  private static long liveRows(Table table) throws IOException {
    long rows = 0;
    try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
      for (Record ignored : records) {
        rows++;
      }
    }
    return rows;
  }

  /** Its own class, so that the other jars, which have no care step, never load it. */
  private static final class CareProbe {
    static Map<String, String> deleteCleanup(Table table) {
      DeleteCleanupStep.Report report = new DeleteCleanupStep().run(table);
      Map<String, String> outcome = new TreeMap<>();
      outcome.put("position-deletes", Integer.toString(report.positionDeleteFilesBefore()));
      outcome.put("kept-may-apply", Integer.toString(report.keptMayApply()));
      outcome.put("removed", Integer.toString(report.removed().count()));
      outcome.put("committed", Boolean.toString(report.snapshotId() != null));
      outcome.put("problems", String.join("; ", report.problems()));
      return outcome;
    }
  }

  private static List<String> causeClasses(Throwable e) {
    List<String> classes = new ArrayList<>();
    for (Throwable t = e; t != null && classes.size() < 20; t = t.getCause()) {
      classes.add(t.getClass().getName());
      for (Throwable suppressed : t.getSuppressed()) {
        classes.add(suppressed.getClass().getName());
      }
    }
    return classes;
  }

  private static String stackTrace(Throwable e) {
    StringWriter text = new StringWriter();
    e.printStackTrace(new PrintWriter(text));
    return text.toString();
  }

  private static Map<String, String> read(Path file) throws IOException {
    Properties properties = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      properties.load(in);
    }
    Map<String, String> map = new TreeMap<>();
    properties.stringPropertyNames().forEach(key -> map.put(key, properties.getProperty(key)));
    return map;
  }
}
