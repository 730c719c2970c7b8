package io.icecompact.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.TransientException;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.engine.soak.FaultingLocalFileIO;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.planner.lambda.PlanRewriteHandler;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.net.SocketException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * Storage that resets the connection, as S3 does under load, in a stage: the stage names it a
 * {@link TransientException} (the state machine's Retry matches the class), so the embedded runner
 * and the Lambda handler get the same typed error with the same message. Before, only the handlers
 * classified, and the embedded runner stopped with the storage's own exception.
 */
class EngineTransientStageFailureTest extends EngineTestBase {
  static final String RESET = "(caused by SocketException: Connection reset)";

  @Test
  void storageFailingWhileThePlannerReadsManifestsIsTheSameTransientErrorInBothRunners() {
    Table table = create(SMALL);
    int before = snapshots(table).size();
    Map<String, String> resetting = new LinkedHashMap<>(catalog);
    resetting.put("io-impl", ReadFaultFileIO.class.getName());
    JobSpec job =
        new JobSpec(null, TABLE, resetting, Map.of(), null, null, null).withJobIdIfAbsent();
    String expected = "Cannot plan job " + job.jobId() + " of " + TABLE + ": ";
    byte[] handlerInput = JobJson.toBytes(Map.of("job", job));
    ReadFaultFileIO.arm(
        warehouseKey(),
        path -> path.contains("/metadata/") && path.endsWith(".avro"),
        () ->
            new UncheckedIOException(
                "injected: cannot read", new SocketException("Connection reset")));
    try {
      assertThatThrownBy(() -> run(job))
          .isExactlyInstanceOf(TransientException.class)
          .hasMessageStartingWith(expected)
          .hasMessageEndingWith(RESET);
      assertThatThrownBy(
              () ->
                  new PlanRewriteHandler(DeploymentScope.unrestricted())
                      .handleRequest(
                          new ByteArrayInputStream(handlerInput),
                          new ByteArrayOutputStream(),
                          null))
          .isExactlyInstanceOf(TransientException.class)
          .hasMessageStartingWith(expected)
          .hasMessageEndingWith(RESET);
    } finally {
      ReadFaultFileIO.disarm(warehouseKey());
    }
    assertThat(snapshots(table)).hasSize(before);
  }

  @Test
  void storageFailingWhileTheCommitsManifestIsWrittenIsTransientAndTellsTheOperatorToRecommit() {
    Table table = create(SMALL);
    int before = snapshots(table).size();
    Map<String, Long> rows = LiveRows.multiset(table);
    JobSpec job = faultingJob().withJobIdIfAbsent();
    GroupInterceptor failTheManifest =
        new GroupInterceptor() {
          @Override
          public void beforeCommit(PlanSummary summary) {
            FaultingLocalFileIO.arm(
                warehouseKey(), path -> path.contains("/metadata/") && path.endsWith(".avro"));
          }
        };
    try {
      assertThatThrownBy(() -> run(job, failTheManifest))
          .isExactlyInstanceOf(TransientException.class)
          .hasMessageStartingWith(
              "The commit of job "
                  + job.jobId()
                  + " did not finish: UncheckedIOException: injected: cannot create ")
          .hasMessageContaining(
              RESET
                  + ". Nothing was deleted; once the cause is gone, run `icecompact recommit"
                  + " --job-id "
                  + job.jobId()
                  + "`")
          // the committer's own error, as the CommitSnapshot state's Retry sees it
          .cause()
          .isExactlyInstanceOf(TransientException.class)
          .hasMessageStartingWith(
              "Cannot commit job "
                  + job.jobId()
                  + ": UncheckedIOException: injected: cannot create ")
          .hasMessageEndingWith(RESET);
      assertThat(FaultingLocalFileIO.disarm(warehouseKey())).as("the fault fired").isTrue();
    } finally {
      FaultingLocalFileIO.disarm(warehouseKey());
    }
    assertThat(snapshots(table)).hasSize(before);
    assertThat(LiveRows.multiset(table)).isEqualTo(rows);
  }

  private JobSpec faultingJob() {
    Map<String, String> faulting = new LinkedHashMap<>(catalog);
    faulting.put("io-impl", FaultingLocalFileIO.class.getName());
    return new JobSpec(null, TABLE, faulting, Map.of(), null, null, null);
  }

  private String warehouseKey() {
    return warehouse.toAbsolutePath().toString();
  }
}
