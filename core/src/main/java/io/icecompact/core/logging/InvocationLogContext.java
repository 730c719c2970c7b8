package io.icecompact.core.logging;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The job's identity in SLF4J's MDC for one Lambda invocation, so that every log line of the
 * invocation (icecompact's, Iceberg's, the AWS SDK's) carries it as JSON fields: {@value #JOB_ID},
 * {@value #TABLE}, {@value #GROUP_INDEX} (workers) and {@value #REQUEST_ID} (Lambda's request id,
 * named as in Lambda's own JSON logs). {@link #run} removes them afterwards, also after a failure:
 * a warm Lambda container runs its next invocation on the same thread, which must not inherit this
 * job's keys.
 *
 * <p>MDC is per thread: lines logged from other threads (Iceberg's shared worker pool) do not carry
 * the keys. Pools outlive invocations, so inheriting the keys would stamp later lines with an old
 * job's id.
 */
public final class InvocationLogContext {
  public static final String JOB_ID = "job_id";
  public static final String TABLE = "table";
  public static final String GROUP_INDEX = "group_index";
  public static final String REQUEST_ID = "AWSRequestId";

  private static final Logger LOG = LoggerFactory.getLogger(InvocationLogContext.class);

  /** A handler's work, given the context to add the job's keys to once it has read its input. */
  @FunctionalInterface
  public interface Invocation {
    void run(InvocationLogContext log) throws IOException;
  }

  private InvocationLogContext() {}

  /**
   * Runs {@code invocation} with the request id in the MDC; a failure is logged (with the job's
   * keys, which the state machine's error record lacks) and rethrown as it is.
   *
   * @param step the state's name, e.g. {@code AcquireLease}, for the failure's log line
   * @param requestId Lambda's request id, or null outside Lambda
   */
  public static void run(String step, String requestId, Invocation invocation) throws IOException {
    InvocationLogContext log = new InvocationLogContext();
    put(REQUEST_ID, requestId);
    try {
      invocation.run(log);
    } catch (IOException | RuntimeException | Error e) {
      LOG.error("{} failed: {}", step, e.toString(), e);
      throw e;
    } finally {
      MDC.remove(REQUEST_ID);
      MDC.remove(JOB_ID);
      MDC.remove(TABLE);
      MDC.remove(GROUP_INDEX);
    }
  }

  /** Adds the job's id and table (either may be null, e.g. for an input without them). */
  public InvocationLogContext job(String jobId, String table) {
    put(JOB_ID, jobId);
    put(TABLE, table);
    return this;
  }

  /** Adds the index of the file group a worker handles. */
  public InvocationLogContext group(int groupIndex) {
    put(GROUP_INDEX, Integer.toString(groupIndex));
    return this;
  }

  private static void put(String key, String value) {
    if (value != null) {
      MDC.put(key, value);
    }
  }
}
