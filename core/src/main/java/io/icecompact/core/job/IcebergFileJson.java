package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Reads Iceberg's {@code ContentFileParser} JSON back, including float and double partition values
 * that are not finite.
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
    if (value == null
        || !value.isTextual()
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
