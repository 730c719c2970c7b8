package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/reliability.md's matrix names tests that exist, and every scenario of the fault test classes
 * has its row: the matrix is what the tests prove, no more, no less.
 */
class ReliabilityDocTest {
  private static final Path ROOT =
      Path.of(System.getProperty("icecompact.state-machine.dir", ".")).getParent();

  /** The classes whose every test is a cell of the matrix. */
  private static final Set<Class<?>> MATRIX_CLASSES =
      Set.of(
          StateMachineS3FaultTest.class,
          StateMachineCommitUnknownTest.class,
          StateMachineWorkerTimeoutTest.class,
          StateMachineConvertTest.class);

  @Test
  void everyCellNamesAnExistingTestAndEveryFaultScenarioHasACell() throws Exception {
    String doc = Files.readString(ROOT.resolve("docs/reliability.md"));
    int start = doc.indexOf("## The matrix");
    assertThat(start).as("section ## The matrix").isNotNegative();
    int end = doc.indexOf("\n## ", start + 1);
    String matrix = doc.substring(start, end < 0 ? doc.length() : end);

    Set<String> named = new TreeSet<>();
    Matcher cell = Pattern.compile("(?m)^\\|.*`(\\w+)#(\\w+)` \\|$").matcher(matrix);
    while (cell.find()) {
      named.add(cell.group(1) + "#" + cell.group(2));
    }
    Set<String> existing = new TreeSet<>();
    for (String test : named) {
      String[] parts = test.split("#");
      Class<?> type = Class.forName(getClass().getPackageName() + "." + parts[0]);
      if (Arrays.stream(type.getDeclaredMethods())
          .anyMatch(m -> m.getName().equals(parts[1]) && isTest(m))) {
        existing.add(test);
      }
    }
    assertThat(existing).as("tests the matrix names").isEqualTo(named);

    Set<String> scenarios = new TreeSet<>();
    for (Class<?> type : MATRIX_CLASSES) {
      for (Method method : type.getDeclaredMethods()) {
        if (isTest(method)) {
          scenarios.add(type.getSimpleName() + "#" + method.getName());
        }
      }
    }
    assertThat(named).as("cells of the matrix").containsAll(scenarios);
  }

  private static boolean isTest(Method method) {
    return method.isAnnotationPresent(Test.class)
        || method.isAnnotationPresent(org.junit.jupiter.params.ParameterizedTest.class);
  }
}
