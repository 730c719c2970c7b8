package io.icecompact.bench;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobJson;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/** How many groups took each rewrite path, and why: "columnar 8, generic 2 (nested columns)". */
final class RewritePathTally {
  private final Map<String, Integer> counts = new TreeMap<>();

  void add(GroupResult result) {
    // The reason is read from the stored document by name: results of workers that record none
    // (the generic-only worker) have no such field.
    add(
        result.rewritePath(),
        JobJson.mapper().valueToTree(result).path("rewrite_path_reason").asText(""));
  }

  /**
   * Reasons that end with the file they are about are counted together: "...: /path/file.parquet".
   */
  void add(String path, String reason) {
    String general = reason == null ? "" : reason.replaceFirst(":\\s*\\S+\\.parquet\\)?$", "");
    String key = path + (general.isBlank() ? "" : " (" + general + ")");
    counts.merge(key, 1, Integer::sum);
  }

  @Override
  public String toString() {
    return counts.entrySet().stream()
        .map(entry -> entry.getKey().replaceFirst("^(\\S+)", "$1 " + entry.getValue()))
        .collect(Collectors.joining(", "));
  }
}
