package io.icecompact.worker.sort;

import io.icecompact.core.error.FailureClassifier;
import io.icecompact.core.error.GroupRewriteException;
import io.icecompact.core.job.RowOrder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.DataWriter;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.types.Types;

/**
 * A group's live rows sorted with bounded memory: rows are buffered {@code runRows} at a time, each
 * full buffer is sorted in memory ({@link SortedRows}, the same keys and order) and spilled to a
 * local file as a sorted run, then the runs are merged (a priority queue over one reader per run).
 * Ties between runs go to the earlier run, so the result is the sequence the in-memory stable sort
 * gives.
 *
 * <p>Runs are Avro files written and read with Iceberg's generic Avro writer and reader: Avro is
 * read a block (tens of KB) at a time, so a merge of k runs holds k blocks, where a Parquet reader
 * would hold a decoded row group per run. They are zstd level 1: fast, and /tmp is what bounds the
 * group.
 *
 * <p>A run row is the row's columns then its output partition's number (an index into the
 * partitions added, -1 to compute it from the row), so each row is written under the partition it
 * came with. Run columns carry fresh field ids: under its reserved ids Iceberg's Avro reader would
 * derive the v3 row lineage columns from file constants (none here) instead of reading them.
 *
 * <p>Every file lives in a directory of its own under the spill directory, deleted by {@link
 * #close}. The directory's name holds the process id, so that the runs a dead process left (a
 * Lambda worker ended by its timeout keeps its /tmp for the next invocation) can be told apart and
 * deleted ({@link #deleteAbandoned}).
 */
public final class ExternalSortedRows implements RowSorter {
  private static final String DIRECTORY_PREFIX = "icecompact-sort-";
  private static final long PID = ProcessHandle.current().pid();
  // the run directories of this process's sorts not yet closed
  private static final Set<Path> IN_USE = ConcurrentHashMap.newKeySet();

  private final RowKeys keys;
  private final Schema runSchema;
  private final int columns;
  private final long runRows;
  private final Path directory;
  private final List<Path> runs = new ArrayList<>();
  private final Map<StructLike, Integer> partitionNumbers = new IdentityHashMap<>();
  private final List<StructLike> partitions = new ArrayList<>();
  private SortedRows buffer;
  private long spilledBytes;

  /**
   * For rows of {@code rowSchema} ordered by {@code order} ({@code repartitionInto} as in {@link
   * SortedRows}), holding at most {@code runRows} rows in memory, spilling under {@code
   * spillDirectory}.
   */
  public ExternalSortedRows(
      Schema rowSchema,
      RowOrder order,
      PartitionSpec repartitionInto,
      long runRows,
      Path spillDirectory) {
    if (runRows < 1) {
      throw new IllegalArgumentException("runRows must be >= 1, got " + runRows);
    }
    this.keys = new RowKeys(rowSchema, order, repartitionInto);
    this.columns = rowSchema.columns().size();
    this.runSchema = runSchema(rowSchema);
    this.runRows = runRows;
    this.buffer = new SortedRows(keys);
    try {
      Files.createDirectories(spillDirectory);
      this.directory = Files.createTempDirectory(spillDirectory, DIRECTORY_PREFIX + PID + "-");
      IN_USE.add(directory);
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(
          e,
          "Cannot create a directory for sorted runs under " + spillDirectory,
          GroupRewriteException::new);
    }
  }

  /**
   * Deletes the run directories under {@code spillDirectory} that no sort uses: those of processes
   * no longer running, and this process's own not in use (a restarted Lambda runtime may get the
   * dead one's process id). Returns how many were deleted; never fails.
   */
  public static int deleteAbandoned(Path spillDirectory) {
    int deleted = 0;
    try (Stream<Path> directories = Files.list(spillDirectory)) {
      for (Path directory : (Iterable<Path>) directories::iterator) {
        if (abandoned(directory)) {
          deleteDirectory(directory);
          deleted++;
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // no spill directory yet, or one we cannot list: nothing of ours to delete
    }
    return deleted;
  }

  private static boolean abandoned(Path directory) {
    String name = directory.getFileName().toString();
    if (!name.startsWith(DIRECTORY_PREFIX) || !Files.isDirectory(directory)) {
      return false;
    }
    String rest = name.substring(DIRECTORY_PREFIX.length());
    int dash = rest.indexOf('-');
    long pid;
    try {
      pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
    } catch (NumberFormatException e) {
      return false; // not named by this class
    }
    if (pid == PID) {
      return !IN_USE.contains(directory);
    }
    return ProcessHandle.of(pid).map(process -> !process.isAlive()).orElse(true);
  }

  private static void deleteDirectory(Path directory) {
    try (Stream<Path> files = Files.list(directory)) {
      files.forEach(file -> file.toFile().delete());
    } catch (IOException | RuntimeException ignored) {
      // fall through: the directory's own delete fails too, and the files are left for the next
      // cleanup
    }
    directory.toFile().delete();
  }

  /** The row's columns under fresh field ids (see the class comment), then the partition number. */
  private static Schema runSchema(Schema rowSchema) {
    List<Types.NestedField> fields = new ArrayList<>();
    int nextId = rowSchema.highestFieldId() + 1;
    for (Types.NestedField field : rowSchema.columns()) {
      fields.add(
          MetadataColumns.isMetadataColumn(field.fieldId())
              ? Types.NestedField.optional(nextId++, field.name(), field.type(), field.doc())
              : field);
    }
    fields.add(
        Types.NestedField.required(nextId, "_icecompact_partition", Types.IntegerType.get()));
    return new Schema(fields);
  }

  @Override
  public void add(Record row, StructLike partition) {
    buffer.add(row, partition);
    if (buffer.size() >= runRows) {
      spill();
    }
  }

  /** Sorted runs written so far. */
  public int runs() {
    return runs.size();
  }

  /** Bytes of the sorted runs written so far. */
  public long spilledBytes() {
    return spilledBytes;
  }

  /** Where this sort's runs are (deleted by {@link #close}). */
  public Path directory() {
    return directory;
  }

  @Override
  public void drainTo(SortedSink sink) {
    if (runs.isEmpty()) {
      buffer.drainTo(sink); // it all fit in one buffer: nothing to spill
      return;
    }
    if (buffer.size() > 0) {
      spill();
    }
    buffer = null;
    merge(sink);
  }

  private void spill() {
    Path run = directory.resolve(String.format("run-%05d.avro", runs.size()));
    try (FileAppender<Record> out =
        Avro.write(org.apache.iceberg.Files.localOutput(run.toFile()))
            .schema(runSchema)
            .createWriterFunc(DataWriter::create)
            .set(TableProperties.AVRO_COMPRESSION, "zstd")
            .set(TableProperties.AVRO_COMPRESSION_LEVEL, "1")
            .overwrite()
            .build()) {
      GenericRecord runRow =
          GenericRecord.create(runSchema); // the writer encodes it at once: reused
      buffer.drainTo(
          (row, partition) -> {
            for (int i = 0; i < columns; i++) {
              runRow.set(i, row.get(i, Object.class));
            }
            runRow.set(columns, partitionNumber(partition));
            out.add(runRow);
          });
    } catch (IOException | RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot write sorted run " + run, GroupRewriteException::new);
    }
    runs.add(run);
    try {
      spilledBytes += Files.size(run);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private int partitionNumber(StructLike partition) {
    if (partition == null) {
      return -1;
    }
    return partitionNumbers.computeIfAbsent(
        partition,
        p -> {
          partitions.add(p);
          return partitions.size() - 1;
        });
  }

  /** One run's next row, with its key. */
  private record Head(int run, StructLike key, Record row, Iterator<Record> rest) {}

  private void merge(SortedSink sink) {
    Comparator<Head> order =
        Comparator.comparing(Head::key, keys.order()).thenComparingInt(Head::run);
    PriorityQueue<Head> heads = new PriorityQueue<>(Math.max(1, runs.size()), order);
    List<CloseableIterable<Record>> readers = new ArrayList<>();
    try {
      for (int i = 0; i < runs.size(); i++) {
        CloseableIterable<Record> reader =
            Avro.read(org.apache.iceberg.Files.localInput(runs.get(i).toFile()))
                .project(runSchema)
                .createResolvingReader(PlannedDataReader::create)
                .build();
        readers.add(reader);
        Iterator<Record> rows = reader.iterator();
        if (rows.hasNext()) {
          heads.add(head(i, rows));
        }
      }
      while (!heads.isEmpty()) {
        Head head = heads.poll();
        int partition = (Integer) head.row().get(columns);
        // the row keeps its partition number as a last column: the writer and the partition key
        // read by
        // position, the row's own columns only
        sink.accept(head.row(), partition < 0 ? null : partitions.get(partition));
        if (head.rest().hasNext()) {
          heads.add(head(head.run(), head.rest()));
        }
      }
    } catch (RuntimeException e) {
      throw FailureClassifier.classify(
          e, "Cannot merge sorted runs in " + directory, GroupRewriteException::new);
    } finally {
      for (CloseableIterable<Record> reader : readers) {
        try {
          reader.close();
        } catch (IOException | RuntimeException ignored) {
          // the directory is deleted by close() whatever the reader's state
        }
      }
    }
  }

  private Head head(int run, Iterator<Record> rows) {
    Record row = rows.next();
    return new Head(run, keys.of(row), row, rows);
  }

  @Override
  public void close() {
    buffer = null;
    deleteDirectory(directory);
    IN_USE.remove(directory);
  }
}
