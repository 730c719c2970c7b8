package io.icecompact.core.job;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.PlanIntegrityException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.FileSequenceNumbers;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;

/**
 * One group's scan tasks as stored in the job's work location ({@link WorkLocation#groupPlan}):
 * what one worker reads, instead of the whole plan.
 *
 * <p>Iceberg's {@code ScanTaskParser} writes the schema, the spec and every delete file inside each
 * task: about 2 KB per data file, and an equality delete that applies to a thousand data files is
 * written a thousand times. Here the schema and the specs are written once, each delete file once
 * (tasks name theirs by position), and every file with Iceberg's own {@code ContentFileParser}
 * under its own spec, next to its data and file sequence numbers, which that parser leaves out (see
 * {@link FileSequenceNumbers}). Tasks are rebuilt as Iceberg builds them ({@code
 * BaseFileScanTask}), sharing one schema and spec string each, so a group's tasks cost the worker
 * and the committer little memory, and equal the pinned snapshot's own scan tasks.
 *
 * <pre>
 * {"job_id": .., "group_index": .., "schema": {..}, "specs": [{..}],
 *  "delete_files": [{"file": {..}, "data_sequence_number": 4, "file_sequence_number": 4}],
 *  "tasks": [{"data_file": {..}, "data_sequence_number": 3, "file_sequence_number": 3, "deletes": [0]}]}
 * </pre>
 */
public final class GroupPlanDocument {
  private GroupPlanDocument() {}

  /** The document of group {@code groupIndex}; {@code specs} must hold the spec of every file. */
  public static byte[] toBytes(
      String jobId, int groupIndex, List<FileScanTask> tasks, Map<Integer, PartitionSpec> specs) {
    if (tasks.isEmpty()) {
      throw new IllegalArgumentException("Group " + groupIndex + " has no tasks");
    }
    Map<DeleteKey, Integer> deleteIndexes = new LinkedHashMap<>();
    List<DeleteFile> deletes = new ArrayList<>();
    Map<Integer, PartitionSpec> used = new TreeMap<>();
    for (FileScanTask task : tasks) {
      used.put(task.file().specId(), spec(specs, task.file()));
      for (DeleteFile delete : task.deletes()) {
        used.put(delete.specId(), spec(specs, delete));
        if (deleteIndexes.putIfAbsent(DeleteKey.of(delete), deletes.size()) == null) {
          deletes.add(delete);
        }
      }
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024 + 1024 * tasks.size());
    try (JsonGenerator json = JobJson.mapper().getFactory().createGenerator(bytes)) {
      json.writeStartObject();
      json.writeStringField("job_id", jobId);
      json.writeNumberField("group_index", groupIndex);
      json.writeFieldName("schema");
      SchemaParser.toJson(tasks.get(0).schema(), json);
      json.writeArrayFieldStart("specs");
      for (PartitionSpec spec : used.values()) {
        PartitionSpecParser.toJson(spec, json);
      }
      json.writeEndArray();
      json.writeArrayFieldStart("delete_files");
      for (DeleteFile delete : deletes) {
        json.writeStartObject();
        json.writeFieldName("file");
        ContentFileParser.toJson(delete, used.get(delete.specId()), json);
        writeSequenceNumbers(json, delete);
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeArrayFieldStart("tasks");
      for (FileScanTask task : tasks) {
        writeTask(json, task, used, deleteIndexes);
      }
      json.writeEndArray();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeTask(
      JsonGenerator json,
      FileScanTask task,
      Map<Integer, PartitionSpec> specs,
      Map<DeleteKey, Integer> deleteIndexes)
      throws IOException {
    DataFile file = task.file();
    if (task.start() != 0 || task.length() != file.fileSizeInBytes()) {
      // the bin-pack planner plans whole files; a split would need its offsets kept
      throw new IllegalArgumentException(
          "Cannot store a split of "
              + file.location()
              + " (start "
              + task.start()
              + ", length "
              + task.length()
              + "): groups hold whole files");
    }
    json.writeStartObject();
    json.writeFieldName("data_file");
    ContentFileParser.toJson(file, specs.get(file.specId()), json);
    writeSequenceNumbers(json, file);
    json.writeArrayFieldStart("deletes");
    for (DeleteFile delete : task.deletes()) {
      json.writeNumber(deleteIndexes.get(DeleteKey.of(delete)));
    }
    json.writeEndArray();
    Expression residual = task.residual();
    if (residual != null && residual.op() != Expression.Operation.TRUE) {
      json.writeFieldName("residual_filter");
      ExpressionParser.toJson(residual, json);
    }
    json.writeEndObject();
  }

  private static void writeSequenceNumbers(JsonGenerator json, ContentFile<?> file)
      throws IOException {
    if (file.dataSequenceNumber() != null) {
      json.writeNumberField("data_sequence_number", file.dataSequenceNumber());
    }
    if (file.fileSequenceNumber() != null) {
      json.writeNumberField("file_sequence_number", file.fileSequenceNumber());
    }
  }

  private static <F extends ContentFile<?>> F withSequenceNumbers(F file, JsonNode holder) {
    FileSequenceNumbers.set(
        file,
        longOrNull(holder.get("data_sequence_number")),
        longOrNull(holder.get("file_sequence_number")));
    return file;
  }

  private static Long longOrNull(JsonNode node) {
    return node == null || node.isNull() ? null : node.asLong();
  }

  /**
   * The tasks of a stored group document, refusing one that names another job or group. Values
   * Iceberg's parsers reject are a {@link PlanIntegrityException} naming {@code what}.
   */
  public static List<FileScanTask> tasks(byte[] bytes, String jobId, int groupIndex, String what) {
    JsonNode root;
    try {
      root = JobJson.mapper().readTree(bytes);
    } catch (IOException e) {
      throw new PlanIntegrityException("Cannot parse " + what + ": " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new PlanIntegrityException("Cannot parse " + what + ": not a JSON object");
    }
    if (!jobId.equals(root.path("job_id").asText(null))
        || root.path("group_index").asInt(-1) != groupIndex) {
      throw new PlanIntegrityException(
          String.format(
              "%s is group %s of job %s, not group %d of job %s",
              what,
              root.path("group_index").asText("?"),
              root.path("job_id").asText("?"),
              groupIndex,
              jobId));
    }
    try {
      return tasks(root);
    } catch (RuntimeException e) {
      throw new PlanIntegrityException("Cannot read the tasks of " + what + ": " + e, e);
    }
  }

  private static List<FileScanTask> tasks(JsonNode root) {
    Schema schema = SchemaParser.fromJson(root.get("schema"));
    String schemaString = SchemaParser.toJson(schema);
    Map<Integer, PartitionSpec> specs = new HashMap<>();
    Map<Integer, String> specStrings = new HashMap<>();
    for (JsonNode node : root.get("specs")) {
      PartitionSpec spec = PartitionSpecParser.fromJson(schema, node);
      specs.put(spec.specId(), spec);
      specStrings.put(spec.specId(), PartitionSpecParser.toJson(spec));
    }
    List<DeleteFile> deletes = new ArrayList<>();
    for (JsonNode node : root.get("delete_files")) {
      deletes.add(
          withSequenceNumbers(
              (DeleteFile) IcebergFileJson.contentFile(node.get("file"), specs), node));
    }
    Map<Integer, ResidualEvaluator> alwaysTrue = new HashMap<>();
    JsonNode taskNodes = root.get("tasks");
    List<FileScanTask> tasks = new ArrayList<>(taskNodes.size());
    for (JsonNode node : taskNodes) {
      DataFile file =
          withSequenceNumbers(
              (DataFile) IcebergFileJson.contentFile(node.get("data_file"), specs), node);
      PartitionSpec spec = specs.get(file.specId());
      JsonNode indexes = node.get("deletes");
      DeleteFile[] taskDeletes = new DeleteFile[indexes.size()];
      for (int i = 0; i < taskDeletes.length; i++) {
        taskDeletes[i] = deletes.get(indexes.get(i).asInt());
      }
      ResidualEvaluator residual =
          node.has("residual_filter")
              ? ResidualEvaluator.of(
                  spec, ExpressionParser.fromJson(node.get("residual_filter")), false)
              : alwaysTrue.computeIfAbsent(
                  spec.specId(), id -> ResidualEvaluator.of(spec, Expressions.alwaysTrue(), false));
      tasks.add(
          new BaseFileScanTask(
              file, taskDeletes, schemaString, specStrings.get(spec.specId()), residual));
    }
    return tasks;
  }

  private static PartitionSpec spec(Map<Integer, PartitionSpec> specs, ContentFile<?> file) {
    PartitionSpec spec = specs.get(file.specId());
    if (spec == null) {
      throw new IllegalArgumentException(
          "No partition spec "
              + file.specId()
              + " for "
              + file.location()
              + " (specs "
              + specs.keySet()
              + ")");
    }
    return spec;
  }

  /** Deletion vectors of one Puffin file share its location: tell them apart by their offset. */
  private record DeleteKey(String location, Long contentOffset) {
    static DeleteKey of(DeleteFile delete) {
      return new DeleteKey(delete.location(), delete.contentOffset());
    }
  }
}
