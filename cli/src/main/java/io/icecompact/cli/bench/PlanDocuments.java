package io.icecompact.cli.bench;

import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.iceberg.io.FileIO;

/**
 * The sizes of a stored plan's documents: what a worker reads before it can rewrite its group (the plan
 * index and its group's document), and what the committer reads one group at a time.
 *
 * @param indexBytes the plan index named in the plan summary
 * @param groupDocumentBytes each planned group's own document, in group order
 */
record PlanDocuments(long indexBytes, List<Long> groupDocumentBytes) {
  static PlanDocuments measure(FileIO io, PlanSummary summary) {
    WorkLocation work = new WorkLocation(summary.workLocation());
    return new PlanDocuments(
        io.newInputFile(summary.planLocation()).getLength(),
        IntStream.range(0, summary.groupCount())
            .mapToObj(index -> io.newInputFile(work.groupPlan(index)).getLength())
            .toList());
  }

  /** What the worker of the largest group reads: the index, and its group's document. */
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
