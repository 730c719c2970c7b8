package io.icecompact.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.icecompact.core.job.CommitRequest;
import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobJson;
import io.icecompact.core.job.JobPlan;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlannedGroup;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.OutputFile;

/**
 * SYNTHETIC WORKER RESULTS, for {@code bench --scale} only: the inputs of a {@link
 * MetadataOnlyTable} exist only in its metadata, so no worker can rewrite them. To measure the
 * committer on a job of that size, each planned group gets the result a worker would have stored:
 * its planned input files, their rows, and one output file holding as many rows. The output is a
 * small real file at the table's data location (the committer checks that each output exists and
 * has its recorded length) whose content is a marker, not Parquet: nothing reads it, and a table it
 * is committed to cannot be read back.
 */
final class SyntheticWorkerResults {
  static final String PATH = "SYNTHETIC";
  static final String PATH_REASON =
      "synthetic worker result for metadata-only inputs (bench --scale)";
  private static final byte[] CONTENT =
      "icecompact bench --scale: synthetic output of a metadata-only group, not a Parquet file\n"
          .getBytes(StandardCharsets.UTF_8);

  private SyntheticWorkerResults() {}

  /** Stores a result for every group of the job's plan; returns how many. */
  static int store(TableAccess access, CommitRequest job) {
    JobStore store = new JobStore(access.fileIO());
    WorkLocation work = new WorkLocation(job.workLocation());
    JobPlan plan = store.readPlan(job.jobId(), job.planLocation(), job.planSha256());
    Table table = access.loadTable(plan.table());
    PartitionSpec spec = table.specs().get(plan.pinned().outputSpecId());
    for (PlannedGroup group : plan.groups()) {
      // one group at a time, as a worker reads its own: memory bounded by the largest group
      List<FileScanTask> tasks = store.readGroupTasks(work, plan, group.index());
      store.writeGroupResult(work, result(table, spec, plan, group.index(), tasks));
    }
    return plan.groups().size();
  }

  private static GroupResult result(
      Table table, PartitionSpec spec, JobPlan plan, int index, List<FileScanTask> tasks) {
    long rows = tasks.stream().mapToLong(task -> task.file().recordCount()).sum();
    // the group is one partition (the table has one spec), so its output goes there
    String location =
        table
            .locationProvider()
            .newDataLocation(
                spec,
                tasks.get(0).file().partition(),
                String.format("%05d-1-%s-synthetic.parquet", index, plan.jobId()));
    OutputFile output = table.io().newOutputFile(location);
    try (OutputStream out = output.createOrOverwrite()) {
      out.write(CONTENT);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + location, e);
    }
    DataFile file =
        DataFiles.builder(spec)
            .withPath(location)
            .withFormat(FileFormat.PARQUET)
            .withPartition(tasks.get(0).file().partition())
            .withFileSizeInBytes(CONTENT.length)
            .withRecordCount(rows)
            .build();
    JsonNode json = JobJson.tree(ContentFileParser.toJson(file, spec));
    return new GroupResult(
        plan.jobId(),
        index,
        1,
        plan.pinned().snapshotId(),
        plan.pinned().schemaId(),
        plan.pinned().outputSpecId(),
        tasks.stream().map(task -> task.file().location()).toList(),
        List.of(),
        rows,
        0,
        rows,
        CONTENT.length,
        List.of(json),
        PATH,
        PATH_REASON,
        0,
        0);
  }
}
