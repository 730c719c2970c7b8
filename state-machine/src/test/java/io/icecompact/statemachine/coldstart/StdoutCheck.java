package io.icecompact.statemachine.coldstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a function printed through the real runtime path (log4j2, the Lambda appender, the runtime
 * interface client's logger; EMF and the job line on System.out) must be one JSON object per line,
 * as CloudWatch gets it.
 */
final class StdoutCheck {
  private static final ObjectMapper JSON = new ObjectMapper();

  private StdoutCheck() {}

  static void requireJsonLines(Path stdout) throws IOException {
    int number = 0;
    for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
      number++;
      if (line.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = JSON.readTree(line);
      } catch (IOException e) {
        node = null;
      }
      if (node == null || !node.isObject()) {
        throw new IllegalStateException(stdout + ":" + number + " is not a JSON object: " + line);
      }
    }
  }
}
