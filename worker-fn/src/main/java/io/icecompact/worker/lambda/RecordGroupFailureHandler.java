package io.icecompact.worker.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.icecompact.core.error.CaughtError;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.GroupFailure;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lambda entry point of the {@code RecordGroupFailure} state, the Map item's Catch: stores why the
 * group's worker gave up next to the results, so the committer reads failures where it reads results
 * and the Map's own output stays empty (far from Step Functions' payload limit).
 */
public final class RecordGroupFailureHandler implements RequestStreamHandler {
  private static final Logger LOG = LoggerFactory.getLogger(RecordGroupFailureHandler.class);

  record Input(GroupRequest group, CaughtError error) {}

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    InvocationLogContext.run(
        "RecordGroupFailure", context == null ? null : context.getAwsRequestId(), log -> record(in, out, log));
  }

  private static void record(InputStream in, OutputStream out, InvocationLogContext log) throws IOException {
    Input input = JobJson.mapper().readValue(in, Input.class);
    if (input.group() == null || input.error() == null) {
      throw new InvalidJobInputException("RecordGroupFailure input needs 'group' and 'error'");
    }
    log.job(input.group().jobId(), input.group().table()).group(input.group().groupIndex());
    LOG.warn("Group {} failed after its retries: {}: {}", input.group().groupIndex(), input.error().error(),
        input.error().message());
    GroupFailure failure =
        new GroupFailure(input.group().groupIndex(), input.error().shortType(), input.error().message());
    try (TableAccess access = new TableAccess(input.group().catalogProperties())) {
      new JobStore(access.fileIO())
          .writeGroupFailure(new WorkLocation(input.group().workLocation()), failure);
    }
    JobJson.mapper().writeValue(out, failure);
  }
}
