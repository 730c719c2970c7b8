package io.icecompact.lease.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/operations.md lists exactly the metrics the functions emit. */
class MetricsDocTest {
  @Test
  void theMetricTablesOfTheOperationsDocMatchTheEmittedMetrics() throws IOException {
    Set<String> emitted = new TreeSet<>();
    JobResult result =
        JobResult.builder("job-1", "db.t", JobStatus.COMMITTED)
            .snapshotIds(List.of(1L))
            .rewrittenDataFilesCount(1)
            .addedDataFilesCount(1)
            .rewrittenBytesCount(1)
            .rewrittenGroups(1)
            .verification(new JobResult.Verification(true, List.of()))
            .durationMillis(1)
            .groups(List.of())
            .build();
    emitted.addAll(metricNames(JobMetrics.emf(result, 0)));
    emitted.addAll(
        metricNames(LeaseMetrics.emf("db.t", "job-1", LeaseMetrics.Outcome.ACQUIRED, 0)));

    String doc = Files.readString(Path.of("../docs/operations.md"), StandardCharsets.UTF_8);
    String metrics =
        doc.substring(
            doc.indexOf("## Metrics"), doc.indexOf("\n## ", doc.indexOf("## Metrics") + 1));
    Set<String> documented = new TreeSet<>();
    // First cells of the tables' rows: | `Name` | or | `A`, `B` | ...
    Matcher row = Pattern.compile("(?m)^\\| ([^|]+) \\|").matcher(metrics);
    while (row.find()) {
      Matcher name = Pattern.compile("`(\\w+)`").matcher(row.group(1));
      while (name.find()) {
        documented.add(name.group(1));
      }
    }
    assertThat(documented).isEqualTo(emitted);
  }

  @SuppressWarnings("unchecked")
  private static List<String> metricNames(Map<String, Object> emf) {
    Map<String, Object> aws = (Map<String, Object>) emf.get("_aws");
    Map<String, Object> directive =
        ((List<Map<String, Object>>) aws.get("CloudWatchMetrics")).get(0);
    return ((List<Map<String, String>>) directive.get("Metrics"))
        .stream().map(m -> m.get("Name")).toList();
  }
}
