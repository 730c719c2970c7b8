package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.icecompact.core.error.WorkerOutOfMemoryException;
import io.icecompact.core.job.GroupOutcome;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.lambda.RewriteGroupHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * A worker that runs out of heap. Before, the OutOfMemoryError stopped the embedded runner with "A
 * worker thread failed unexpectedly", nothing named it, and the job stayed without a result
 * (NO_RESULT) for good.
 */
class EngineWorkerOutOfMemoryTest extends EngineTestBase {
  /** One day partition, so one group. */
  static final FragmentedTable.Shape ONE_GROUP =
      new FragmentedTable.Shape(1, 5, 200, 2, 2, 10, true);

  static final String REASON =
      String.format(
          "WorkerOutOfMemoryException: Group %%d ran out of memory (OutOfMemoryError: Java heap space) in a max heap"
              + " of %d MB; raise it with ICECOMPACT_JAVA_OPTS=-Xmx..., or plan smaller groups (max-file-group-size-bytes)",
          Runtime.getRuntime().maxMemory() / (1024 * 1024));

  /**
   * Throws an OutOfMemoryError from the worker of {@code group}, as a group too large for the heap
   * would.
   */
  static final class OutOfHeap implements GroupInterceptor {
    final int group;
    final List<Integer> attempts = new CopyOnWriteArrayList<>();
    final AtomicReference<PlanSummary> summary = new AtomicReference<>();

    OutOfHeap(int group) {
      this.group = group;
    }

    @Override
    public void beforeGroup(GroupRequest request) {
      if (request.groupIndex() == group) {
        attempts.add(request.attempt());
        throw new OutOfMemoryError("Java heap space");
      }
    }

    @Override
    public void beforeCommit(PlanSummary plan) {
      summary.set(plan);
    }
  }

  @Test
  void theOnlyGroupOutOfHeapFailsTheJobNamingTheHeapAndTheTableIsUntouched() {
    Table table = create(ONE_GROUP);
    Map<String, Long> rows = LiveRows.multiset(table);
    int snapshots = snapshots(table).size();
    OutOfHeap outOfHeap = new OutOfHeap(0);

    JobResult result = run(job(), outOfHeap);

    assertStatus(result, JobStatus.FAILED);
    assertThat(result.groups()).hasSize(1);
    GroupOutcome group = outcome(result, 0);
    assertThat(group.status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(group.reason()).isEqualTo(String.format(REASON, 0));
    assertThat(outOfHeap.attempts)
        .as("not retried: the same heap runs out the same way")
        .containsExactly(1);
    assertThat(snapshots(table)).hasSize(snapshots);
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    String stored = new WorkLocation(outOfHeap.summary.get().workLocation()).jobResult();
    assertThat(new JobStore(access.fileIO()).readDocument(stored, JobResult.class))
        .hasValueSatisfying(
            r -> {
              assertThat(r.status()).isEqualTo(JobStatus.FAILED);
              assertThat(outcome(r, 0).reason()).isEqualTo(String.format(REASON, 0));
            });
  }

  /** As on AWS, where each group has its own worker: the others are committed. */
  @Test
  void oneGroupOutOfHeapAmongOthersFailsAloneAndTheOthersCommit() {
    Table table = create(SMALL);
    Map<String, Long> rows = LiveRows.multiset(table);
    int snapshots = snapshots(table).size();

    JobResult result = run(job(), new OutOfHeap(2));

    assertStatus(result, JobStatus.PARTIAL);
    assertThat(outcome(result, 2).status()).isEqualTo(GroupOutcome.Status.FAILED);
    assertThat(outcome(result, 2).reason()).isEqualTo(String.format(REASON, 2));
    assertThat(result.rewrittenGroups()).isEqualTo(3);
    assertThat(snapshots(table)).hasSize(snapshots + 1);
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
  }

  /** Out of heap in a read of an input file, where a group too large for the heap runs out. */
  @Test
  void aReadOutOfHeapFailsItsGroupNamedAndTheJobEnds() {
    Table table = create(SMALL);
    Map<String, Long> rows = LiveRows.multiset(table);
    List<FileScanTask> tasks = liveTasks(table);
    String partition = partitionPath(table, tasks.get(0));
    List<FileScanTask> partitionTasks =
        tasks.stream().filter(task -> partitionPath(table, task).equals(partition)).toList();
    // the partition's last data file only: the group has read others when it runs out
    String last = partitionTasks.get(partitionTasks.size() - 1).file().location();
    String warehouseKey = warehouse.toAbsolutePath().toString();
    OutOfHeapFileIO.arm(warehouseKey, path -> path.equals(last));
    try {
      JobResult result =
          assertTimeoutPreemptively(Duration.ofMinutes(2), () -> run(outOfHeapJob()));

      assertStatus(result, JobStatus.PARTIAL);
      List<GroupOutcome> failed =
          result.groups().stream().filter(g -> g.status() == GroupOutcome.Status.FAILED).toList();
      assertThat(failed).hasSize(1);
      assertThat(failed.get(0).partition()).isEqualTo(partition);
      assertThat(failed.get(0).reason())
          .isEqualTo(String.format(REASON, failed.get(0).groupIndex()));
      assertThat(LiveRows.multiset(table)).isEqualTo(rows);
    } finally {
      OutOfHeapFileIO.disarm(warehouseKey);
    }
  }

  /**
   * The deployed worker: the Map's Catch records the typed error, which names the Lambda's setting.
   */
  @Test
  void theLambdaWorkerOutOfHeapThrowsTheTypedErrorNamingTheMemorySize() throws Exception {
    Table table = create(SMALL);
    JobSpec job = outOfHeapJob().withJobIdIfAbsent();
    PlanSummary plan =
        new RewritePlanner(access)
            .plan(new JobSpec(job.jobId(), TABLE, catalog, Map.of(), null, null, null));
    String partition = partitionPath(table, groupTasks(plan, 0).get(0));
    String warehouseKey = warehouse.toAbsolutePath().toString();
    OutOfHeapFileIO.arm(warehouseKey, path -> path.contains("/" + partition + "/"));
    byte[] input = JobJson.toBytes(Map.of("group", GroupRequest.of(job, plan, 0, 1)));
    try {
      assertThatThrownBy(
              () ->
                  new RewriteGroupHandler(DeploymentScope.unrestricted())
                      .handleRequest(
                          new ByteArrayInputStream(input), new ByteArrayOutputStream(), null))
          .isExactlyInstanceOf(WorkerOutOfMemoryException.class)
          .hasMessage(
              String.format(
                  Locale.ROOT,
                  "Group 0 ran out of memory (OutOfMemoryError: Java heap space) in a max heap of %d MB; raise it with"
                      + " the worker function's MemorySize (the WorkerMemorySize parameter), or plan smaller groups"
                      + " (max-file-group-size-bytes)",
                  Runtime.getRuntime().maxMemory() / (1024 * 1024)));
    } finally {
      OutOfHeapFileIO.disarm(warehouseKey);
    }
  }

  private JobSpec outOfHeapJob() {
    Map<String, String> outOfHeap = new LinkedHashMap<>(catalog);
    outOfHeap.put("io-impl", OutOfHeapFileIO.class.getName());
    return new JobSpec(null, TABLE, outOfHeap, Map.of(), null, null, null);
  }

  private static String partitionPath(Table table, FileScanTask task) {
    return table.specs().get(task.file().specId()).partitionToPath(task.file().partition());
  }
}
