package io.icecompact.statemachine.deployedjars;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The worker's jar runs Parquet on the jar's Jackson and Iceberg on Hadoop's shaded Guava (the
 * relocations of worker-fn/pom.xml: one copy of each, not two): every class, field and method that
 * a class of another library refers to in the relocated packages exists there, with that descriptor
 * (declared by the class or a super type). A dependency upgrade that breaks this fails here, before
 * any code path in Lambda reaches the missing member.
 */
class DeployedJarReferencesIT {
  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "org/apache/parquet/, com/fasterxml/jackson/",
    "org/apache/iceberg/, org/apache/hadoop/thirdparty/com/google/common/"
  })
  void everyReferenceIntoARelocatedPackageResolves(String from, String into) throws IOException {
    Path root =
        Path.of(System.getProperty("icecompact.repository.dir")).toAbsolutePath().normalize();
    Map<String, ClassFileReferences> classes = new HashMap<>();
    try (JarFile jar = new JarFile(DeployedJar.of(root, "worker-fn", List.of()).jar().toFile())) {
      for (JarEntry entry : jar.stream().toList()) {
        String name = entry.getName();
        if (name.endsWith(".class") && !name.startsWith("META-INF/")) {
          try (var in = jar.getInputStream(entry)) {
            ClassFileReferences file = ClassFileReferences.read(in.readAllBytes());
            classes.put(file.name(), file);
          }
        }
      }
    }
    TreeSet<String> missing = new TreeSet<>();
    int checked = 0;
    for (ClassFileReferences file : classes.values()) {
      if (!file.name().startsWith(from)) {
        continue;
      }
      for (String named : file.classes()) {
        String element = named.replaceFirst("^\\[+L?", "").replaceFirst(";$", "");
        if (element.startsWith(into) && !classes.containsKey(element)) {
          missing.add(file.name() + " names class " + element);
        }
      }
      for (ClassFileReferences.Member member : file.members()) {
        if (member.owner().startsWith(into)) {
          checked++;
          if (!declares(classes, member.owner(), member.key())) {
            missing.add(file.name() + " refers to " + member.owner() + "." + member.key());
          }
        }
      }
    }
    assertThat(checked).as("references from %s into %s", from, into).isPositive();
    assertThat(missing).as("references that do not resolve").isEmpty();
  }

  /**
   * Whether {@code owner} or one of its super types declares {@code key}; a super type outside the
   * jar (the JDK's) is taken to declare it, as the JDK's classes are not read here.
   */
  private static boolean declares(
      Map<String, ClassFileReferences> classes, String owner, String key) {
    List<String> toVisit = new ArrayList<>(List.of(owner));
    while (!toVisit.isEmpty()) {
      String type = toVisit.remove(toVisit.size() - 1);
      ClassFileReferences file = classes.get(type);
      if (file == null) {
        return !type.equals(owner); // a JDK super type; a missing owner does not declare it
      }
      if (file.declared().contains(key)) {
        return true;
      }
      if (file.superName() != null) {
        toVisit.add(file.superName());
      }
      toVisit.addAll(file.interfaces());
    }
    return false;
  }
}
