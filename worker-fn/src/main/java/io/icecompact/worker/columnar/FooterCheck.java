package io.icecompact.worker.columnar;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.Schema;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;

/**
 * Whether a data file's columns can be copied into the output's, matched by field id as Iceberg's
 * readers match them. Allowed: another name (a renamed column), a {@code required} column under an
 * optional field (Spark writes a non-nullable DataFrame column so; its values gain definition
 * levels), and columns the schema no longer has (dropped; left out, as Iceberg's readers leave them
 * out). Anything else (a promoted or otherwise different type, a file without field ids, nested
 * columns, an absent column with a default) needs Iceberg's schema projection, which only the
 * generic path does.
 */
final class FooterCheck {
  private FooterCheck() {}

  /**
   * The difference that rules the file out, or null when each output column has a copyable source.
   */
  static String problem(MessageType output, MessageType file, Set<Integer> mayBeAbsent) {
    Map<Integer, Type> fileFields = new HashMap<>();
    for (Type field : file.getFields()) {
      if (field.getId() == null) {
        return "column " + field.getName() + " has no field id";
      }
      fileFields.put(field.getId().intValue(), field);
    }
    for (Type expected : output.getFields()) {
      Type written = fileFields.get(expected.getId().intValue());
      if (written == null) {
        if (!mayBeAbsent.contains(expected.getId().intValue())) {
          return "column "
              + expected.getName()
              + " (id "
              + expected.getId()
              + ") is missing and is required or has an initial default";
        }
      } else if (!written.isPrimitive()) {
        return "column " + written.getName() + " (id " + written.getId() + ") is nested";
      } else {
        String difference = difference(written.asPrimitiveType(), expected.asPrimitiveType());
        if (difference != null) {
          return "column "
              + expected.getName()
              + " is written as '"
              + written
              + "', the schema has '"
              + expected
              + "' ("
              + difference
              + ")";
        }
      }
    }
    return null;
  }

  /**
   * The equality delete keyed on a column the file does not store, or null. Such a column was added
   * after the file was written and its rows read it as null (or its initial default); {@link
   * DeletedRows} reads keys from the file's own columns only, so the generic path applies that
   * delete.
   */
  static String missingDeleteKey(
      MessageType file, String fileLocation, List<DeleteFile> deletes, Schema schema) {
    for (DeleteFile delete : deletes) {
      if (delete.content() != FileContent.EQUALITY_DELETES) {
        continue;
      }
      for (int id : delete.equalityFieldIds()) {
        if (columnWithId(file, id) == null) {
          return "equality delete on column "
              + schema.findColumnName(id)
              + " (id "
              + id
              + "), which data file "
              + fileLocation
              + " does not contain: "
              + delete.location();
        }
      }
    }
    return null;
  }

  /** What keeps {@code written} from being copied as {@code expected}, or null. */
  private static String difference(PrimitiveType written, PrimitiveType expected) {
    boolean samePhysical =
        written.getPrimitiveTypeName() == expected.getPrimitiveTypeName()
            && written.getTypeLength() == expected.getTypeLength();
    if (!samePhysical && !ColumnCopier.isFixedDecimalToInteger(written, expected)) {
      return "another physical type";
    }
    if (!Objects.equals(written.getLogicalTypeAnnotation(), expected.getLogicalTypeAnnotation())) {
      return "another logical type";
    }
    if (written.getRepetition() == expected.getRepetition()
        || written.getRepetition() == Repetition.REQUIRED
            && expected.getRepetition() == Repetition.OPTIONAL) {
      return null;
    }
    return written.getRepetition() == Repetition.OPTIONAL
        ? "optional in the file, required in the schema"
        : "repeated";
  }

  /** The file's column of field {@code id}, or null. */
  static PrimitiveType columnWithId(MessageType file, int id) {
    for (Type field : file.getFields()) {
      if (field.getId() != null && field.getId().intValue() == id && field.isPrimitive()) {
        return field.asPrimitiveType();
      }
    }
    return null;
  }
}
