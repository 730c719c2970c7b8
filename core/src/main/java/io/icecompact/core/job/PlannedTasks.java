package io.icecompact.core.job;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ScanTaskParser;

/** Converts a group's scan tasks between Iceberg objects and the plan's JSON. */
public final class PlannedTasks {
  private PlannedTasks() {}

  public static List<JsonNode> toJson(List<FileScanTask> tasks) {
    List<JsonNode> json = new ArrayList<>(tasks.size());
    for (FileScanTask task : tasks) {
      json.add(JobJson.tree(ScanTaskParser.toJson(task)));
    }
    return json;
  }

  public static List<FileScanTask> fromJson(PlannedGroup group) {
    List<FileScanTask> tasks = new ArrayList<>(group.tasks().size());
    for (JsonNode node : group.tasks()) {
      tasks.add(IcebergFileJson.scanTask(node, false));
    }
    return tasks;
  }
}
