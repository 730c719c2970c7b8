package io.icecompact.bench;

import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import io.icecompact.worker.LiveTaskResolver;
import io.icecompact.worker.ManifestsToRead;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.FileIO;

/**
 * The sizes of a stored plan's documents: what a worker reads before it can rewrite its group (the
 * plan index, its group's document and, when they are at most {@link
 * LiveTaskResolver#CROSS_CHECK_MANIFEST_BYTES}, the manifests it cross-checks its group against),
 * and what the committer reads one group at a time.
 *
 * @param indexBytes the plan index named in the plan summary
 * @param groupDocumentBytes each planned group's own document, in group order
 * @param crossCheckManifestBytes the manifests of the first group's partitions (every group of the
 *     bench's tables has one partition, in manifests that span them all)
 */
record PlanDocuments(long indexBytes, List<Long> groupDocumentBytes, long crossCheckManifestBytes) {
  static PlanDocuments measure(TableAccess access, PlanSummary summary) {
    FileIO io = access.fileIO();
    WorkLocation work = new WorkLocation(summary.workLocation());
    JobStore store = new JobStore(io);
    JobPlan plan = store.readPlan(summary.jobId(), summary.planLocation(), summary.planSha256());
    Table pinned = access.loadPinned(plan.table(), plan.pinned());
    long manifests =
        ManifestsToRead.forGroup(
            pinned,
            plan.pinned().snapshotId(),
            ExpressionParser.fromJson(plan.filter(), pinned.schema()),
            store.readGroupTasks(work, plan, 0));
    return new PlanDocuments(
        io.newInputFile(summary.planLocation()).getLength(),
        IntStream.range(0, summary.groupCount())
            .mapToObj(index -> io.newInputFile(work.groupPlan(index)).getLength())
            .toList(),
        manifests);
  }

  /**
   * Whether a worker cross-checks its group against the manifests, or rewrites its document as is.
   */
  boolean crossChecked() {
    return crossCheckManifestBytes <= LiveTaskResolver.CROSS_CHECK_MANIFEST_BYTES;
  }

  /**
   * What the worker of the largest group reads: the index, its group's document, the manifests it
   * checks.
   */
  long largestWorkerRead() {
    return indexBytes + largestGroupDocument() + (crossChecked() ? crossCheckManifestBytes : 0);
  }

  long largestGroupDocument() {
    return groupDocumentBytes.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  long medianGroupDocument() {
    List<Long> sorted = groupDocumentBytes.stream().sorted().toList();
    return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
  }
}
