package io.icecompact.worker;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.RowOrder;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.core.table.TableFormats;
import io.icecompact.worker.deletes.FileEqualityDeletes;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.input.InputFileRead;
import io.icecompact.worker.sort.ColumnSortedRows;
import io.icecompact.worker.sort.ExternalSortedRows;
import io.icecompact.worker.sort.RowSorter;
import io.icecompact.worker.sort.SortSpill;
import io.icecompact.worker.sort.SortedRows;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.Predicate;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.data.DeleteFilter;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PartitionUtil;

/**
 * The generic rewrite: decode each row with Iceberg's reader for the file's format (Parquet, ORC or
 * Avro: {@link TableFormats}), drop deleted rows (v2 position deletes and v3 deletion vectors with
 * Iceberg's delete filter, equality deletes against the group's {@link
 * io.icecompact.worker.deletes.EqualityDeleteIndex}), and encode the rest with Iceberg's writer in
 * the table's {@code write.format.default}, rolling files at the group's maximum output size. Rows
 * stream through; nothing is buffered beyond the writer's open row group.
 *
 * <p>On a v3 table the row lineage columns are read (stored value, or derived from the file's first
 * row id and position) and written, so {@code _row_id} and {@code _last_updated_sequence_number}
 * survive. The job's filter is never applied to rows: it selects files, and every row of a file is
 * kept.
 *
 * <p>On a sorted route ({@link GroupRoute.Sorted}), the group's live rows are first collected and
 * sorted in memory (as columns, {@link ColumnSortedRows}, or as records, {@link SortedRows}: the
 * same sequence) or, for a group beyond memory, in sorted runs spilled to local disk and merged
 * ({@link ExternalSortedRows}, whose runs and bytes the path's {@link RowCounts} return); then
 * written in that order: files roll in order, so each output file of a partition holds a contiguous
 * range of the order. The files carry the order's output sort order id.
 */
final class GenericRewritePath implements GroupRewritePath {
  private final Table table;
  private final int outputSpecId;
  private final long targetFileSize;
  private final List<FileScanTask> tasks;
  private final GroupDeleteLoader deleteLoader;
  // the order to write rows in, or null for input order
  private final GroupRoute.Sorted sorting;

  /**
   * @param deleteLoader the group's delete loader
   * @param route how the rows are ordered: input order, or sorted in memory or in spilled runs
   */
  GenericRewritePath(
      Table table,
      int outputSpecId,
      long targetFileSize,
      List<FileScanTask> tasks,
      GroupDeleteLoader deleteLoader,
      GroupRoute.Generic route) {
    this.table = table;
    this.outputSpecId = outputSpecId;
    this.targetFileSize = targetFileSize;
    this.tasks = tasks;
    this.deleteLoader = deleteLoader;
    this.sorting = route instanceof GroupRoute.Sorted sorted ? sorted : null;
  }

  @Override
  public String name() {
    return RewritePath.GENERIC;
  }

  @Override
  public RowCounts write(
      OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress) {
    Schema projection =
        TableUtil.formatVersion(table) >= 3
            ? MetadataColumns.schemaWithRowLineage(table.schema())
            : table.schema();
    PartitionSpec spec = table.specs().get(outputSpecId);
    PartitionKey partitionKey = new PartitionKey(spec, projection);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(projection.asStruct());
    GenericFileWriterFactory.Builder writerSettings =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(TableFormats.dataFormat(table))
            .dataSchema(projection);
    if (sorting != null) {
      writerSettings.dataSortOrder(outputSortOrder(sorting.order()));
    }
    FanoutDataWriter<Record> writer =
        new FanoutDataWriter<>(writerSettings.build(), files, table.io(), targetFileSize);
    RowSorter sorted = sorting == null ? null : sorter(projection, spec);
    RowSink sink =
        sorted != null
            ? (row, partition) -> keep(sorted, row, partition)
            : (row, partition) -> write(writer, row, spec, partition, partitionKey, wrapper);

    long rowsRead = 0;
    long rowsKept = 0;
    SortSpill.Spilled spilled = SortSpill.Spilled.NONE;
    boolean failed = true;
    try {
      int done = 0;
      for (FileScanTask task : tasks) {
        InputFileRead.Rows rows = copyFile(task, projection, spec, sink);
        rowsRead += rows.read();
        rowsKept += rows.kept();
        progress.accept(++done);
      }
      if (sorted != null) {
        sorted.drainTo(
            (row, partition) -> write(writer, row, spec, partition, partitionKey, wrapper));
        if (sorted instanceof ExternalSortedRows external) {
          spilled = new SortSpill.Spilled(external.runs(), external.spilledBytes());
        }
      }
      failed = false;
    } finally {
      try {
        if (sorted != null) {
          sorted.close(); // an external sort deletes its runs, also after a failure
        }
      } finally {
        closeWriter(writer, failed, completed);
      }
    }
    return new RowCounts(rowsRead, rowsRead - rowsKept, spilled.runs(), spilled.bytes());
  }

  private RowSorter sorter(Schema projection, PartitionSpec spec) {
    PartitionSpec repartitionInto = repartitioning() ? spec : null;
    RowOrder order = sorting.order();
    if (sorting instanceof GroupRoute.SortedInSpilledRuns spilled) {
      SortSpill spill = spilled.spill();
      return new ExternalSortedRows(
          projection, order, repartitionInto, spill.runRows(), spill.directory());
    }
    if (sorting instanceof GroupRoute.SortedAsColumns) {
      // the files' row counts bound the live rows: the columns are sized once
      long rows = tasks.stream().mapToLong(task -> task.file().recordCount()).sum();
      return new ColumnSortedRows(
          projection, order, repartitionInto, (int) Math.min(rows, 1 << 28));
    }
    return new SortedRows(projection, order, repartitionInto);
  }

  /** Where a live row goes: to the writer, or to the rows being sorted. */
  private interface RowSink {
    /**
     * {@code partition} is the row's output partition, or null when it must be computed from the
     * row.
     */
    void accept(Record row, StructLike partition);
  }

  /** The sort order written on the files: the table's order of that id, or unsorted (id 0). */
  private SortOrder outputSortOrder(RowOrder rowOrder) {
    SortOrder order = table.sortOrders().get(rowOrder.outputSortOrderId());
    return order != null ? order : SortOrder.unsorted();
  }

  /**
   * Whether some files were written under another spec than the output's (Spark's "requires
   * repartitioning").
   */
  private boolean repartitioning() {
    return tasks.stream().anyMatch(task -> task.file().specId() != outputSpecId);
  }

  /** Copies one file's live rows to {@code sink}. */
  private InputFileRead.Rows copyFile(
      FileScanTask task, Schema projection, PartitionSpec spec, RowSink sink) {
    String location = task.file().location();
    DeleteFilter<Record> deletes = deleteLoader.positionFilterFor(task, table.schema(), projection);
    FileEqualityDeletes equality = deleteLoader.equalityDeletes().forFile(task, table.schema());
    // A file written under the output spec holds rows of its own partition only: no per-row
    // transform.
    StructLike filePartition =
        task.file().specId() == spec.specId() ? task.file().partition() : null;
    Schema readSchema = deletes.requiredSchema();
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    boolean aligned = RecordAlignment.isPrefix(projection, readSchema);
    return InputFileRead.checked(
        task,
        () -> {
          long[] read = {0};
          long kept = 0;
          try (CloseableIterable<Record> rows =
                  TableFormats.read(
                      table,
                      table.io(),
                      task.file(),
                      task.start(),
                      task.length(),
                      readSchema,
                      constants);
              CloseableIterable<Record> counted =
                  CloseableIterable.transform(
                      rows,
                      row -> {
                        read[0]++;
                        return row;
                      });
              CloseableIterable<Record> live =
                  deletes.filter(withoutEqualityDeleted(counted, equality, readSchema))) {
            for (Record row : live) {
              Record out = aligned ? row : RecordAlignment.project(row, projection);
              sink.accept(out, filePartition);
              kept++;
            }
          }
          return new InputFileRead.Rows(read[0], kept);
        });
  }

  /**
   * The rows whose key no equality delete newer than the file holds (the group's index, not a set
   * per file).
   */
  private static CloseableIterable<Record> withoutEqualityDeleted(
      CloseableIterable<Record> rows, FileEqualityDeletes equality, Schema readSchema) {
    if (equality.isEmpty()) {
      return rows;
    }
    InternalRecordWrapper internal = new InternalRecordWrapper(readSchema.asStruct());
    Predicate<StructLike> deleted = equality.deletedRows(readSchema);
    return CloseableIterable.filter(rows, row -> !deleted.test(internal.wrap(row)));
  }

  /**
   * A failure to key a row is about the sort, not the input file: typed apart from read failures.
   */
  private static void keep(RowSorter sorted, Record row, StructLike partition) {
    try {
      sorted.add(row, partition);
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot compute the sort key of a row", GroupRewriteException::new);
    }
  }

  /** Write failures are about the output, not the input file: typed apart from read failures. */
  private static void write(
      FanoutDataWriter<Record> writer,
      Record row,
      PartitionSpec spec,
      StructLike filePartition,
      PartitionKey partitionKey,
      InternalRecordWrapper wrapper) {
    try {
      if (filePartition != null) {
        writer.write(row, spec, filePartition);
      } else {
        partitionKey.partition(wrapper.wrap(row));
        writer.write(row, spec, partitionKey);
      }
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(e, "Cannot write output file", GroupRewriteException::new);
    }
  }

  /**
   * Closes the writer and hands over the files it completed. After a failure the writer's rolled
   * files are handed over to be deleted; a close that fails then leaves its partial files as
   * orphans.
   */
  private static void closeWriter(
      FanoutDataWriter<Record> writer, boolean failed, Consumer<DataFile> completed) {
    try {
      writer.close();
    } catch (IOException | RuntimeException e) {
      if (!failed) {
        throw FailureClassifier.classify(
            e, "Cannot finish output files", GroupRewriteException::new);
      }
    }
    List<DataFile> written;
    try {
      written = writer.result().dataFiles();
    } catch (RuntimeException e) {
      if (!failed) {
        throw e;
      }
      return; // the writer never closed: its partial files are orphans for remove_orphan_files
    }
    written.forEach(completed);
  }

  /** Rows read with extra columns (e.g. {@code _pos}) must be narrowed before writing. */
  static final class RecordAlignment {
    private RecordAlignment() {}

    static boolean isPrefix(Schema projection, Schema readSchema) {
      var wanted = projection.columns();
      var read = readSchema.columns();
      if (read.size() < wanted.size()) {
        return false;
      }
      for (int i = 0; i < wanted.size(); i++) {
        if (wanted.get(i).fieldId() != read.get(i).fieldId()) {
          return false;
        }
      }
      return true;
    }

    static Record project(Record row, Schema projection) {
      GenericRecord copy = GenericRecord.create(projection);
      for (int i = 0; i < projection.columns().size(); i++) {
        copy.set(i, row.getField(projection.columns().get(i).name()));
      }
      return copy;
    }
  }
}
