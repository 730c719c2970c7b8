package io.icecompact.core.rewrite;

import io.icecompact.core.job.RowOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeWrapper;

/**
 * Whether a group can take the columnar path, judged from table metadata and scan tasks alone (no
 * file is opened), so the planner can show the expected path and the worker can decide before
 * reading anything. The worker still checks each file's footer (schema written, encodings) and may
 * fall back to the generic path; its result says so.
 *
 * <p>Everything the columnar path does not reproduce exactly goes to the generic path: row order
 * changes (sort orders), repartitioning, nested values, per-column writer settings and encryption.
 */
public final class ColumnarEligibility {
  public static final String ELIGIBLE =
      "flat schema, Parquet files already in the output spec, default writer settings";

  private static final List<String> UNSUPPORTED_PROPERTY_PREFIXES =
      List.of(
          TableProperties.PARQUET_BLOOM_FILTER_COLUMN_ENABLED_PREFIX,
          TableProperties.PARQUET_COLUMN_STATS_ENABLED_PREFIX,
          TableProperties.PARQUET_DICT_ENCODING_ENABLED_COLUMN_PREFIX,
          TableProperties.ENCRYPTION_TABLE_KEY,
          TableProperties.PARQUET_SHRED_VARIANTS);

  private ColumnarEligibility() {}

  /**
   * The expected path of a group whose files are {@code tasks}, written under spec {@code
   * outputSpecId}.
   */
  public static RewritePath of(Table table, List<FileScanTask> tasks, int outputSpecId) {
    return of(table, tasks, outputSpecId, null);
  }

  /** The same, for a job that orders each group's rows by {@code rowOrder} (null: input order). */
  public static RewritePath of(
      Table table, List<FileScanTask> tasks, int outputSpecId, RowOrder rowOrder) {
    if (rowOrder != null) {
      return RewritePath.generic(
          "rows are written in sort order "
              + rowOrder.sortOrder()
              + ": the columnar path keeps input row order");
    }
    String problem = tableProblem(table);
    if (problem == null) {
      problem = taskProblem(table, tasks, outputSpecId);
    }
    return problem == null ? RewritePath.columnar(ELIGIBLE) : RewritePath.generic(problem);
  }

  /** Why no group of the table can take the columnar path, or null. */
  public static String tableProblem(Table table) {
    if (TableUtil.formatVersion(table) > 3) {
      return "format version "
          + TableUtil.formatVersion(table)
          + " is newer than the columnar path knows";
    }
    if (table.sortOrder().isSorted()) {
      return "the table has sort order "
          + table.sortOrder().orderId()
          + ": the columnar path keeps input row order";
    }
    List<String> unsupported = new ArrayList<>();
    for (Types.NestedField field : table.schema().columns()) {
      if (!isFlatPrimitive(field.type())) {
        unsupported.add(field.name() + " (" + field.type().typeId().name().toLowerCase() + ")");
      }
    }
    if (!unsupported.isEmpty()) {
      return "nested or unsupported column types: " + String.join(", ", unsupported);
    }
    Set<String> settings = new TreeSet<>();
    for (Map.Entry<String, String> property : table.properties().entrySet()) {
      for (String prefix : UNSUPPORTED_PROPERTY_PREFIXES) {
        if (property.getKey().startsWith(prefix)
            && !"false".equalsIgnoreCase(property.getValue().trim())) {
          settings.add(property.getKey());
        }
      }
    }
    String pageVersion =
        table
            .properties()
            .getOrDefault(
                TableProperties.PARQUET_PAGE_VERSION, TableProperties.PARQUET_PAGE_VERSION_DEFAULT);
    if (!"v1".equalsIgnoreCase(pageVersion.trim())) {
      settings.add(TableProperties.PARQUET_PAGE_VERSION + "=" + pageVersion);
    }
    String format =
        table
            .properties()
            .getOrDefault(
                TableProperties.DEFAULT_FILE_FORMAT, TableProperties.DEFAULT_FILE_FORMAT_DEFAULT);
    if (!"parquet".equalsIgnoreCase(format.trim())) {
      settings.add(TableProperties.DEFAULT_FILE_FORMAT + "=" + format);
    }
    if (!settings.isEmpty()) {
      return "table settings the columnar path does not apply: " + String.join(", ", settings);
    }
    return null;
  }

  private static String taskProblem(Table table, List<FileScanTask> tasks, int outputSpecId) {
    if (tasks.isEmpty()) {
      return "no input files";
    }
    PartitionSpec outputSpec = table.specs().get(outputSpecId);
    StructLikeWrapper partition = null;
    for (FileScanTask task : tasks) {
      ContentFile<?> file = task.file();
      if (file.format() != FileFormat.PARQUET) {
        return "input file is " + file.format() + ", not Parquet: " + file.location();
      }
      if (file.keyMetadata() != null) {
        return "input file is encrypted: " + file.location();
      }
      if (file.specId() != outputSpecId) {
        return "input file written under partition spec "
            + file.specId()
            + ", output spec is "
            + outputSpecId
            + " (repartitioning): "
            + file.location();
      }
      StructLikeWrapper filePartition =
          StructLikeWrapper.forType(outputSpec.partitionType()).set(file.partition());
      if (partition == null) {
        partition = StructLikeWrapper.forType(outputSpec.partitionType()).set(file.partition());
      } else if (!partition.equals(filePartition)) {
        return "input files of several partitions";
      }
      for (DeleteFile delete : task.deletes()) {
        String deleteProblem = deleteProblem(table.schema(), delete);
        if (deleteProblem != null) {
          return deleteProblem;
        }
      }
    }
    return null;
  }

  private static String deleteProblem(Schema schema, DeleteFile delete) {
    if (delete.content() != FileContent.EQUALITY_DELETES) {
      return null;
    }
    for (int id : delete.equalityFieldIds()) {
      Types.NestedField field = schema.findField(id);
      if (field == null
          || !isFlatPrimitive(field.type())
          || schema.findColumnName(id).contains(".")) {
        return "equality delete on field id "
            + id
            + ", not a top-level column of the schema: "
            + delete.location();
      }
    }
    return null;
  }

  private static boolean isFlatPrimitive(Type type) {
    if (!type.isPrimitiveType()) {
      return false;
    }
    return switch (type.typeId()) {
      case BOOLEAN,
          INTEGER,
          LONG,
          FLOAT,
          DOUBLE,
          DATE,
          TIME,
          TIMESTAMP,
          TIMESTAMP_NANO,
          STRING,
          UUID,
          FIXED,
          BINARY,
          DECIMAL ->
          true;
      default -> false;
    };
  }
}
