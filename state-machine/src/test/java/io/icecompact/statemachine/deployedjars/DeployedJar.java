package io.icecompact.statemachine.deployedjars;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A function's deployable jar ({@code <module>/target/icecompact-<module>-lambda.jar}, built by the
 * module's {@code package} phase) run in a fresh JVM with {@link CatalogProbe} or {@link
 * HandlerProbe}: the class path is the jar, the probe's own class files and any jar a deployment
 * adds next to it (a JDBC driver), never this test's class path.
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
    run(CatalogProbe.class, List.of(caseDir.toString(), outcomes.toString()), environment, workDir);
    if (!Files.isRegularFile(outcomes)) {
      throw new IllegalStateException("the probe on " + jar.getFileName() + " wrote no outcome");
    }
    Properties result = new Properties();
    try (InputStream in = Files.newInputStream(outcomes)) {
      result.load(in);
    }
    return result;
  }

  /** What one invocation answered: its output, or its failure (cause classes, stack trace). */
  record Answer(String output, String error) {
    boolean failed() {
      return error != null;
    }
  }

  /**
   * Invokes Lambda handler {@code handler} of the jar once per payload, in order, in one fresh JVM
   * ({@link HandlerProbe}: a warm container), and returns the answers in the payloads' order.
   */
  List<Answer> invoke(
      String handler, List<byte[]> payloads, Map<String, String> environment, Path workDir)
      throws IOException, InterruptedException {
    Path folder = Files.createDirectories(workDir.resolve("invocations"));
    for (int i = 0; i < payloads.size(); i++) {
      Files.write(folder.resolve(String.format("%05d.payload.json", i)), payloads.get(i));
    }
    run(HandlerProbe.class, List.of(handler, folder.toString()), environment, workDir);
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < payloads.size(); i++) {
      Path output = folder.resolve(String.format("%05d.answer.json", i));
      Path error = folder.resolve(String.format("%05d.error.txt", i));
      answers.add(
          new Answer(
              Files.isRegularFile(output) ? Files.readString(output) : null,
              Files.isRegularFile(error)
                  ? Files.readString(error)
                  : Files.isRegularFile(output) ? null : "no answer"));
    }
    return answers;
  }

  /**
   * Runs {@code main}, a probe class of this package, in a fresh JVM whose class path is the jar,
   * the extra jars and the probe's own class files.
   */
  private void run(
      Class<?> main, List<String> arguments, Map<String, String> environment, Path workDir)
      throws IOException, InterruptedException {
    Path log = workDir.resolve(main.getSimpleName() + ".log");
    List<String> classPath = new ArrayList<>();
    classPath.add(jar.toString());
    extraJars.forEach(extra -> classPath.add(extra.toString()));
    classPath.add(probeClasses(main, workDir.resolve("probe-classes")).toString());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // e.g. -Ddeployed-jars.jvm-args=-Xlog:class+load:file=/tmp/classes-%p.log: which classes a
    // function loads, the evidence for trimming a jar (docs/deploy.md, "Artifacts")
    String jvmArgs = System.getProperty("deployed-jars.jvm-args", "").trim();
    if (!jvmArgs.isEmpty()) {
      command.addAll(List.of(jvmArgs.split("\\s+")));
    }
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classPath));
    command.add(main.getName());
    command.addAll(arguments);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("CLASSPATH");
    builder.environment().putAll(environment);
    Process process = builder.start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly().waitFor();
      throw new IllegalStateException(
          main.getSimpleName() + " on " + jar.getFileName() + " did not end in 3 minutes; " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          main.getSimpleName()
              + " on "
              + jar.getFileName()
              + " exited with "
              + process.exitValue()
              + ":\n"
              + Files.readString(log, StandardCharsets.UTF_8));
    }
  }

  /** {@code main}'s class files alone (and its nested classes'), copied out of the test classes. */
  private static Path probeClasses(Class<?> main, Path target) throws IOException {
    Path classes;
    try {
      classes = Path.of(main.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IOException(e);
    }
    String packagePath = main.getPackageName().replace('.', '/');
    Path from = classes.resolve(packagePath);
    Path to = Files.createDirectories(target.resolve(main.getSimpleName()).resolve(packagePath));
    Map<Path, Path> copies = new LinkedHashMap<>();
    try (Stream<Path> files = Files.list(from)) {
      files
          .filter(
              f ->
                  f.getFileName()
                      .toString()
                      .matches(Pattern.quote(main.getSimpleName()) + "(\\$.*)?\\.class"))
          .forEach(f -> copies.put(f, to.resolve(f.getFileName())));
    }
    for (Map.Entry<Path, Path> copy : copies.entrySet()) {
      Files.copy(copy.getKey(), copy.getValue(), StandardCopyOption.REPLACE_EXISTING);
    }
    return target.resolve(main.getSimpleName());
  }
}
