package io.icecompact.worker.columnar;

import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.error.RowCountMismatchException;
import io.icecompact.core.rewrite.RewritePath;
import io.icecompact.worker.GroupRewritePath;
import io.icecompact.worker.deletes.GroupDeleteLoader;
import io.icecompact.worker.input.InputFileRead;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * The columnar rewrite of one group: each input row group is read column by column with
 * parquet-java's column readers and its live values written straight into the output row group's
 * column writers; no row object is ever built. Each column of a row group is copied its cheapest
 * way ({@link ColumnCopy}, chosen by {@link RowGroupCopies}); output row groups close at the
 * table's row-group size and files roll at the group's maximum output size ({@link
 * OutputFileRoller}), as the generic path's writer does.
 *
 * <p>Only groups the generic path would rewrite identically come here (see {@code
 * ColumnarEligibility} and {@link #prepare}): flat current-schema Parquet files of the output spec
 * and one partition. Rows keep their input order; v3 lineage is written as the generic path writes
 * it.
 */
public final class ColumnarRewritePath implements GroupRewritePath {
  /** Rows copied per column before the output row group's size is checked. */
  private static final int ROWS_PER_SLICE = 50_000;

  private final Table table;
  private final PartitionSpec spec;
  private final long targetFileSize;
  private final DeletedRows deletes;
  private final PreparedGroup group;
  private final OutputColumns columns;
  private final WriteSettings settings;
  private final RowGroupCopies rowGroupCopies;
  private final int columnThreads;

  /**
   * @param group the group as {@link #prepare} found it
   * @param columnThreads threads copying the columns of an input row group at once (1: the caller's
   *     thread only); a Lambda worker's vCPUs beyond the first are used this way
   */
  public ColumnarRewritePath(
      Table table,
      int outputSpecId,
      long targetFileSize,
      GroupDeleteLoader deleteLoader,
      int columnThreads,
      PreparedGroup group) {
    if (columnThreads < 1) {
      throw new IllegalArgumentException("columnThreads must be >= 1, got " + columnThreads);
    }
    this.columnThreads = columnThreads;
    this.table = table;
    this.spec = table.specs().get(outputSpecId);
    this.targetFileSize = targetFileSize;
    this.deletes = new DeletedRows(deleteLoader, table.schema());
    this.group = group;
    this.columns = group.columns();
    this.settings = new WriteSettings(table.properties());
    this.rowGroupCopies = new RowGroupCopies(columns, settings);
  }

  /**
   * Reads every input file's footer through {@code footerIO} and checks it was written under the
   * output's columns, and that every equality delete's key is stored in it. Returns the group ready
   * to copy, or why it must take the generic path instead.
   *
   * <p>{@code footerIO} is the table's own FileIO, not the input prefetch: the prefetch frees a
   * file's bytes once a later data file is opened, so reading every footer through it first would
   * release (or bypass) the whole group's prefetch before the copy starts.
   */
  public static Preparation prepare(Table table, List<FileScanTask> tasks, FileIO footerIO) {
    for (FileScanTask task : tasks) {
      if (task.start() != 0 || task.length() < task.file().fileSizeInBytes()) {
        return new Preparation.Refused("the task reads a split of " + task.file().location());
      }
    }
    OutputColumns columns = new OutputColumns(table.schema(), TableUtil.formatVersion(table));
    List<ParquetMetadata> footers = new FooterReader(footerIO).readAll(tasks);
    List<ColumnarInput> checked = new ArrayList<>(tasks.size());
    for (int i = 0; i < tasks.size(); i++) {
      FileScanTask task = tasks.get(i);
      ParquetMetadata footer = footers.get(i);
      MessageType fileType = footer.getFileMetaData().getSchema();
      String problem = FooterCheck.problem(columns.type, fileType, columns.mayBeAbsent());
      if (problem != null) {
        return new Preparation.Refused(
            "file written under another schema (" + problem + "): " + task.file().location());
      }
      String deleteProblem =
          FooterCheck.missingDeleteKey(
              fileType, task.file().location(), task.deletes(), table.schema());
      if (deleteProblem != null) {
        return new Preparation.Refused(deleteProblem);
      }
      ColumnDescriptor[] sources = new ColumnDescriptor[columns.size()];
      for (int c = 0; c < sources.length; c++) {
        // by field id, as Iceberg's readers match columns: the file may name it otherwise
        var written = FooterCheck.columnWithId(fileType, columns.fieldId(c));
        sources[c] =
            written == null
                ? null
                : fileType.getColumnDescription(new String[] {written.getName()});
      }
      checked.add(new ColumnarInput(task, footer, sources));
    }
    return new PreparedGroup(columns, checked);
  }

  @Override
  public String name() {
    return RewritePath.COLUMNAR;
  }

  @Override
  public RowCounts write(
      OutputFileFactory files, Consumer<DataFile> completed, IntConsumer progress) {
    StructLike partition = group.inputs().get(0).task().file().partition();
    PageCompressor compressor = settings.newCompressor();
    PageDecompressors decompressors = new PageDecompressors(ReadOptions.newCodecFactory());
    ParquetReadOptions readOptions = ReadOptions.builder().withCodecFactory(decompressors).build();
    OutputFileRoller outputs =
        new OutputFileRoller(
            table.io(),
            files,
            spec,
            partition,
            MetricsConfig.forTable(table),
            columns,
            settings,
            compressor,
            targetFileSize,
            completed);
    long rowsRead = 0;
    long rowsDeleted = 0;
    boolean failed = true;
    // the copy threads, or null to copy columns on this thread: parquet-java's codecs other than
    // ZSTD
    // keep per-instance state, so those tables copy on one thread
    ExecutorService columnPool =
        columnThreads > 1 && compressor.threadSafe() ? newColumnPool(columnThreads) : null;
    try {
      int done = 0;
      for (ColumnarInput input : group.inputs()) {
        InputFileRead.Rows rows = copyFile(input, readOptions, outputs, columnPool);
        rowsRead += rows.read();
        rowsDeleted += rows.deleted();
        progress.accept(++done);
      }
      outputs.finish();
      failed = false;
    } finally {
      if (columnPool != null) {
        columnPool.shutdownNow();
      }
      if (failed) {
        outputs.abort();
      }
      compressor.close();
      decompressors.close();
    }
    return new RowCounts(rowsRead, rowsDeleted);
  }

  /** Copies one file's live rows. */
  private InputFileRead.Rows copyFile(
      ColumnarInput input,
      ParquetReadOptions readOptions,
      OutputFileRoller outputs,
      ExecutorService columnPool) {
    String location = input.location();
    long expectedRows = input.task().file().recordCount();
    long footerRows =
        input.footer().getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
    if (footerRows != expectedRows) {
      throw new RowCountMismatchException(
          String.format(
              "%s holds %d rows but its metadata says %d", location, footerRows, expectedRows));
    }
    ParquetInputOf file =
        new ParquetInputOf(
            table.io().newInputFile(location, input.task().file().fileSizeInBytes()));
    return InputFileRead.checked(
        input.task(),
        () -> {
          long read = 0;
          long kept = 0;
          try (SeekableInputStream stream = file.newStream();
              ParquetFileReader reader =
                  ParquetFileReader.open(file, input.footer(), readOptions, stream)) {
            BitSet deleted = deletes.of(input, reader);
            List<BlockMetaData> blocks = input.footer().getBlocks();
            for (int index = 0; index < blocks.size(); index++) {
              kept +=
                  copyRowGroup(input, reader, stream, index, read, deleted, outputs, columnPool);
              read += blocks.get(index).getRowCount();
            }
          }
          return new InputFileRead.Rows(read, kept);
        });
  }

  /**
   * Copies one input row group, each column its cheapest way ({@link RowGroupCopies}); returns the
   * rows kept.
   */
  private long copyRowGroup(
      ColumnarInput input,
      ParquetFileReader reader,
      SeekableInputStream stream,
      int index,
      long firstRow,
      BitSet deleted,
      OutputFileRoller outputs,
      ExecutorService columnPool)
      throws IOException {
    BlockMetaData block = input.footer().getBlocks().get(index);
    int rows = Math.toIntExact(block.getRowCount());
    int nextDeleted = deleted.nextSetBit(Math.toIntExact(firstRow));
    boolean noDeletes = nextDeleted < 0 || nextDeleted >= firstRow + rows;
    ColumnCopy[] copies =
        rowGroupCopies.choose(input, reader, stream, index, noDeletes, outputs.current());

    long kept = 0;
    // copied pages hold the whole row group: it goes into one output row group
    boolean pagesCopied =
        Arrays.stream(copies).anyMatch(copy -> copy instanceof ColumnCopy.PassThrough);
    int sliceRows = pagesCopied ? Math.max(rows, 1) : ROWS_PER_SLICE;
    ExecutorService pool = columnPool != null && threadSafeCodecs(block) ? columnPool : null;
    for (int from = 0; from < rows; from += sliceRows) {
      int to = Math.min(rows, from + sliceRows);
      kept += copySlice(copies, from, to, firstRow, deleted, outputs.current(), pool);
      outputs.afterSlice();
    }
    return kept;
  }

  /**
   * Copies rows {@code [from, to)} of the open row group, every column; returns the rows kept. With
   * a {@code pool}, the columns not copied as whole pages are copied at once, one task each: every
   * column has its own reader, sink and metrics, and the codecs keep their state per thread.
   */
  private static int copySlice(
      ColumnCopy[] copies,
      int from,
      int to,
      long firstRow,
      BitSet deleted,
      ColumnarFileWriter out,
      ExecutorService pool) {
    ColumnSink[] sinks = new ColumnSink[copies.length];
    int[] written = new int[copies.length];
    List<Integer> toCopy = new ArrayList<>();
    for (int c = 0; c < copies.length; c++) {
      sinks[c] =
          out.sink(
              c, copies[c].plainSink()); // opened here, on the one thread that owns the file writer
      if (copies[c] instanceof ColumnCopy.PassThrough) {
        written[c] = copies[c].copy(sinks[c], out.floatMetrics(c), from, to, firstRow, deleted);
      } else {
        toCopy.add(c);
      }
    }
    if (pool == null || toCopy.size() < 2) {
      for (int c : toCopy) {
        written[c] = copies[c].copy(sinks[c], out.floatMetrics(c), from, to, firstRow, deleted);
      }
    } else {
      List<Future<Integer>> tasks = new ArrayList<>(toCopy.size());
      for (int c : toCopy) {
        ColumnCopy copy = copies[c];
        ColumnSink sink = sinks[c];
        FloatingPointMetrics metrics = out.floatMetrics(c);
        tasks.add(pool.submit(() -> copy.copy(sink, metrics, from, to, firstRow, deleted)));
      }
      int[] results = awaitAll(tasks);
      for (int i = 0; i < results.length; i++) {
        written[toCopy.get(i)] = results[i];
      }
    }
    int kept = -1;
    for (int c = 0; c < copies.length; c++) {
      if (kept >= 0 && written[c] != kept) {
        throw new IllegalStateException(
            String.format(
                "Column %s kept %d rows, the previous column %d",
                sinks[c].column(), written[c], kept));
      }
      kept = written[c];
    }
    out.rowsAdded(kept);
    return kept;
  }

  /**
   * The tasks' results in order. Every task is waited for, even after one failed, so no copy still
   * writes into a sink when the failure reaches the caller (which then aborts the output); the
   * first failure is raised as it was thrown.
   */
  private static int[] awaitAll(List<Future<Integer>> tasks) {
    int[] results = new int[tasks.size()];
    Throwable failure = null;
    boolean interrupted = false;
    for (int i = 0; i < tasks.size(); i++) {
      while (true) {
        try {
          results[i] = tasks.get(i).get();
          break;
        } catch (ExecutionException e) {
          failure = failure == null ? e.getCause() : failure;
          break;
        } catch (InterruptedException e) {
          interrupted = true; // keep waiting: the task must end before the sink is touched again
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
      if (failure == null) {
        failure = new GroupRewriteException("Interrupted while copying columns", null);
      }
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    } else if (failure instanceof Error error) {
      throw error;
    } else if (failure != null) {
      throw new IllegalStateException(failure);
    }
    return results;
  }

  /** Whether every chunk of the row group is read with a codec whose decompressor is per thread. */
  private static boolean threadSafeCodecs(BlockMetaData block) {
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getCodec() != CompressionCodecName.ZSTD
          && chunk.getCodec() != CompressionCodecName.UNCOMPRESSED) {
        return false;
      }
    }
    return true;
  }

  private static ExecutorService newColumnPool(int threads) {
    return Executors.newFixedThreadPool(
        threads,
        runnable -> {
          Thread thread = new Thread(runnable, "column-copy");
          thread.setDaemon(true);
          return thread;
        });
  }
}
