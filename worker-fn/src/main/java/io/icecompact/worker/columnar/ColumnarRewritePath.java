package io.icecompact.worker.columnar;

import io.icecompact.core.error.CorruptInputFileException;
import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.error.IcecompactException;
import io.icecompact.core.error.RowCountMismatchException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.io.FileIO;
import java.util.function.IntConsumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * The columnar rewrite of one group: each input row group is read column by column with parquet-java's
 * column readers and its live values written straight into the output row group's column writers; no
 * row object is ever built. Output row groups close at the table's row-group size and files roll at
 * the group's maximum output size, as the generic path's writer does.
 *
 * <p>Only groups the generic path would rewrite identically come here (see {@code ColumnarEligibility}
 * and {@link #prepare}): flat current-schema Parquet files of the output spec and one partition. Rows
 * keep their input order; v3 lineage is written as the generic path writes it.
 */
public final class ColumnarRewritePath {
  /** Rows copied per column before the output row group's size is checked. */
  private static final int ROWS_PER_SLICE = 50_000;

  private final Table table;
  private final PartitionSpec spec;
  private final long targetFileSize;
  private final DeletedRows deletes;
  private final OutputColumns columns;
  private final WriteSettings settings;
  private final ParquetProperties dictionaryOn;
  private final ParquetProperties dictionaryOff;
  private final int columnThreads;
  // the copy threads of the running rewrite, or null when columns are copied on the caller's thread
  private ExecutorService columnPool;
  // built once per group: the options hold a codec factory, which is not thread-safe
  private final ParquetReadOptions footerOptions = ReadOptions.builder().build();
  private List<ColumnarInput> inputs;

  /** What the rewrite read and wrote. */
  public record Result(List<DataFile> dataFiles, long rowsRead, long rowsDeleted) {
    public long rowsWritten() {
      return dataFiles.stream().mapToLong(DataFile::recordCount).sum();
    }
  }

  public ColumnarRewritePath(Table table, int outputSpecId, long targetFileSize, DeleteLoader deleteLoader) {
    this(table, outputSpecId, targetFileSize, deleteLoader, 1);
  }

  /**
   * @param columnThreads threads copying the columns of an input row group at once (1: the caller's
   *     thread only); a Lambda worker's vCPUs beyond the first are used this way
   */
  public ColumnarRewritePath(
      Table table, int outputSpecId, long targetFileSize, DeleteLoader deleteLoader, int columnThreads) {
    if (columnThreads < 1) {
      throw new IllegalArgumentException("columnThreads must be >= 1, got " + columnThreads);
    }
    this.columnThreads = columnThreads;
    this.table = table;
    this.spec = table.specs().get(outputSpecId);
    this.targetFileSize = targetFileSize;
    this.deletes = new DeletedRows(deleteLoader, table.schema());
    this.columns = new OutputColumns(table.schema(), formatVersion(table));
    this.settings = new WriteSettings(table.properties());
    this.dictionaryOn = settings.properties(true);
    this.dictionaryOff = settings.properties(false);
  }

  /** Footer reads in flight at once: on object storage each is two small round trips. */
  private static final int CONCURRENT_FOOTER_READS = 8;

  /**
   * Reads every input file's footer through {@code footerIO} and checks it was written under the
   * output's columns. Returns why the group must take the generic path instead, or empty when
   * {@link #rewrite} may run.
   *
   * <p>{@code footerIO} is the table's own FileIO, not the input prefetch: the prefetch frees a file's
   * bytes once a later data file is opened, so reading every footer through it first would release
   * (or bypass) the whole group's prefetch before the copy starts. The footers are read concurrently,
   * bounded, because reading hundreds of them one at a time is latency-bound on object storage.
   */
  public Optional<String> prepare(List<FileScanTask> tasks, FileIO footerIO) {
    for (FileScanTask task : tasks) {
      if (task.start() != 0 || task.length() < task.file().fileSizeInBytes()) {
        return Optional.of("the task reads a split of " + task.file().location());
      }
    }
    List<ParquetMetadata> footers = readFooters(tasks, footerIO);
    List<ColumnarInput> checked = new ArrayList<>(tasks.size());
    for (int i = 0; i < tasks.size(); i++) {
      FileScanTask task = tasks.get(i);
      ParquetMetadata footer = footers.get(i);
      MessageType fileType = footer.getFileMetaData().getSchema();
      String problem = FooterCheck.problem(columns.type, fileType, columns.mayBeAbsent());
      if (problem != null) {
        return Optional.of(
            "file written under another schema (" + problem + "): " + task.file().location());
      }
      String deleteProblem =
          FooterCheck.missingDeleteKey(fileType, task.file().location(), task.deletes(), table.schema());
      if (deleteProblem != null) {
        return Optional.of(deleteProblem);
      }
      ColumnDescriptor[] sources = new ColumnDescriptor[columns.size()];
      for (int c = 0; c < sources.length; c++) {
        // by field id, as Iceberg's readers match columns: the file may name it otherwise
        var written = FooterCheck.columnWithId(fileType, columns.fieldId(c));
        sources[c] = written == null ? null : fileType.getColumnDescription(new String[] {written.getName()});
      }
      checked.add(new ColumnarInput(task, footer, sources));
    }
    this.inputs = checked;
    return Optional.empty();
  }

  private List<ParquetMetadata> readFooters(List<FileScanTask> tasks, FileIO footerIO) {
    if (tasks.size() == 1) {
      return List.of(readFooter(tasks.get(0), footerIO));
    }
    ExecutorService readers =
        Executors.newFixedThreadPool(
            Math.min(CONCURRENT_FOOTER_READS, tasks.size()),
            runnable -> {
              Thread thread = new Thread(runnable, "footer-read");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<ParquetMetadata>> pending = new ArrayList<>(tasks.size());
      for (FileScanTask task : tasks) {
        pending.add(readers.submit(() -> readFooter(task, footerIO)));
      }
      List<ParquetMetadata> footers = new ArrayList<>(tasks.size());
      for (Future<ParquetMetadata> footer : pending) {
        footers.add(footer.get());
      }
      return footers;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime; // already typed by readFooter
      }
      if (e.getCause() instanceof Error error) {
        throw error; // e.g. OutOfMemoryError: not ours to wrap
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading footers", e);
    } finally {
      readers.shutdownNow();
    }
  }

  public Result rewrite(OutputFileFactory files, IntConsumer progress) {
    if (inputs == null) {
      throw new IllegalStateException("prepare() first");
    }
    StructLike partition = inputs.get(0).task().file().partition();
    MetricsConfig metricsConfig = MetricsConfig.forTable(table);
    PageCompressor compressor = settings.newCompressor();
    PageDecompressors decompressors = new PageDecompressors(footerOptions.getCodecFactory());
    ParquetReadOptions readOptions = ReadOptions.builder().withCodecFactory(decompressors).build();
    OutputFiles outputs = new OutputFiles(files, partition, metricsConfig, compressor);
    long rowsRead = 0;
    long rowsDeleted = 0;
    boolean failed = true;
    // parquet-java's codecs other than ZSTD keep per-instance state: those tables copy on one thread
    columnPool = columnThreads > 1 && compressor.threadSafe() ? newColumnPool(columnThreads) : null;
    try {
      int done = 0;
      for (ColumnarInput input : inputs) {
        long[] counts = copyFile(input, readOptions, outputs);
        rowsRead += counts[0];
        rowsDeleted += counts[1];
        progress.accept(++done);
      }
      outputs.finish();
      failed = false;
    } finally {
      if (columnPool != null) {
        columnPool.shutdownNow();
        columnPool = null;
      }
      if (failed) {
        outputs.abortAndDelete();
      }
      compressor.close();
      decompressors.close();
    }
    Result result = new Result(List.copyOf(outputs.written), rowsRead, rowsDeleted);
    if (result.rowsWritten() != rowsRead - rowsDeleted) {
      outputs.deleteWritten();
      throw new RowCountMismatchException(
          String.format(
              "Wrote %d rows but read %d and deleted %d (expected %d written)",
              result.rowsWritten(), rowsRead, rowsDeleted, rowsRead - rowsDeleted));
    }
    return result;
  }

  /** Copies one file's live rows; returns {rows read, rows deleted}. */
  private long[] copyFile(ColumnarInput input, ParquetReadOptions readOptions, OutputFiles outputs) {
    String location = input.location();
    long expectedRows = input.task().file().recordCount();
    long footerRows = input.footer().getBlocks().stream().mapToLong(BlockMetaData::getRowCount).sum();
    if (footerRows != expectedRows) {
      throw new RowCountMismatchException(
          String.format("%s holds %d rows but its metadata says %d", location, footerRows, expectedRows));
    }
    long read = 0;
    long kept = 0;
    ParquetInputOf file = new ParquetInputOf(table.io().newInputFile(location, input.task().file().fileSizeInBytes()));
    try (SeekableInputStream stream = file.newStream();
        ParquetFileReader reader =
            ParquetFileReader.open(file, input.footer(), readOptions, stream)) {
      BitSet deleted = deletes.of(input, reader);
      List<BlockMetaData> blocks = input.footer().getBlocks();
      for (int index = 0; index < blocks.size(); index++) {
        kept += copyRowGroup(input, reader, stream, index, read, deleted, outputs);
        read += blocks.get(index).getRowCount();
      }
    } catch (IcecompactException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot rewrite data file " + location, CorruptInputFileException::new);
    }
    if (read != expectedRows) {
      throw new RowCountMismatchException(
          String.format("Read %d rows from %s but its metadata says %d", read, location, expectedRows));
    }
    return new long[] {read, read - kept};
  }

  /**
   * Copies one input row group: chunks that qualify (no deleted row, see {@link ChunkPassThrough}) as
   * their compressed pages, plain chunks of a row group with deleted rows by their pages' bytes
   * ({@link PlainPageFilter}), dictionary-encoded chunks by id ({@link DictionaryIdCopier}), the
   * others value by value. Returns the rows kept.
   */
  private long copyRowGroup(
      ColumnarInput input,
      ParquetFileReader reader,
      SeekableInputStream stream,
      int index,
      long firstRow,
      BitSet deleted,
      OutputFiles outputs) throws IOException {
    BlockMetaData block = input.footer().getBlocks().get(index);
    int rows = Math.toIntExact(block.getRowCount());
    int nextDeleted = deleted.nextSetBit(Math.toIntExact(firstRow));
    boolean noDeletes = nextDeleted < 0 || nextDeleted >= firstRow + rows;
    Map<ColumnPath, ColumnChunkMetaData> chunks = new HashMap<>();
    block.getColumns().forEach(chunk -> chunks.put(chunk.getPath(), chunk));

    ColumnarFileWriter out = outputs.current();
    ColumnChunkMetaData[] sourceChunks = new ColumnChunkMetaData[columns.size()];
    boolean[] plainWanted = new boolean[columns.size()];
    boolean[] onPages = new boolean[columns.size()];
    List<List<ChunkPassThrough.CopiedPage>> copied = new ArrayList<>();
    List<ColumnDescriptor> toDecode = new ArrayList<>();
    boolean anyCopied = false;
    for (int c = 0; c < columns.size(); c++) {
      ColumnDescriptor source = input.sources()[c];
      sourceChunks[c] = source == null ? null : chunks.get(ColumnPath.get(source.getPath()));
      boolean lineage = columns.isRowId(c) || columns.isLastUpdatedSequenceNumber(c);
      // a required input column under an optional output one: its pages need definition levels added
      boolean sameLevels =
          source != null && source.getMaxDefinitionLevel() == columns.columns.get(c).getMaxDefinitionLevel();
      // values stored otherwise (a decimal in fixed bytes for an INT64 one) are converted one by one
      boolean sameValues =
          source != null
              && source.getPrimitiveType().getPrimitiveTypeName()
                  == columns.columns.get(c).getPrimitiveType().getPrimitiveTypeName();
      boolean passThrough =
          sourceChunks[c] != null && !lineage && sameLevels && sameValues
              && ChunkPassThrough.eligible(sourceChunks[c], settings.codec);
      boolean plainPages =
          sourceChunks[c] != null && !lineage && sameValues
              && ChunkPassThrough.plainValues(sourceChunks[c])
              && PlainPageFilter.supports(source);
      plainWanted[c] = passThrough || plainPages;
      List<ChunkPassThrough.CopiedPage> pages = null;
      boolean plainSink = plainWanted[c] && out.sink(c, true) != null && out.isPlain(c);
      if (noDeletes && passThrough && plainSink) {
        pages = ChunkPassThrough.read(stream, sourceChunks[c]);
      }
      onPages[c] =
          pages == null && plainSink && plainPages // deleted rows, added levels, v2 pages or another codec
              || !plainWanted[c] && sameValues && idsWanted(c, sourceChunks[c], out);
      copied.add(pages);
      anyCopied |= pages != null;
      if (pages == null && source != null) {
        toDecode.add(source);
      }
    }

    ColumnReader[] readers = new ColumnReader[columns.size()];
    PageCopier[] pageCopiers = new PageCopier[columns.size()];
    if (!toDecode.isEmpty()) {
      MessageType fileType = input.footer().getFileMetaData().getSchema();
      reader.setRequestedSchema(toDecode);
      PageReadStore pages = reader.readRowGroup(index);
      ColumnReadStoreImpl store =
          new ColumnReadStoreImpl(
              pages, NoConverter.forSchema(fileType), fileType, input.footer().getFileMetaData().getCreatedBy());
      for (int c = 0; c < readers.length; c++) {
        ColumnDescriptor source = input.sources()[c];
        if (source != null && copied.get(c) == null) {
          long values;
          if (onPages[c]) {
            PageReader pageReader = pages.getPageReader(source);
            values = pageReader.getTotalValueCount();
            pageCopiers[c] =
                plainWanted[c]
                    ? new PlainPageFilter(
                        pageReader, source, columns.columns.get(c), settings.pageRowLimit, settings.pageSize)
                    : new DictionaryIdCopier(pageReader, source);
          } else {
            readers[c] = store.getColumnReader(source);
            values = readers[c].getTotalValueCount();
          }
          if (values != rows) {
            throw new CorruptInputFileException(
                String.format(
                    "Column %s of row group %d of %s has %d values for %d rows",
                    source, index, input.location(), values, rows));
          }
        }
      }
    }

    long kept = 0;
    // copied pages hold the whole row group: it goes into one output row group
    int sliceRows = anyCopied ? Math.max(rows, 1) : ROWS_PER_SLICE;
    ExecutorService pool = columnPool != null && threadSafeCodecs(block) ? columnPool : null;
    for (int from = 0; from < rows; from += sliceRows) {
      int to = Math.min(rows, from + sliceRows);
      kept += copySlice(
          input, readers, pageCopiers, copied, sourceChunks, plainWanted, from, to, firstRow, deleted, outputs.current(),
          pool);
      outputs.afterSlice();
    }
    return kept;
  }

  /**
   * Copies rows {@code [from, to)} of the open row group, every column; returns the rows kept. With a
   * {@code pool}, the columns to decode are copied at once, one task each: every column has its own
   * reader, sink and metrics, and the codecs keep their state per thread.
   */
  private int copySlice(
      ColumnarInput input,
      ColumnReader[] readers,
      PageCopier[] pageCopiers,
      List<List<ChunkPassThrough.CopiedPage>> copied,
      ColumnChunkMetaData[] sourceChunks,
      boolean[] plainWanted,
      int from,
      int to,
      long firstRow,
      BitSet deleted,
      ColumnarFileWriter out,
      ExecutorService pool) {
    ColumnSink[] sinks = new ColumnSink[readers.length];
    int[] written = new int[readers.length];
    List<Integer> toDecode = new ArrayList<>();
    for (int c = 0; c < readers.length; c++) {
      sinks[c] = out.sink(c, plainWanted[c]); // opened here, on the one thread that owns the file writer
      if (copied.get(c) != null) {
        ChunkPassThrough.append(copied.get(c), sourceChunks[c], sinks[c]);
        written[c] = to - from;
      } else {
        toDecode.add(c);
      }
    }
    if (pool == null || toDecode.size() < 2) {
      for (int c : toDecode) {
        written[c] =
            copyColumn(
                input, readers[c], pageCopiers[c], sinks[c], out.floatMetrics(c), c, from, to, firstRow, deleted);
      }
    } else {
      List<Future<Integer>> tasks = new ArrayList<>(toDecode.size());
      for (int c : toDecode) {
        ColumnReader reader = readers[c];
        PageCopier pageCopier = pageCopiers[c];
        ColumnSink sink = sinks[c];
        FloatingPointMetrics metrics = out.floatMetrics(c);
        int column = c;
        tasks.add(
            pool.submit(
                () -> copyColumn(input, reader, pageCopier, sink, metrics, column, from, to, firstRow, deleted)));
      }
      int[] results = awaitAll(tasks);
      for (int i = 0; i < results.length; i++) {
        written[toDecode.get(i)] = results[i];
      }
    }
    int kept = -1;
    for (int c = 0; c < readers.length; c++) {
      if (kept >= 0 && written[c] != kept) {
        throw new IllegalStateException(
            String.format("Column %s kept %d rows, the previous column %d", sinks[c].column(), written[c], kept));
      }
      kept = written[c];
    }
    out.rowsAdded(kept);
    return kept;
  }

  /** Copies one column's rows {@code [from, to)}, deleted rows left out; returns the rows written. */
  private int copyColumn(
      ColumnarInput input,
      ColumnReader reader,
      PageCopier pageCopier,
      ColumnSink sink,
      FloatingPointMetrics metrics,
      int c,
      int from,
      int to,
      long firstRow,
      BitSet deleted) {
    if (pageCopier != null) {
      return pageCopier.copy(sink, from, to, firstRow, deleted);
    }
    Long firstRowId = input.task().file().firstRowId();
    if (columns.isRowId(c)) {
      return LineageCopier.copy(reader, sink, firstRowId, null, true, from, to, firstRow, deleted);
    } else if (columns.isLastUpdatedSequenceNumber(c)) {
      Long dataSequenceNumber = input.task().file().dataSequenceNumber();
      return LineageCopier.copy(reader, sink, firstRowId, dataSequenceNumber, false, from, to, firstRow, deleted);
    }
    if (reader == null) {
      return ColumnCopier.copyNulls(sink, metrics, from, to, firstRow, deleted); // added after the file was written
    }
    return ColumnCopier.copy(reader, sink, metrics, from, to, firstRow, deleted);
  }

  /**
   * The tasks' results in order. Every task is waited for, even after one failed, so no copy still
   * writes into a sink when the failure reaches the caller (which then aborts the output); the first
   * failure is raised as it was thrown.
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

  /**
   * Whether column {@code c}'s chunk is copied by id: every data page dictionary-encoded (by its
   * encoding statistics) into a dictionary column, and not a lineage column (those derive values).
   */
  private boolean idsWanted(int c, ColumnChunkMetaData chunk, ColumnarFileWriter out) {
    return dictionaryPagesOnly(chunk)
        && !columns.isRowId(c)
        && !columns.isLastUpdatedSequenceNumber(c)
        && DictionaryIdCopier.supports(out.sink(c, false).column())
        && out.sink(c, false).dictionary() != null;
  }

  /**
   * Whether every data page of the chunk is dictionary-encoded: by its encoding statistics, or, in a
   * file without them (Trino's writer, old parquet-java), by its encodings when no value encoding but
   * the dictionary's is listed (a v1 dictionary page is PLAIN_DICTIONARY; a v2 one is PLAIN, which
   * leaves such a chunk undecided, so decoded).
   */
  private static boolean dictionaryPagesOnly(ColumnChunkMetaData chunk) {
    if (chunk == null) {
      return false;
    }
    EncodingStats stats = chunk.getEncodingStats();
    if (stats != null) {
      return stats.hasDictionaryEncodedPages() && !stats.hasNonDictionaryEncodedPages();
    }
    return chunk.hasDictionaryPage()
        && chunk.getEncodings().stream().anyMatch(Encoding::usesDictionary)
        && chunk.getEncodings().stream()
            .allMatch(e -> e.usesDictionary() || e == Encoding.RLE || e == Encoding.BIT_PACKED);
  }

  /** Whether every chunk of the row group is read with a codec whose decompressor is per thread. */
  private static boolean threadSafeCodecs(BlockMetaData block) {
    for (ColumnChunkMetaData chunk : block.getColumns()) {
      if (chunk.getCodec() != CompressionCodecName.ZSTD && chunk.getCodec() != CompressionCodecName.UNCOMPRESSED) {
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

  /** The group's output files: the open one, and those closed so far. */
  private final class OutputFiles {
    private final OutputFileFactory files;
    private final StructLike partition;
    private final MetricsConfig metricsConfig;
    private final PageCompressor compressor;
    private final List<DataFile> written = new ArrayList<>();
    private ColumnarFileWriter open;

    OutputFiles(
        OutputFileFactory files, StructLike partition, MetricsConfig metricsConfig, PageCompressor compressor) {
      this.compressor = compressor;
      this.files = files;
      this.partition = partition;
      this.metricsConfig = metricsConfig;
    }

    ColumnarFileWriter current() {
      if (open == null) {
        try {
          open = new ColumnarFileWriter(
              files.newOutputFile(spec, partition), columns, settings, dictionaryOn, dictionaryOff, compressor);
        } catch (IOException | RuntimeException e) {
          throw FailureClassifier.classify(e, "Cannot create output file", GroupRewriteException::new);
        }
      }
      return open;
    }

    /** Ends the row group at the table's row-group size, and the file at the target file size. */
    void afterSlice() {
      if (open == null) {
        return;
      }
      try {
        if (open.estimatedLength() >= targetFileSize) {
          closeOpen();
        } else if (open.rowGroupBytes() >= settings.rowGroupSize) {
          open.flushRowGroup();
        }
      } catch (IOException | RuntimeException e) {
        throw FailureClassifier.classify(e, "Cannot write output file", GroupRewriteException::new);
      }
    }

    void finish() {
      try {
        if (open != null) {
          closeOpen();
        }
      } catch (IOException | RuntimeException e) {
        throw FailureClassifier.classify(e, "Cannot finish output file", GroupRewriteException::new);
      }
    }

    private void closeOpen() throws IOException {
      ColumnarFileWriter closing = open;
      open = null;
      if (closing.rows() == 0 && closing.rowGroupBytes() == 0) {
        closing.abort();
        table.io().deleteFile(closing.location());
        return;
      }
      try {
        written.add(closing.close(spec, partition, metricsConfig));
      } catch (IOException | RuntimeException e) {
        closing.abort();
        deleteQuietly(closing.location());
        throw e;
      }
    }

    void abortAndDelete() {
      if (open != null) {
        open.abort();
        deleteQuietly(open.location());
        open = null;
      }
      deleteWritten();
    }

    void deleteWritten() {
      written.forEach(file -> deleteQuietly(file.location()));
    }

    private void deleteQuietly(String location) {
      try {
        table.io().deleteFile(location);
      } catch (RuntimeException ignored) {
        // an undeletable orphan is left for remove_orphan_files; the failure being raised matters more
      }
    }
  }

  private ParquetMetadata readFooter(FileScanTask task, FileIO footerIO) {
    String location = task.file().location();
    ParquetInputOf file = new ParquetInputOf(footerIO.newInputFile(location, task.file().fileSizeInBytes()));
    try (SeekableInputStream stream = file.newStream()) {
      return ParquetFileReader.readFooter(file, footerOptions, stream);
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot rewrite data file " + location, CorruptInputFileException::new);
    }
  }

  private static int formatVersion(Table table) {
    return table instanceof HasTableOperations ops ? ops.operations().current().formatVersion() : 2;
  }
}
