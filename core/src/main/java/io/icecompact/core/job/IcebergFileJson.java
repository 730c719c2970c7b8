package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.icecompact.core.error.PlanIntegrityException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.ScanTaskParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads Iceberg's {@code ContentFileParser} and {@code ScanTaskParser} JSON back, including float and
 * double partition values that are not finite.
 *
 * <p>Iceberg writes NaN and ±Infinity partition values as the strings {@code "NaN"}, {@code
 * "Infinity"} and {@code "-Infinity"} (JSON has no such numbers), and its own parsers then reject
 * them ({@code Cannot parse default as a double value: "NaN"}). A string can be nothing else in a
 * float or double position, so those strings are turned back into the numbers, as tree nodes handed
 * to Iceberg's parsers. {@code -0.0} is written and read as a number and keeps its sign.
 */
public final class IcebergFileJson {
  private static final String PARTITION = "partition";

  private IcebergFileJson() {}

  /** A data or delete file of {@code specs}, as {@code ContentFileParser.fromJson}. */
  public static ContentFile<?> contentFile(JsonNode node, Map<Integer, PartitionSpec> specs) {
    JsonNode specId = node.get("spec-id");
    PartitionSpec spec = specId == null ? null : specs.get(specId.asInt());
    if (spec == null || !hasNonFinite(node, spec)) {
      return ContentFileParser.fromJson(node, specs);
    }
    return ContentFileParser.fromJson(withNumbers(node, spec), spec);
  }

  /** A scan task of the plan, as {@code ScanTaskParser.fromJson}. */
  public static FileScanTask scanTask(JsonNode node, boolean caseSensitive) {
    if (!mayHoldNonFinite(node.get("data-file")) && !anyMayHoldNonFinite(node.get("delete-files"))) {
      return ScanTaskParser.fromJson(node.toString(), caseSensitive);
    }
    Schema schema = SchemaParser.fromJson(node.get("schema"));
    PartitionSpec spec = PartitionSpecParser.fromJson(schema, node.get("spec"));
    JsonNode dataFile = node.get("data-file");
    JsonNode deleteFiles = node.get("delete-files");
    boolean nonFinite = dataFile != null && hasNonFinite(dataFile, spec);
    if (deleteFiles != null) {
      for (JsonNode deleteFile : deleteFiles) {
        nonFinite |= hasNonFinite(deleteFile, spec);
      }
    }
    if (!nonFinite) {
      return ScanTaskParser.fromJson(node.toString(), caseSensitive);
    }
    // ScanTaskParser only reads text, in which these values cannot be numbers: the task is built from
    // its parts as ScanTaskParser builds it.
    DataFile file = (DataFile) ContentFileParser.fromJson(withNumbers(dataFile, spec), spec);
    long start = node.path("start").asLong(0);
    long length = node.path("length").asLong(file.fileSizeInBytes());
    if (start != 0 || length != file.fileSizeInBytes()) {
      throw new PlanIntegrityException(
          "Cannot read the scan task of " + file.location() + ": a split of a file (start " + start
              + ", length " + length + ") with a non-finite partition value is not supported");
    }
    List<DeleteFile> deletes = new ArrayList<>();
    if (deleteFiles != null) {
      for (JsonNode deleteFile : deleteFiles) {
        deletes.add((DeleteFile) ContentFileParser.fromJson(withNumbers(deleteFile, spec), spec));
      }
    }
    Expression residual =
        node.has("residual-filter") ? ExpressionParser.fromJson(node.get("residual-filter")) : Expressions.alwaysTrue();
    return new BaseFileScanTask(
        file,
        deleteFiles == null ? null : deletes.toArray(DeleteFile[]::new),
        SchemaParser.toJson(schema),
        PartitionSpecParser.toJson(spec),
        ResidualEvaluator.of(spec, residual, caseSensitive));
  }

  /** Whether a file's partition holds a string that could stand for a non-finite number. */
  private static boolean mayHoldNonFinite(JsonNode file) {
    JsonNode partition = file == null ? null : file.get(PARTITION);
    if (partition == null || !partition.isArray()) {
      return false;
    }
    for (JsonNode value : partition) {
      if (value.isTextual() && nonFinite(Types.DoubleType.get(), value) != null) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyMayHoldNonFinite(JsonNode files) {
    if (files == null) {
      return false;
    }
    for (JsonNode file : files) {
      if (mayHoldNonFinite(file)) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasNonFinite(JsonNode file, PartitionSpec spec) {
    JsonNode partition = file.get(PARTITION);
    if (partition == null || !partition.isArray()) {
      return false;
    }
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < partition.size() && i < fields.size(); i++) {
      if (nonFinite(fields.get(i).type(), partition.get(i)) != null) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode withNumbers(JsonNode file, PartitionSpec spec) {
    ObjectNode copy = file.deepCopy();
    ArrayNode partition = (ArrayNode) copy.get(PARTITION);
    List<Types.NestedField> fields = spec.partitionType().fields();
    for (int i = 0; i < partition.size() && i < fields.size(); i++) {
      Double value = nonFinite(fields.get(i).type(), partition.get(i));
      if (value != null) {
        partition.set(i, DoubleNode.valueOf(value));
      }
    }
    return copy;
  }

  /** The non-finite number a float or double partition value's string stands for, else null. */
  private static Double nonFinite(Type type, JsonNode value) {
    if (value == null || !value.isTextual()
        || (type.typeId() != Type.TypeID.DOUBLE && type.typeId() != Type.TypeID.FLOAT)) {
      return null;
    }
    return switch (value.textValue()) {
      case "NaN" -> Double.NaN;
      case "Infinity" -> Double.POSITIVE_INFINITY;
      case "-Infinity" -> Double.NEGATIVE_INFINITY;
      default -> null;
    };
  }
}
