package io.icecompact.worker.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import io.icecompact.core.error.InvalidJobInputException;
import io.icecompact.core.error.WorkerOutOfMemoryException;
import io.icecompact.core.job.GroupRequest;
import io.icecompact.core.job.GroupStatus;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.logging.InvocationLogContext;
import io.icecompact.core.scope.DeploymentScope;
import io.icecompact.core.table.TableAccess;
import io.icecompact.lambda.LambdaStep;
import io.icecompact.lease.LeaseGrant;
import io.icecompact.worker.GroupAccess;
import io.icecompact.worker.GroupRewriter;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Lambda entry point of the {@code RewriteGroup} state (one Map item): rewrites one group and
 * returns the small {@code GroupStatus}. The attempt is numbered by a marker it claims in the work
 * location (as the embedded runner's are), so a retried invocation never overwrites an earlier
 * attempt's files.
 *
 * <p>A warm container keeps its {@link GroupRewriter} (and so the last plan and pinned table it
 * read) for the next group of the same job.
 */
public final class RewriteGroupHandler extends LambdaStep<RewriteGroupHandler.Input, GroupStatus> {
  /**
   * {@code group}: the Map item (its attempt is numbered here, from markers in the work location,
   * as the embedded runner numbers it); {@code lease}: the job's table lease, kept alive by each
   * group ({@link LeaseHeartbeat}), absent when invoked without one.
   */
  record Input(GroupRequest group, LeaseGrant lease) {}

  /**
   * The rewriter built for catalog properties and, under a role, for one job's work location and
   * plan (its session policy names the pinned table's folders).
   */
  private record Cached(
      Map<String, String> catalogProperties,
      String workLocation,
      String plan,
      GroupRewriter rewriter) {}

  // Only the last: a container serves groups of one job at a time, and properties that change per
  // job (e.g. vended credentials) must not pile up rewriters for the container's life. A replaced
  // rewriter's access is left to the collector, not closed: another thread of a test JVM may be
  // rewriting with it.
  private static final AtomicReference<Cached> LAST = new AtomicReference<>();

  private final DeploymentScope scope;
  private final LeaseHeartbeat heartbeat;

  public RewriteGroupHandler() {
    this(DeploymentScope.fromEnvironment(), LeaseHeartbeat.fromEnvironment());
  }

  public RewriteGroupHandler(DeploymentScope scope) {
    this(scope, LeaseHeartbeat.none());
  }

  public RewriteGroupHandler(DeploymentScope scope, LeaseHeartbeat heartbeat) {
    super("RewriteGroup", Input.class);
    this.scope = scope;
    this.heartbeat = heartbeat;
  }

  @Override
  protected GroupStatus run(Input input, InvocationLogContext log, Context context) {
    GroupRequest group = require("group", input.group());
    log.job(group.jobId(), group.table()).group(group.groupIndex());
    // the planner checked the table's locations; a direct invocation may name any work location
    scope.checkTable(group.table());
    scope.checkLocation("work location", group.workLocation());
    scope.checkLocation("plan location", group.planLocation());
    WorkLocation.requireJobDirectory(group.workLocation(), null, group.table(), group.jobId());
    if (input.lease() != null && !group.table().equals(input.lease().table())) {
      throw new InvalidJobInputException(
          "RewriteGroup's lease is on "
              + input.lease().table()
              + ", its group on "
              + group.table());
    }
    heartbeat.beat(input.lease()); // before any read: a job that lost its table stops here
    GroupRewriter rewriter = rewriterFor(scope.catalogProperties(group.catalogProperties()), group);
    int attempt = rewriter.claimAttempt(group.workLocation(), group.groupIndex());
    try {
      return rewriter.rewrite(
          group.asAttempt(
              attempt)); // failures typed by the stage, as the embedded runner sees them
    } catch (RuntimeException | OutOfMemoryError e) {
      if (WorkerOutOfMemoryException.in(e).isPresent()) {
        throw outOfMemory(group.groupIndex(), WorkerOutOfMemoryException.in(e).get());
      }
      throw e;
    }
  }

  /**
   * The runtime would report a bare {@code java.lang.OutOfMemoryError} ("Java heap space") and end
   * the container; the typed error names the heap and the setting that raises it, and the Map's
   * Catch records it as the group's reason (no Retry lists it: the same heap runs out the same
   * way). The cached rewriter is dropped, so that the container's next group starts from a fresh
   * one.
   */
  private static WorkerOutOfMemoryException outOfMemory(int groupIndex, OutOfMemoryError error) {
    LAST.set(null);
    return new WorkerOutOfMemoryException(
        groupIndex,
        error,
        Runtime.getRuntime().maxMemory(),
        WorkerOutOfMemoryException.LAMBDA_SETTING);
  }

  private GroupRewriter rewriterFor(Map<String, String> catalogProperties, GroupRequest group) {
    boolean scoped = scope.tableAccessRole().isPresent();
    String workLocation = scoped ? group.workLocation() : null;
    String plan = scoped ? group.planSha256() : null;
    Cached cached = LAST.get();
    if (cached != null
        && cached.catalogProperties().equals(catalogProperties)
        && Objects.equals(cached.workLocation(), workLocation)
        && Objects.equals(cached.plan(), plan)) {
      return cached.rewriter();
    }
    TableAccess unscoped = new TableAccess(catalogProperties);
    TableAccess access = GroupAccess.forGroup(unscoped, group, scope.tableAccessRole());
    if (access != unscoped) {
      unscoped.close(); // it read the plan and the pinned metadata the policy names; no more use
    }
    GroupRewriter rewriter = new GroupRewriter(access);
    LAST.set(new Cached(catalogProperties, workLocation, plan, rewriter));
    return rewriter;
  }
}
