package io.icecompact.worker.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.table.TableAccess;
import io.icecompact.worker.GroupRewriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lambda entry point of the {@code RewriteGroup} state (one Map item): rewrites one group and returns
 * the small {@code GroupStatus}. The attempt number is the state's retry count plus one, so a retried
 * invocation never overwrites an earlier attempt's files.
 *
 * <p>A warm container keeps its {@link GroupRewriter} (and so the last plan and pinned table it read)
 * for the next group of the same job.
 */
public final class RewriteGroupHandler implements RequestStreamHandler {
  /**
   * {@code group}: the Map item; {@code retry_count}: {@code $$.State.RetryCount} when the caller
   * passes it, else the attempt is numbered from markers in the work location.
   */
  record Input(GroupRequest group, Integer retryCount) {}

  private static final Map<Map<String, String>, GroupRewriter> REWRITERS = new ConcurrentHashMap<>();

  @Override
  public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
    Input input = JobJson.mapper().readValue(in, Input.class);
    if (input.group() == null) {
      throw new InvalidJobInputException("RewriteGroup input has no 'group'");
    }
    GroupRequest group = input.group();
    GroupRewriter rewriter =
        REWRITERS.computeIfAbsent(
            group.catalogProperties(), properties -> new GroupRewriter(new TableAccess(properties)));
    int attempt =
        input.retryCount() != null
            ? input.retryCount() + 1
            : rewriter.claimAttempt(group.workLocation(), group.groupIndex());
    GroupRequest request =
        new GroupRequest(group.jobId(), group.table(), group.catalogProperties(), group.workLocation(),
            group.planLocation(), group.planSha256(), group.groupIndex(), attempt);
    JobJson.mapper().writeValue(out, rewriter.rewrite(request));
  }
}
