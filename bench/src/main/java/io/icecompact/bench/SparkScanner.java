package io.icecompact.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Full scans by Spark with Iceberg's Spark runtime (module bench-spark, {@code
 * io.icecompact.bench.spark.SparkScan}), each in a fresh JVM started from that module's own class
 * path: Spark's Jackson, Parquet and Hadoop never meet ours. The module's build leaves its classes
 * and the file naming its class path in its {@code target/}, which {@value #PROPERTY} names
 * (./icecompact and the bench's tests set it); without them the bench says so and scans with
 * Iceberg's generic reader only.
 */
final class SparkScanner {
  static final String PROPERTY = "icecompact.bench.spark-dir";

  private static final String MAIN = "io.icecompact.bench.spark.SparkScan";

  private static final String WRITE_MAIN = "io.icecompact.bench.spark.SparkWrite";

  /**
   * The JDK packages Spark's launcher opens on Java 17 (its {@code JavaModuleOptions}): the child
   * is started with plain java, not spark-submit. The heap is Spark's default driver memory.
   */
  private static final List<String> JAVA_OPTIONS =
      List.of(
          "-Xmx1g",
          "-XX:+IgnoreUnrecognizedVMOptions",
          "--add-opens=java.base/java.lang=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
          "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
          "--add-opens=java.base/java.io=ALL-UNNAMED",
          "--add-opens=java.base/java.net=ALL-UNNAMED",
          "--add-opens=java.base/java.nio=ALL-UNNAMED",
          "--add-opens=java.base/java.util=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
          "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
          "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
          "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
          "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
          "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
          "-Djdk.reflect.useDirectMethodHandle=false");

  private static final Pattern SPARK_JAR = Pattern.compile("spark-sql_[\\d.]+-([^/]+)\\.jar$");
  private static final Pattern RUNTIME_JAR =
      Pattern.compile("iceberg-spark-runtime-[\\d.]+_[\\d.]+-([^/]+)\\.jar$");

  private final String classPath;
  private final String label;

  private SparkScanner(String classPath, String label) {
    this.classPath = classPath;
    this.label = label;
  }

  /**
   * The scanner the build left in {@value #PROPERTY}'s directory, or the reason there is none, for
   * the report.
   */
  static Optional<SparkScanner> built(StringBuilder whyNot) {
    String dir = System.getProperty(PROPERTY);
    if (dir == null || dir.isBlank()) {
      whyNot.append("-D" + PROPERTY + " is not set (./icecompact bench sets it)");
      return Optional.empty();
    }
    Path classes = Path.of(dir, "classes");
    Path classPathFile = Path.of(dir, "spark-class-path.txt");
    if (!Files.isDirectory(classes) || !Files.isRegularFile(classPathFile)) {
      whyNot.append(dir + " holds no built bench-spark module (mvn -pl bench-spark package)");
      return Optional.empty();
    }
    String dependencies;
    try {
      dependencies = Files.readString(classPathFile).strip();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String label =
        "Spark "
            + version(SPARK_JAR, dependencies)
            + " with Iceberg "
            + version(RUNTIME_JAR, dependencies)
            + " (local mode)";
    return Optional.of(
        new SparkScanner(classes + java.io.File.pathSeparator + dependencies, label));
  }

  /** Which Spark and Iceberg, from their jars' names. */
  String label() {
    return label;
  }

  /**
   * A full scan of {@code table} with {@code threads} Spark task threads, then with {@code again}
   * the same scan in the warm session, without the delete files the first one cached.
   */
  ChildFigures scan(Map<String, String> catalog, String table, int threads, boolean again) {
    List<String> args =
        new ArrayList<>(List.of(table, Integer.toString(threads), Boolean.toString(again)));
    catalog.forEach((key, value) -> args.add(key + "=" + value));
    return ChildFigures.of(ChildJvm.run(JAVA_OPTIONS, classPath, MAIN, args), args);
  }

  /**
   * Creates {@code table} in {@code format} and {@code formatVersion} and writes it with Spark SQL
   * (inserts, a delete and an update, merge-on-read: {@code SparkWrite}); fails unless it ends.
   */
  void write(Map<String, String> catalog, String table, String format, int formatVersion) {
    List<String> args = new ArrayList<>(List.of(table, format, Integer.toString(formatVersion)));
    catalog.forEach((key, value) -> args.add(key + "=" + value));
    ChildJvm.Outcome outcome = ChildJvm.run(JAVA_OPTIONS, classPath, WRITE_MAIN, args);
    if (outcome.exitCode() != 0 || !outcome.out().contains("spark-write: done")) {
      throw new IllegalStateException(
          "Spark did not write " + table + " (exit " + outcome.exitCode() + "): " + outcome.err());
    }
  }

  private static String version(Pattern jar, String classPath) {
    for (String entry : classPath.split(java.io.File.pathSeparator)) {
      Matcher matcher = jar.matcher(entry);
      if (matcher.find()) {
        return matcher.group(1);
      }
    }
    return "?";
  }
}
