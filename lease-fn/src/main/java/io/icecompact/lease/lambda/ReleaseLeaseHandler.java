package io.icecompact.lease.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.error.CaughtError;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.lease.JobLogEntry;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.lease.LeaseSteps;
import io.icecompact.lease.metrics.JobMetrics;
import java.io.IOException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of {@code ReleaseLease} and {@code ReleaseLeaseAfterFailure}: writes the job's
 * record to the job log (its result, or the error of the step that failed) and releases the lease,
 * conditional on owner and token, so a lease taken over meanwhile is left to its new holder. A job
 * that reached a result also emits its CloudWatch metrics as one Embedded Metric Format log line.
 */
public final class ReleaseLeaseHandler
    extends LambdaStep<ReleaseLeaseHandler.Input, ReleaseLeaseHandler.Output> {
  private static final Logger LOG = LoggerFactory.getLogger(ReleaseLeaseHandler.class);

  /**
   * {@code result}: the job's result as the state machine holds it, with {@code care} ({@link
   * CareOutcome}) added by the care states when care ran; read as a tree so both can be taken from
   * it.
   */
  record Input(
      JobSpec job, LeaseGrant lease, LeaseSettings settings, JsonNode result, CaughtError error) {
    JobResult jobResult() {
      return result == null || result.isNull()
          ? null
          : JobJson.mapper().convertValue(result, JobResult.class);
    }

    /** What the care steps did, or null when none ran. */
    CareOutcome care() {
      JsonNode care = result == null ? null : result.get("care");
      return care == null || care.isNull()
          ? null
          : JobJson.mapper().convertValue(care, CareOutcome.class);
    }
  }

  record Output(boolean released) {}

  private final LeaseSteps steps;

  public ReleaseLeaseHandler() {
    this(LeaseSteps.fromEnvironment());
  }

  public ReleaseLeaseHandler(LeaseSteps steps) {
    super("ReleaseLease", Input.class);
    this.steps = steps;
  }

  @Override
  protected Output run(Input input, InvocationLogContext log, Context context) throws IOException {
    if (input.job() != null) {
      log.job(input.job().jobId(), input.job().table());
    }
    LeaseGrant lease = input.lease();
    long started =
        input.settings() == null ? steps.clock().millis() : input.settings().startedAtMillis();
    JobResult result = input.jobResult();
    CareOutcome care = input.care();
    JobLogEntry entry = entry(input, result, started, steps.clock().millis() - started);
    if (care != null) {
      entry = entry.withCare(care.reason());
    }
    steps.jobLog().record(entry);
    boolean released =
        lease != null
            && lease.acquired()
            && steps.lease().release(lease.table(), lease.owner(), lease.token());
    if (lease != null && lease.acquired() && !released) {
      LOG.warn(
          "The lease on {} (token {}) was no longer {}'s: left to its new holder",
          lease.table(),
          lease.token(),
          lease.owner());
    }
    // Printed last, once the record and the release are done: Step Functions retries this state on
    // a failure, and lines printed before it would be printed again, counting the job twice in the
    // metric filters and EMF metrics. A retry of an invocation that released finds the lease no
    // longer its own, and prints them once.
    logOutcome(entry);
    logCareOutcome(entry, care);
    // one Embedded Metric Format line per execution that got the lease, failed ones too: CloudWatch
    // makes the job's metrics from the log
    if (result != null && result.status() != null) {
      System.out.println(
          JobJson.toJson(
              JobMetrics.emf(
                  result,
                  care == null ? 0 : care.refused(),
                  care == null ? 0 : care.failedSteps(),
                  steps.clock().millis())));
    } else if (input.job() != null) {
      System.out.println(
          JobJson.toJson(
              JobMetrics.failedExecution(
                  input.job().table(),
                  input.job().jobId(),
                  input.error() == null ? "unknown error" : input.error().error(),
                  entry.durationMillis(),
                  steps.clock().millis())));
    }
    return new Output(released);
  }

  /**
   * One JSON line per job on stdout (the function's log group): infra/template.yaml's metric filter
   * counts {@code "icecompact": "job"} lines whose status is UNKNOWN, PARTIAL or CONTENDED. Keep
   * the field names.
   */
  private static void logOutcome(JobLogEntry entry) throws IOException {
    Map<String, Object> line = new java.util.LinkedHashMap<>();
    line.put("icecompact", "job");
    line.put("table", entry.table());
    line.put("job_id", entry.jobId());
    line.put("status", entry.status());
    line.put("duration_ms", entry.durationMillis());
    System.out.println(JobJson.mapper().writeValueAsString(line));
  }

  /**
   * One JSON line per job whose care steps refused or failed: infra/template.yaml's metric filter
   * counts {@code "icecompact": "care"} lines for the CareRefusedOrFailed alarm. Keep the field
   * names.
   */
  private static void logCareOutcome(JobLogEntry entry, CareOutcome care) throws IOException {
    if (care == null || care.allDone()) {
      return;
    }
    Map<String, Object> line = new java.util.LinkedHashMap<>();
    line.put("icecompact", "care");
    line.put("table", entry.table());
    line.put("job_id", entry.jobId());
    line.put("refused", care.refused());
    line.put("failed", care.failedSteps());
    line.put("reason", care.reason());
    System.out.println(JobJson.mapper().writeValueAsString(line));
    LOG.warn("Care of {} did not finish: {}", entry.table(), care.reason());
  }

  /**
   * The job's entry: from its result, or, for a failed execution, {@code FAILED} with the error's
   * name and message. The lease's owner is the execution ({@code $$.Execution.Id}, given to
   * AcquireLease).
   */
  private static JobLogEntry entry(
      Input input, JobResult result, long startedAt, long durationMillis) {
    String execution = input.lease() == null ? null : input.lease().owner();
    if (result != null && result.status() != null) {
      return JobLogEntry.of(result, startedAt, durationMillis, execution);
    }
    String error =
        input.error() == null
            ? "unknown error"
            : input.error().error() + ": " + input.error().message();
    return JobLogEntry.failed(
        input.job().table(), input.job().jobId(), startedAt, durationMillis, error, execution);
  }
}
