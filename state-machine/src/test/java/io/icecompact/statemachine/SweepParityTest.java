package io.icecompact.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedSweep;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two runners of the sweep treat a table alike: the sweep state machine (read from its
 * definition) and {@link EmbeddedSweep} run a table's compaction once, record its failure by table
 * and go on with the others, and run its care steps after the same job statuses (the compaction
 * definition's {@code CareRequested?}).
 */
class SweepParityTest {
  private static final Set<String> START_REFUSED =
      Set.of(
          "StepFunctions.ExecutionLimitExceeded", "StepFunctions.ExecutionLimitExceededException");

  @Test
  void careFollowsTheSameJobStatusesInBothRunners() throws IOException {
    JsonNode careRequested =
        CompactionDefinition.state(CompactionDefinition.source().toFile(), "CareRequested?");
    Set<String> listed = new TreeSet<>();
    collectStatuses(careRequested, listed);

    Set<String> embedded =
        Arrays.stream(JobStatus.values())
            .filter(JobStatus::careMayFollow)
            .map(Enum::name)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(listed).as("statuses CareRequested? sends to CareForTable").isEqualTo(embedded);
  }

  @Test
  void aTableWhoseJobFailsIsTriedOnceAndRecordedWhileTheOthersGoOn(@TempDir Path warehouse)
      throws IOException {
    JsonNode compactTable =
        CompactionDefinition.state(
            CompactionDefinition.source("sweep.asl.json").toFile(), "CompactTable");
    List<String> retried = new ArrayList<>();
    compactTable
        .get("Retry")
        .forEach(r -> r.get("ErrorEquals").forEach(e -> retried.add(e.asText())));
    assertThat(retried)
        .as("only a refused start (nothing ran) is tried again")
        .isSubsetOf(START_REFUSED);
    JsonNode catchAll = compactTable.get("Catch").get(0);
    assertThat(catchAll.get("ErrorEquals").get(0).asText()).isEqualTo("States.ALL");
    JsonNode recorded =
        CompactionDefinition.state(
            CompactionDefinition.source("sweep.asl.json").toFile(), catchAll.get("Next").asText());
    assertThat(recorded.get("Type").asText())
        .as("a failed table ends its iteration, not the sweep")
        .isEqualTo("Pass");
    assertThat(recorded.get("End").asBoolean()).isTrue();
    assertThat(recorded.get("Parameters").has("table.$"))
        .as("the failure is recorded by table")
        .isTrue();

    Map<String, String> catalog = new LinkedHashMap<>(LocalWarehouse.catalogProperties(warehouse));
    catalog.put("io-impl", WorkLocationRefusingFileIO.class.getName());
    FragmentedTable.Shape shape = new FragmentedTable.Shape(2, 6, 200, 2, 0, 0, true);
    try (TableAccess access = new TableAccess(catalog)) {
      FragmentedTable.create(access.catalog(), TableIdentifier.parse("db.broken"), shape);
      FragmentedTable.create(access.catalog(), TableIdentifier.parse("db.fine"), shape);
    }
    WorkLocationRefusingFileIO.REFUSED_JOBS.clear();

    EmbeddedSweep.Result result = new EmbeddedSweep(1, line -> {}).run(catalog, List.of("db"), 10);

    assertThat(result.compacted()).isEqualTo(2);
    assertThat(WorkLocationRefusingFileIO.REFUSED_JOBS)
        .as("jobs started on the refusing table")
        .hasSize(1);
    EmbeddedSweep.TableSweep broken = table(result, "db.broken");
    assertThat(broken.job()).isNull();
    assertThat(broken.error()).contains("Access Denied");
    assertThat(broken.care()).as("no care after a job that did not run").isEmpty();
    assertThat(table(result, "db.fine").job().status()).isEqualTo(JobStatus.COMMITTED);
    assertThat(result.outcomes()).containsEntry("ERROR", 1).containsEntry("COMMITTED", 1);
  }

  private static EmbeddedSweep.TableSweep table(EmbeddedSweep.Result result, String name) {
    return result.tables().stream()
        .filter(t -> t.before().table().equals(name))
        .findFirst()
        .orElseThrow();
  }

  /** The job statuses a choice compares {@code $.result.status} to, at any depth of And/Or. */
  private static void collectStatuses(JsonNode node, Set<String> statuses) {
    if (node.isObject()
        && "$.result.status".equals(node.path("Variable").asText())
        && node.has("StringEquals")) {
      statuses.add(node.get("StringEquals").asText());
    }
    node.forEach(child -> collectStatuses(child, statuses));
  }
}
