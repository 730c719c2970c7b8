package io.icecompact.cli.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.DeleteGranularity;
import org.apache.iceberg.io.BaseTaskWriter;
import org.apache.iceberg.io.FileWriterFactory;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.io.WriteResult;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * A CDC table laid out exactly as Flink 1.20's Iceberg sink writes it, upsert or changelog mode, for
 * tests and benchmarks. Each checkpoint, each writer (a sink subtask; keys are routed to writers by a hash
 * of the key, as Flink's {@code keyBy} on the equality fields does) has one delta writer per partition:
 * Iceberg-core's own {@link BaseTaskWriter.BaseEqualityDeltaWriter}, the code Flink's
 * {@code BaseDeltaTaskWriter} subclasses, here over generic {@link Record}s and
 * {@link GenericFileWriterFactory}. So, as in Flink:
 *
 * <ul>
 *   <li>an upsert ({@code +I}/{@code +U} in upsert mode) first deletes the key: by position (the earlier
 *       row's file and offset) when this writer wrote the key earlier in this checkpoint, else by writing
 *       the key into the partition's equality-delete file; then it writes the row into the data file;
 *   <li>a {@code -U}/{@code -D} in changelog mode deletes the whole old row the same way (Flink's
 *       equality-delete row schema is then the whole table schema; in upsert mode it is the key);
 *   <li>position deletes are file-scoped ({@link DeleteGranularity#FILE}, one position delete file per data
 *       file) on v2, and one deletion-vector Puffin file per writer and checkpoint on v3 (Iceberg's
 *       {@code PartitioningDVWriter}, which {@link BaseTaskWriter} opens when asked for DVs, as Flink does
 *       on v3); equality deletes stay equality deletes;
 *   <li>all writers' files of a checkpoint are committed in one {@link RowDelta} (an append when a
 *       checkpoint has no delete file), with Flink's {@code flink.*} summary properties: one snapshot per
 *       checkpoint, so a checkpoint's equality deletes apply only to older checkpoints' data.
 * </ul>
 *
 * <p>Keys are drawn from {@code keySpace} with a seeded {@link Random}; with probability {@code
 * repeatFraction} a change picks a key the same writer already changed in this checkpoint (the source of
 * position deletes). Row values are a function of the key and the change's sequence number, so the model
 * ({@link #expectedLiveRows()}) is one {@code long} per key.
 */
public final class FlinkUpsertTable {
  /** UPSERT: {@code write.upsert.enabled=true}. CHANGELOG: retractions ({@code -U/+U}, {@code -D}) without upsert. */
  public enum Mode {
    UPSERT,
    CHANGELOG
  }

  /**
   * How the stream is shaped: {@code checkpoints} commits, each with {@code changesPerWriterPerCheckpoint}
   * changes into each of {@code writers} writers, table partitioned by {@code bucket(buckets, id)}. A change
   * is a delete with probability {@code deleteFraction} (of a live key), else an upsert (UPSERT) or an
   * insert or update (CHANGELOG).
   */
  public record Shape(
      Mode mode, int formatVersion, int checkpoints, int writers, int buckets, int changesPerWriterPerCheckpoint,
      long keySpace, boolean compositeKey, double deleteFraction, double repeatFraction, long seed) {

    public Shape {
      if (formatVersion < 2 || formatVersion > 3) {
        throw new IllegalArgumentException("Format version 2 or 3, got " + formatVersion);
      }
      if (checkpoints < 0 || writers < 1 || buckets < 1 || changesPerWriterPerCheckpoint < 1) {
        throw new IllegalArgumentException("Checkpoints >= 0, writers, buckets and changes >= 1");
      }
      if (keySpace < 1 || keySpace > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("Key space 1 to " + Integer.MAX_VALUE + ", got " + keySpace);
      }
    }

    /**
     * The issue's table: v2, 69 checkpoints of 2 writers into bucket(4, id), ~2,660 rows per data file: 552 data
     * files, 1.47M rows written, 1.33M equality-delete keys, 141k position deletes, 880k live rows, 37 MB of data.
     */
    public static Shape upsert() {
      return new Shape(Mode.UPSERT, 2, 69, 2, 4, 10_650, 1_480_000, false, 0.0, 0.09, 69);
    }

    /**
     * Ten times the issue's stream (690 checkpoints, ten times the keys): 5,520 data files, 375 MB, 13.4M
     * equality-delete keys, 8.8M live rows.
     */
    public static Shape upsert10x() {
      return new Shape(Mode.UPSERT, 2, 690, 2, 4, 10_650, 14_800_000, false, 0.0, 0.09, 690);
    }

    /**
     * A changelog stream of 65 checkpoints: the first only inserts (no equality delete yet), then updates as
     * {@code -U/+U} and 5% deletes: ~520 data files, ~512 equality-delete files, ~520 position delete files.
     */
    public static Shape changelog() {
      return new Shape(Mode.CHANGELOG, 2, 65, 2, 4, 10_650, 1_000_000, false, 0.05, 0.09, 65);
    }

    /** Seconds to build: 12 checkpoints x 2 writers x 4 buckets, 200 changes per writer and checkpoint. */
    public static Shape small(Mode mode, int formatVersion, boolean compositeKey) {
      return new Shape(mode, formatVersion, 12, 2, 4, 200, compositeKey ? 1_200 : 1_000, compositeKey, 0.1, 0.1, 12);
    }

    public Shape withFormatVersion(int version) {
      return new Shape(mode, version, checkpoints, writers, buckets, changesPerWriterPerCheckpoint, keySpace,
          compositeKey, deleteFraction, repeatFraction, seed);
    }

    /** Changes written in all: checkpoints x writers x changes per writer and checkpoint. */
    public long changes() {
      return (long) checkpoints * writers * changesPerWriterPerCheckpoint;
    }
  }

  /** What one checkpoint sent to the sink, summed over its writers. */
  public record Changes(long checkpointId, int inserts, int updates, int deletes) {}

  /**
   * The table's live files by content: data files (count, bytes, rows), equality delete files (count,
   * keys), position delete files and deletion vectors (count, positions).
   */
  public record Layout(
      long dataFiles, long dataBytes, long dataRows, long equalityDeleteFiles, long equalityDeletes,
      long positionDeleteFiles, long positionDeletes, long deletionVectors, long deletionVectorPositions) {

    public static Layout of(Table table) {
      long[] f = new long[9];
      Snapshot current = table.currentSnapshot();
      if (current == null) {
        return new Layout(0, 0, 0, 0, 0, 0, 0, 0, 0);
      }
      for (ManifestFile manifest : current.allManifests(table.io())) {
        if (manifest.content() == org.apache.iceberg.ManifestContent.DATA) {
          try (ManifestReader<DataFile> files = ManifestFiles.read(manifest, table.io(), table.specs())) {
            for (DataFile file : files) {
              f[0]++;
              f[1] += file.fileSizeInBytes();
              f[2] += file.recordCount();
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        } else {
          try (ManifestReader<DeleteFile> files =
              ManifestFiles.readDeleteManifest(manifest, table.io(), table.specs())) {
            for (DeleteFile file : files) {
              int at = file.content() == FileContent.EQUALITY_DELETES ? 3 : file.format() == FileFormat.PUFFIN ? 7 : 5;
              f[at]++;
              f[at + 1] += file.recordCount();
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
      return new Layout(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT,
          "%,d data files, %.1f MB, %,d rows; %,d equality delete files of %,d keys; %s",
          dataFiles, dataBytes / (1024.0 * 1024), dataRows, equalityDeleteFiles, equalityDeletes,
          deletionVectors > 0
              ? String.format(Locale.ROOT, "%,d deletion vectors of %,d positions", deletionVectors,
                  deletionVectorPositions)
              : String.format(Locale.ROOT, "%,d position delete files of %,d positions", positionDeleteFiles,
                  positionDeletes));
    }
  }

  /** Flink's snapshot summary properties (SinkUtil). */
  public static final String MAX_COMMITTED_CHECKPOINT_ID = "flink.max-committed-checkpoint-id";
  public static final String FLINK_JOB_ID = "flink.job-id";
  public static final String OPERATOR_ID = "flink.operator-id";

  private static final String[] STATUSES = {"active", "active", "active", "pending", "suspended", "closed"};
  private static final String[] FIRST = {
    "Ada", "Ben", "Chloé", "Dmitri", "Eva", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kofi", "Lena", "Mateo",
    "Nora", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Vik", "Wen", "Xavier", "Yara", "Zoe"
  };
  /** Surnames of two parts: 1,024 of them. */
  private static final String[] LAST_START = {
    "Ander", "Bau", "Cos", "Du", "Eriks", "Fisch", "Gar", "Han", "Ivan", "Jen", "Kowal", "Lo", "Mül", "Naka", "Oka",
    "Pet", "Ros", "Schmi", "Tana", "We", "Ber", "Hol", "Lind", "Mar", "Nor", "Ols", "Quint", "Rich", "Stein",
    "Var", "Wal", "Zim"
  };
  private static final String[] LAST_END = {
    "sen", "er", "ta", "bois", "son", "mann", "cía", "ova", "ski", "pez", "ler", "mura", "for", "rov", "si", "dt",
    "ka", "ber", "berg", "stad", "ström", "ville", "ez", "elli", "ino", "ard", "ham", "ley", "wood", "ton",
    "field", "hart"
  };
  private static final String[] DOMAINS = {
    "example.com", "example.org", "mail.example", "post.example", "inbox.example", "corp.example"
  };
  private static final int TENANTS = 4;
  private static final int EVENTS_PER_ID = 3;
  /** The stream's first change, 2026-06-01T00:00Z, and one change per 3 ms after it. */
  private static final long START_MICROS = Instant.parse("2026-06-01T00:00:00Z").getEpochSecond() * 1_000_000;
  private static final long MICROS_PER_CHANGE = 3_000;

  private final Table table;
  private final Shape shape;
  private final Schema schema;
  private final Schema keySchema;
  private final Random random;
  private final String jobId = UUID.randomUUID().toString().replace("-", "");
  private final String operatorId = UUID.randomUUID().toString().replace("-", "");
  private final FileWriterFactory<Record> writerFactory;
  private final List<OutputFileFactory> fileFactories = new ArrayList<>();
  /** The model: per key index, the sequence number of the change that wrote its live row; 0 when not live. */
  private final long[] liveVersion;
  private final List<Changes> changes = new ArrayList<>();
  private long nextVersion = 1;
  private long checkpointId = 0;

  private FlinkUpsertTable(Table table, Shape shape) {
    this.table = table;
    this.shape = shape;
    this.schema = table.schema();
    this.keySchema = TypeUtil.select(schema, schema.identifierFieldIds());
    this.random = new Random(shape.seed());
    this.liveVersion = new long[(int) shape.keySpace()];
    this.writerFactory =
        new GenericFileWriterFactory.Builder(table)
            .dataFileFormat(FileFormat.PARQUET)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(schema.identifierFieldIds().stream().mapToInt(Integer::intValue).sorted().toArray())
            // Flink: the key in upsert mode (an upsert does not know the old row), the whole row otherwise
            .equalityDeleteRowSchema(shape.mode() == Mode.UPSERT ? keySchema : schema)
            .build();
    for (int writer = 0; writer < shape.writers(); writer++) {
      // Flink: OutputFileFactory.builderFor(table, subtask index, attempt id), once per subtask
      fileFactories.add(OutputFileFactory.builderFor(table, writer, 0).format(FileFormat.PARQUET).build());
    }
  }

  /** The table's schema: {@code id} (the key) and four columns, or a key of tenant, id and event time. */
  public static Schema schema(boolean compositeKey) {
    List<Types.NestedField> columns = new ArrayList<>();
    if (compositeKey) {
      columns.add(Types.NestedField.required(1, "tenant", Types.StringType.get()));
      columns.add(Types.NestedField.required(2, "id", Types.LongType.get()));
      columns.add(Types.NestedField.required(3, "event_ts", Types.TimestampType.withZone()));
    } else {
      columns.add(Types.NestedField.required(1, "id", Types.LongType.get()));
    }
    int next = columns.size() + 1;
    columns.add(Types.NestedField.optional(next, "name", Types.StringType.get()));
    columns.add(Types.NestedField.optional(next + 1, "email", Types.StringType.get()));
    columns.add(Types.NestedField.optional(next + 2, "status", Types.StringType.get()));
    columns.add(Types.NestedField.optional(next + 3, "amount", Types.DecimalType.of(10, 2)));
    columns.add(Types.NestedField.optional(next + 4, "updated_at", Types.TimestampType.withZone()));
    Set<Integer> key = compositeKey ? Set.of(1, 2, 3) : Set.of(1);
    return new Schema(columns, key);
  }

  /** Creates the table as a Flink user does ({@code PRIMARY KEY ... NOT ENFORCED}) and writes every checkpoint. */
  public static FlinkUpsertTable create(Catalog catalog, TableIdentifier id, Shape shape) {
    if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(id.namespace())) {
      namespaces.createNamespace(Namespace.of(id.namespace().levels()));
    }
    Schema schema = schema(shape.compositeKey());
    PartitionSpec spec = PartitionSpec.builderFor(schema).bucket("id", shape.buckets()).build();
    Map<String, String> properties = new HashMap<>();
    properties.put(TableProperties.FORMAT_VERSION, Integer.toString(shape.formatVersion()));
    if (shape.mode() == Mode.UPSERT) {
      properties.put(TableProperties.UPSERT_ENABLED, "true");
    }
    Table table = catalog.createTable(id, schema, spec, properties);
    FlinkUpsertTable writer = new FlinkUpsertTable(table, shape);
    for (int i = 0; i < shape.checkpoints(); i++) {
      writer.checkpoint();
    }
    return writer;
  }

  /**
   * The writer of a table {@link #create} built with {@code shape} (or a copy of it), its model caught up by
   * replaying the same seeded stream without writing: further checkpoints continue that table's stream.
   */
  public static FlinkUpsertTable replay(Table table, Shape shape) {
    FlinkUpsertTable writer = new FlinkUpsertTable(table, shape);
    for (int i = 0; i < shape.checkpoints(); i++) {
      writer.checkpointId++;
      writer.plan(shape.changesPerWriterPerCheckpoint());
    }
    return writer;
  }

  public Table table() {
    return table;
  }

  public Shape shape() {
    return shape;
  }

  /** What each checkpoint so far sent to the sink, in order. */
  public List<Changes> changes() {
    return List.copyOf(changes);
  }

  /** One change routed to a writer: its kind, the key's index, the new row's and the old row's sequence numbers. */
  private record Change(Kind kind, int key, long version, long oldVersion) {}

  private enum Kind {
    INSERT,
    UPDATE,
    DELETE
  }

  /**
   * Writes and commits one more checkpoint: every writer's changes through its delta writers, then one
   * commit of all their files. The table is refreshed first, so another commit (a compaction) may have
   * happened since.
   */
  public void checkpoint() {
    checkpoint(shape.changesPerWriterPerCheckpoint());
  }

  /** As {@link #checkpoint()}, with {@code changesPerWriter} changes into each writer (a smaller checkpoint). */
  public void checkpoint(int changesPerWriter) {
    commit(write(changesPerWriter));
  }

  /** One checkpoint's files, written and not committed yet ({@link #commit(Written)}). */
  public record Written(long checkpointId, List<WriteResult> results) {}

  /**
   * Writes one more checkpoint's files, with {@code changesPerWriter} changes into each writer, without
   * committing them: a streaming job's writers write while its committer waits for the checkpoint. Commit
   * each in the order written.
   */
  public Written write(int changesPerWriter) {
    checkpointId++;
    List<List<Change>> perWriter = plan(changesPerWriter);
    List<WriteResult> results = new ArrayList<>();
    int threads = Math.min(perWriter.size(), Runtime.getRuntime().availableProcessors());
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<Future<WriteResult>> futures = new ArrayList<>();
      for (int writer = 0; writer < perWriter.size(); writer++) {
        int w = writer;
        futures.add(pool.submit(() -> write(w, perWriter.get(w))));
      }
      for (Future<WriteResult> future : futures) {
        results.add(future.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while writing checkpoint " + checkpointId, e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("Writing checkpoint " + checkpointId + " failed", e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return new Written(checkpointId, results);
  }

  /** Commits {@code written} (the oldest checkpoint written and not committed yet). */
  public void commit(Written written) {
    commit(written.checkpointId(), written.results());
  }

  /** The checkpoint's changes per writer, drawn in order from the seeded random; the model follows them. */
  private List<List<Change>> plan(int changesPerWriter) {
    int inserts = 0;
    int updates = 0;
    int deletes = 0;
    List<List<Change>> perWriter = new ArrayList<>();
    for (int writer = 0; writer < shape.writers(); writer++) {
      List<Change> list = new ArrayList<>(changesPerWriter);
      List<Integer> touched = new ArrayList<>();
      for (int i = 0; i < changesPerWriter; i++) {
        int key;
        if (!touched.isEmpty() && random.nextDouble() < shape.repeatFraction()) {
          key = touched.get(random.nextInt(touched.size()));
        } else {
          do {
            key = (int) (random.nextLong(shape.keySpace()));
          } while (writerOf(key) != writer);
          touched.add(key);
        }
        long old = liveVersion[key];
        Change change;
        if (old != 0 && random.nextDouble() < shape.deleteFraction()) {
          change = new Change(Kind.DELETE, key, 0, old);
          liveVersion[key] = 0;
          deletes++;
        } else {
          long version = nextVersion++;
          change = new Change(old != 0 ? Kind.UPDATE : Kind.INSERT, key, version, old);
          liveVersion[key] = version;
          if (old != 0) {
            updates++;
          } else {
            inserts++;
          }
        }
        list.add(change);
      }
      perWriter.add(list);
    }
    changes.add(new Changes(checkpointId, inserts, updates, deletes));
    return perWriter;
  }

  /** Flink's keyBy on the equality fields: a key always goes to the same writer. */
  private int writerOf(int key) {
    return (int) Long.remainderUnsigned(mix(key * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L), shape.writers());
  }

  private WriteResult write(int writer, List<Change> list) throws IOException {
    boolean upsert = shape.mode() == Mode.UPSERT;
    DeltaTaskWriter task =
        new DeltaTaskWriter(table, writerFactory, fileFactories.get(writer), schema, keySchema,
            shape.formatVersion() > 2);
    try {
      for (Change change : list) {
        switch (change.kind()) {
          case INSERT, UPDATE -> {
            Record row = row(change.key(), change.version());
            if (upsert) {
              task.deleteKey(row, key(change.key()));
            } else if (change.kind() == Kind.UPDATE) {
              // -U carries the old row
              task.delete(row(change.key(), change.oldVersion()));
            }
            task.write(row);
          }
          case DELETE -> {
            if (upsert) {
              task.deleteKey(row(change.key(), change.oldVersion()), key(change.key()));
            } else {
              task.delete(row(change.key(), change.oldVersion()));
            }
          }
        }
      }
      return task.complete();
    } catch (IOException | RuntimeException e) {
      task.abort();
      throw e;
    }
  }

  /** One snapshot for the checkpoint: a RowDelta of every writer's files, as Flink's committer makes it. */
  private void commit(long checkpointId, List<WriteResult> results) {
    table.refresh();
    boolean deletes = results.stream().anyMatch(result -> result.deleteFiles().length > 0);
    SnapshotUpdate<?> update;
    if (deletes) {
      RowDelta delta = table.newRowDelta();
      for (WriteResult result : results) {
        Arrays.stream(result.dataFiles()).forEach(delta::addRows);
        Arrays.stream(result.deleteFiles()).forEach(delta::addDeletes);
      }
      update = delta;
    } else {
      org.apache.iceberg.AppendFiles append = table.newAppend();
      results.forEach(result -> Arrays.stream(result.dataFiles()).forEach(append::appendFile));
      update = append;
    }
    update.set(MAX_COMMITTED_CHECKPOINT_ID, Long.toString(checkpointId));
    update.set(FLINK_JOB_ID, jobId);
    update.set(OPERATOR_ID, operatorId);
    update.commit();
  }

  /** The model: one row per live key, with the values of its latest change. */
  public List<Record> expectedLiveRows() {
    List<Record> rows = new ArrayList<>();
    for (int key = 0; key < liveVersion.length; key++) {
      if (liveVersion[key] != 0) {
        rows.add(row(key, liveVersion[key]));
      }
    }
    return rows;
  }

  /** Keys live in the model. */
  public long liveRowCount() {
    return Arrays.stream(liveVersion).filter(version -> version != 0).count();
  }

  /** The row that change {@code version} wrote for key {@code key}: every value a function of the two. */
  Record row(int key, long version) {
    Record row = GenericRecord.create(schema);
    int at = setKey(row, key);
    long h = mix(key * 0xD6E8FEB86659FD93L ^ version);
    long k = mix(key);
    String first = FIRST[(int) (k % FIRST.length)];
    String last = LAST_START[(int) ((k >>> 8) % LAST_START.length)] + LAST_END[(int) ((k >>> 13) % LAST_END.length)];
    // a few rows without a name; an email per key, changed now and then
    row.set(at, (h & 63) == 0 ? null : first + " " + last);
    row.set(at + 1, (h >>> 6 & 15) == 0 ? null : (first + "." + last).toLowerCase(Locale.ROOT) + (k >>> 18) % 10_000
        + (((h >>> 10) & 7) == 0 ? "+" + version % 100 : "") + "@" + DOMAINS[(int) ((k >>> 32) % DOMAINS.length)]);
    row.set(at + 2, STATUSES[(int) ((h >>> 20) % STATUSES.length)]);
    row.set(at + 3, ((h >>> 28) & 31) == 0 ? null : BigDecimal.valueOf((h >>> 33) % 5_000_000, 2));
    row.set(at + 4, micros(START_MICROS + version * MICROS_PER_CHANGE + (h >>> 44)));
    return row;
  }

  private Record key(int key) {
    Record record = GenericRecord.create(keySchema);
    setKey(record, key);
    return record;
  }

  /** Sets the key's columns (first in the schema) and returns the position of the next column. */
  private int setKey(Record record, int key) {
    if (!shape.compositeKey()) {
      record.set(0, (long) key);
      return 1;
    }
    // the same id under several tenants, and several event times per tenant and id
    int rest = key / TENANTS;
    long id = rest / EVENTS_PER_ID;
    record.set(0, "tenant-" + (key % TENANTS));
    record.set(1, id);
    record.set(2, micros(START_MICROS - 86_400_000_000L + (rest % EVENTS_PER_ID) * 3_600_000_000L + id % 1_000_000));
    return 3;
  }

  private static OffsetDateTime micros(long micros) {
    return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000), Math.floorMod(micros, 1_000_000) * 1_000L)
        .atOffset(ZoneOffset.UTC);
  }

  /** SplitMix64's finalizer. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (z ^ (z >>> 31)) >>> 1;
  }

  /**
   * One writer's task writer for one checkpoint, as Flink's {@code PartitionedDeltaWriter}: one {@link
   * BaseTaskWriter.BaseEqualityDeltaWriter} per partition, created on the partition's first row; on v3 they
   * share the task's DV writer.
   */
  private static final class DeltaTaskWriter extends BaseTaskWriter<Record> {
    private final Schema schema;
    private final Schema keySchema;
    private final PartitionKey partitionKey;
    private final InternalRecordWrapper wrapper;
    private final InternalRecordWrapper keyWrapper;
    private final Map<PartitionKey, KeyDeltaWriter> writers = new HashMap<>();

    DeltaTaskWriter(
        Table table, FileWriterFactory<Record> writerFactory, OutputFileFactory fileFactory, Schema schema,
        Schema keySchema, boolean dvs) {
      super(table.spec(), FileFormat.PARQUET, writerFactory, fileFactory, table.io(),
          PropertyUtil.propertyAsLong(table.properties(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES,
              TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT),
          dvs);
      this.schema = schema;
      this.keySchema = keySchema;
      this.partitionKey = new PartitionKey(table.spec(), schema);
      this.wrapper = new InternalRecordWrapper(schema.asStruct());
      this.keyWrapper = new InternalRecordWrapper(keySchema.asStruct());
    }

    private KeyDeltaWriter route(Record row) {
      partitionKey.partition(wrapper.wrap(row));
      KeyDeltaWriter writer = writers.get(partitionKey);
      if (writer == null) {
        PartitionKey copied = partitionKey.copy();
        writer = new KeyDeltaWriter(copied);
        writers.put(copied, writer);
      }
      return writer;
    }

    @Override
    public void write(Record row) throws IOException {
      route(row).write(row);
    }

    /** Upsert mode's delete: the key alone ({@code row} only routes it). */
    void deleteKey(Record row, Record key) throws IOException {
      route(row).deleteKey(key);
    }

    /** Changelog mode's delete: the whole old row. */
    void delete(Record row) throws IOException {
      route(row).delete(row);
    }

    @Override
    public void close() throws IOException {
      try {
        for (KeyDeltaWriter writer : writers.values()) {
          writer.close();
        }
        writers.clear();
      } finally {
        super.close();
      }
    }

    private final class KeyDeltaWriter extends BaseEqualityDeltaWriter {
      KeyDeltaWriter(StructLike partition) {
        super(partition, schema, keySchema, DeleteGranularity.FILE, dvFileWriter());
      }

      @Override
      protected StructLike asStructLike(Record data) {
        return wrapper.wrap(data);
      }

      @Override
      protected StructLike asStructLikeKey(Record key) {
        return keyWrapper.wrap(key);
      }
    }
  }

  @Override
  public String toString() {
    return shape + " at checkpoint " + checkpointId;
  }
}
