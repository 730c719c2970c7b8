package io.icecompact.bench;

import io.icecompact.core.job.CommitAttempt;
import io.icecompact.core.job.CommitAttempts;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.FlinkUpsertTable;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.fixtures.StreamingWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The commit race: a CDC table compacted while a streaming writer ({@link StreamingWriter}, Flink's
 * upsert sink) commits every N milliseconds, on a JDBC (SQLite) or Hadoop catalog. Per run: whether
 * the job committed while the writer went on, its commit attempts and what each cost (median of the
 * lost ones, split into reading the metadata, Iceberg's recomputation, icecompact's check and the
 * swap), the writer's commits meanwhile, and whether the live rows are exactly the writer's model
 * afterwards.
 */
public final class CommitRaceBench {
  private static final String TABLE = PathRuns.TABLE;

  /**
   * Changes per writer and checkpoint of the racing writer: small checkpoints, as a 300 ms interval
   * makes.
   */
  private static final int CHANGES_PER_WRITER = 20;

  private final Path base;
  private final PrintWriter out;
  private final PrintWriter err;

  public CommitRaceBench(Path base, PrintWriter out, PrintWriter err) {
    this.base = base;
    this.out = out;
    this.err = err;
  }

  /**
   * Whether {@code sizeName} names a Flink-written CDC table size ({@code upsert}, {@code
   * upsert-s}, ...).
   */
  public static boolean isCdcSize(String sizeName) {
    try {
      return EndToEndBench.TableSize.named(sizeName).cdc() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Runs {@code runs} compactions, each on a fresh copy of the table, per catalog and writer
   * interval; false when a run lost or resurrected rows.
   */
  public boolean run(String shapeName, List<String> catalogs, List<Long> everyMillis, int runs)
      throws InterruptedException {
    FlinkUpsertTable.Shape shape = EndToEndBench.TableSize.named(shapeName).cdc();
    out.printf(
        Locale.ROOT,
        "commit race on the %s table (%s), racing writer: %d changes per writer and checkpoint%n",
        shapeName,
        shape,
        CHANGES_PER_WRITER);
    out.println(
        "| catalog | writer every | writer's commits: spacing, duration (medians) | job | writer commits during the job | prepare"
            + " | attempts (lost) | lost attempt median: read + recompute + check + swap | attempt max | live rows = model |");
    out.println("|---|---|---|---|---|---|---|---|---|---|");
    boolean allRight = true;
    for (String catalog : catalogs) {
      Path dir = base.resolve(catalog);
      Path original = base.resolve(catalog + "-original");
      long built = System.nanoTime();
      try {
        Files.createDirectories(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try (TableAccess access = new TableAccess(catalogProperties(catalog, dir))) {
        FlinkUpsertTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
      }
      TableDirCopy.copy(dir, original);
      err.printf(
          Locale.ROOT,
          "built the %s table on the %s catalog in %.1f s%n",
          shapeName,
          catalog,
          (System.nanoTime() - built) / 1e9);
      for (long every : everyMillis) {
        for (int run = 0; run < runs; run++) {
          allRight &= race(catalog, original, shape, every);
        }
      }
    }
    out.flush();
    return allRight;
  }

  private boolean race(String catalog, Path original, FlinkUpsertTable.Shape shape, long every)
      throws InterruptedException {
    Path dir = base.resolve(catalog);
    // the metadata names absolute paths: the copy goes back where the table was built
    TableDirCopy.copy(original, dir);
    Map<String, String> properties = catalogProperties(catalog, dir);
    try (TableAccess access = new TableAccess(properties)) {
      // the writer's model continues from the original's: the same seeded stream, replayed
      FlinkUpsertTable cdc =
          FlinkUpsertTable.replay(access.catalog().loadTable(TableIdentifier.parse(TABLE)), shape);
      JobResult result;
      int during;
      long jobStarted;
      long writerMedian;
      long writerSpacing;
      try (StreamingWriter writer = new StreamingWriter(cdc, every, CHANGES_PER_WRITER).start()) {
        writer.awaitCommits(3);
        jobStarted = System.nanoTime();
        result =
            new EmbeddedJobRunner(2, ProgressListener.NONE, EmbeddedJobRunner.GroupInterceptor.NONE)
                .run(new JobSpec(null, TABLE, properties, Map.of(), null, null, null));
        long jobEnded = System.nanoTime();
        during = writer.commitsBetween(jobStarted, jobEnded);
        writerMedian = writer.medianCommitMillis();
        writerSpacing = writer.medianSpacingMillis();
        // the writer goes on after the job: the job did not win by the writer stopping
        writer.awaitCommits(writer.commits() + 1);
      }
      Table table = access.catalog().loadTable(TableIdentifier.parse(TABLE));
      LiveRowChecksum live = LiveRowChecksum.of(table);
      LiveRowChecksum model =
          LiveRowChecksum.ofRows(cdc.expectedLiveRows(), table.schema().columns().size());
      boolean rowsRight = live.equals(model);
      CommitAttempts commit = result.commit();
      List<CommitAttempt> lost =
          commit == null
              ? List.of()
              : commit.each().stream()
                  .filter(a -> a.outcome() == CommitAttempt.Outcome.LOST)
                  .toList();
      out.printf(
          Locale.ROOT,
          "| %s | %d ms | %d ms, %d ms | %s in %.1f s | %d | %d ms | %d (%d) | %s | %d ms | %s |%n",
          catalog,
          every,
          writerSpacing,
          writerMedian,
          result.status(),
          result.durationMillis() / 1000.0,
          during,
          commit == null ? 0 : commit.prepareMillis(),
          commit == null ? 0 : commit.attempts(),
          commit == null ? 0 : commit.lost(),
          lost.isEmpty()
              ? "none lost"
              : String.format(
                  Locale.ROOT,
                  "%d ms: %d + %d + %d + %d",
                  median(lost, CommitAttempt::totalMillis),
                  median(lost, CommitAttempt::refreshMillis),
                  median(lost, CommitAttempt::applyMillis),
                  median(lost, CommitAttempt::checkMillis),
                  median(lost, CommitAttempt::swapMillis)),
          commit == null ? 0 : commit.maxMillis(),
          rowsRight ? "yes" : "NO: " + live + " vs " + model);
      out.flush();
      return rowsRight;
    }
  }

  private static long median(List<CommitAttempt> attempts, ToLongFunction<CommitAttempt> part) {
    long[] values = attempts.stream().mapToLong(part).sorted().toArray();
    return values[values.length / 2];
  }

  static Map<String, String> catalogProperties(String catalog, Path dir) {
    return switch (catalog) {
      case "jdbc" -> LocalWarehouse.catalogProperties(dir);
      case "hadoop" -> Map.of("type", "hadoop", "warehouse", dir.resolve("warehouse").toString());
      default -> throw new IllegalArgumentException("Catalog jdbc or hadoop, got " + catalog);
    };
  }
}
