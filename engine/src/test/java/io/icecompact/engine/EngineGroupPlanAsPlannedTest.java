package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.committer.JobCommitter;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable.Shape;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.GroupRewriter;
import io.icecompact.worker.PrefetchLimits;
import io.icecompact.worker.WorkerSettings;
import java.util.Map;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Workers whose group's manifests are too large to cross-check against the pinned snapshot rewrite
 * the group document's tasks as they are (here: every group, with a budget of 0 bytes). Those tasks
 * carry everything the rewrite needs: the delete files (v2 position and equality deletes, v3
 * deletion vectors) and, for v3 row lineage, each file's data sequence number, which Iceberg's JSON
 * leaves out.
 */
class EngineGroupPlanAsPlannedTest extends EngineTestBase {

  @ParameterizedTest(name = "format v{0}")
  @ValueSource(ints = {2, 3})
  void groupsRewrittenFromTheirDocumentsAloneKeepEveryLiveRowAndItsLineage(int formatVersion) {
    Table table = create(new Shape(4, 5, 200, formatVersion, 2, 10, true));
    Schema columns =
        formatVersion >= 3 ? MetadataColumns.schemaWithRowLineage(table.schema()) : table.schema();
    Map<String, Long> before = LiveRows.multiset(table, columns);

    JobSpec spec = job().withJobIdIfAbsent();
    JobResult result;
    try (TableAccess stage = new TableAccess(catalog)) {
      PlanSummary summary = new RewritePlanner(stage).plan(spec);
      assertThat(summary.groupCount()).isEqualTo(4);
      GroupRewriter asPlanned =
          new GroupRewriter(
              stage,
              WorkerSettings.defaults()
                  .withPrefetch(PrefetchLimits.DEFAULT)
                  .withColumnThreads(1)
                  .withCrossCheckManifestBytes(0));
      for (int index : summary.groupIndexes()) {
        asPlanned.rewrite(GroupRequest.of(spec, summary, index, 1));
      }
      result = new JobCommitter(stage).commit(CommitRequest.of(spec, summary));
    }

    assertStatus(result, JobStatus.COMMITTED);
    assertThat(result.rewrittenGroups()).isEqualTo(4);
    assertThat(result.verification().verified())
        .as(result.verification().problems().toString())
        .isTrue();
    table.refresh();
    assertThat(liveDataFiles(table)).hasSize(4);
    assertThat(LiveRows.multiset(table, columns)).isEqualTo(before);
  }
}
