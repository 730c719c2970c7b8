package io.icecompact.statemachine.deployedjars;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A function's deployable jar ({@code <module>/target/icecompact-<module>-lambda.jar}, built by the
 * module's {@code package} phase) run in a fresh JVM with {@link CatalogProbe}: the class path is
 * the jar, the probe's own class files and any jar a deployment adds next to it (a JDBC driver),
 * never this test's class path.
 */
final class DeployedJar {
  private final Path jar;
  private final List<Path> extraJars;

  private DeployedJar(Path jar, List<Path> extraJars) {
    this.jar = jar;
    this.extraJars = extraJars;
  }

  /**
   * The jar of function module {@code module} (e.g. {@code planner-fn}) under the repository root.
   */
  static DeployedJar of(Path repositoryRoot, String module, List<Path> extraJars) {
    Path jar =
        repositoryRoot
            .resolve(module)
            .resolve("target")
            .resolve("icecompact-" + module + "-lambda.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it with mvn package (mvn verify does)");
    }
    return new DeployedJar(jar, List.copyOf(extraJars));
  }

  Path jar() {
    return jar;
  }

  /**
   * Runs every case (name to properties, see {@link CatalogProbe}) in one JVM and returns the
   * outcomes, keyed {@code <case>.<key>}.
   *
   * @param environment the JVM's environment variables on top of this process's (credentials,
   *     region)
   */
  Properties probe(
      Map<String, Map<String, String>> cases, Map<String, String> environment, Path workDir)
      throws IOException, InterruptedException {
    Path caseDir = Files.createDirectories(workDir.resolve("cases"));
    for (Map.Entry<String, Map<String, String>> entry : cases.entrySet()) {
      Properties properties = new Properties();
      properties.putAll(entry.getValue());
      try (OutputStream out =
          Files.newOutputStream(caseDir.resolve(entry.getKey() + ".properties"))) {
        properties.store(out, null);
      }
    }
    Path outcomes = workDir.resolve("outcomes.properties");
    Path log = workDir.resolve("probe.log");

    List<String> classPath = new ArrayList<>();
    classPath.add(jar.toString());
    extraJars.forEach(extra -> classPath.add(extra.toString()));
    classPath.add(probeClasses(workDir.resolve("probe-classes")).toString());
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            String.join(File.pathSeparator, classPath),
            CatalogProbe.class.getName(),
            caseDir.toString(),
            outcomes.toString());
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("CLASSPATH");
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new IllegalStateException(
          "the probe on " + jar.getFileName() + " did not end in 3 minutes; " + log);
    }
    if (process.exitValue() != 0 || !Files.isRegularFile(outcomes)) {
      throw new IllegalStateException(
          "the probe on "
              + jar.getFileName()
              + " exited with "
              + process.exitValue()
              + ":\n"
              + Files.readString(log, StandardCharsets.UTF_8));
    }
    Properties result = new Properties();
    try (InputStream in = Files.newInputStream(outcomes)) {
      result.load(in);
    }
    return result;
  }

  /** CatalogProbe's class files alone, copied out of the test classes. */
  private static Path probeClasses(Path target) throws IOException {
    Path classes;
    try {
      classes =
          Path.of(CatalogProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    String packagePath = CatalogProbe.class.getPackageName().replace('.', '/');
    Path from = classes.resolve(packagePath);
    Path to = Files.createDirectories(target.resolve(packagePath));
    Map<Path, Path> copies = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(from)) {
      files
          .filter(f -> f.getFileName().toString().matches("CatalogProbe(\\$.*)?\\.class"))
          .forEach(f -> copies.put(f, to.resolve(f.getFileName())));
    }
    for (Map.Entry<Path, Path> copy : copies.entrySet()) {
      Files.copy(copy.getKey(), copy.getValue());
    }
    return target;
  }
}
