package io.icecompact.worker.columnar;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * Whether a data file was written under the schema the output is written with: the same top-level
 * flat columns, each with the same field id, name, repetition, physical and logical type. Anything
 * else (an added, dropped, renamed or promoted column, a file without field ids) needs Iceberg's
 * schema projection, which only the generic path does.
 */
final class FooterCheck {
  private FooterCheck() {}

  /** The difference that rules the file out, or null when its columns are the output's. */
  static String problem(MessageType output, MessageType file, Set<Integer> mayBeAbsent) {
    Map<Integer, Type> fileFields = new HashMap<>();
    for (Type field : file.getFields()) {
      if (field.getId() == null) {
        return "column " + field.getName() + " has no field id";
      }
      if (!field.isPrimitive()) {
        return "column " + field.getName() + " is nested";
      }
      fileFields.put(field.getId().intValue(), field);
    }
    for (Type expected : output.getFields()) {
      Type written = fileFields.remove(expected.getId().intValue());
      if (written == null) {
        if (!mayBeAbsent.contains(expected.getId().intValue())) {
          return "column " + expected.getName() + " (id " + expected.getId() + ") is missing";
        }
      } else if (!written.equals(expected)) {
        return "column " + expected.getName() + " is written as '" + written + "', the schema has '" + expected + "'";
      }
    }
    if (!fileFields.isEmpty()) {
      return "column(s) not in the current schema: "
          + fileFields.values().stream().map(Type::getName).sorted().toList();
    }
    return null;
  }
}
