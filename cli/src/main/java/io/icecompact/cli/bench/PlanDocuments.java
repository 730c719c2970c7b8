package io.icecompact.cli.bench;

import io.icecompact.core.job.PlanSummary;
import java.util.List;
import org.apache.iceberg.io.FileIO;

/**
 * The sizes of a stored plan's documents: the plan a worker reads before it can rewrite its group, and
 * what every worker and the committer download.
 *
 * @param indexBytes the plan document named in the plan summary
 * @param groupDocumentBytes each group's own document, in group order (none while the plan is one document)
 */
record PlanDocuments(long indexBytes, List<Long> groupDocumentBytes) {
  static PlanDocuments measure(FileIO io, PlanSummary summary) {
    return new PlanDocuments(io.newInputFile(summary.planLocation()).getLength(), List.of());
  }

  /** What the worker of the largest group reads: the plan, and its group's document. */
  long largestWorkerRead() {
    return indexBytes + largestGroupDocument();
  }

  long largestGroupDocument() {
    return groupDocumentBytes.stream().mapToLong(Long::longValue).max().orElse(0);
  }

  long medianGroupDocument() {
    List<Long> sorted = groupDocumentBytes.stream().sorted().toList();
    return sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2);
  }
}
