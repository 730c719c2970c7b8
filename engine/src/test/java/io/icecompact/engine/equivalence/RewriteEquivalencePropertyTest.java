package io.icecompact.engine.equivalence;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.job.GroupResult;
import io.icecompact.core.job.JobResult;
import io.icecompact.core.job.JobSpec;
import io.icecompact.core.job.JobStatus;
import io.icecompact.core.job.JobStore;
import io.icecompact.core.job.PlanSummary;
import io.icecompact.core.job.WorkLocation;
import io.icecompact.core.options.RewriteOptions;
import io.icecompact.core.table.TableAccess;
import io.icecompact.engine.EmbeddedJobRunner;
import io.icecompact.engine.EmbeddedJobRunner.GroupInterceptor;
import io.icecompact.engine.PlanCopy;
import io.icecompact.engine.ProgressListener;
import io.icecompact.fixtures.LiveRows;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.planner.RewritePlanner;
import io.icecompact.worker.RewritePathChoice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The fast path's contract: on identical copies of a random table, with the same plan, a rewrite
 * with {@link RewritePathChoice#AUTO} and one with {@link RewritePathChoice#GENERIC} (Iceberg's own
 * reader, delete filter and writer: the reference) leave the same live rows, lineage included, and
 * data files whose metrics agree. Each try prints which path each group took.
 *
 * <p>The copy is a second catalog entry registered on the first table's metadata file: both share
 * the data and delete files and diverge only with their own compaction commits. A failing try
 * shrinks to fewer columns, files, rows and deletes; jqwik prints the seed to run it again.
 */
class RewriteEquivalencePropertyTest {
  private static final TableIdentifier GENERIC_TABLE = TableIdentifier.parse("db.generic");
  private static final TableIdentifier AUTO_TABLE = TableIdentifier.parse("db.auto");
  private static final Map<String, Integer> PATHS_TAKEN = new TreeMap<>();

  @Property(tries = 12, shrinking = ShrinkingMode.BOUNDED)
  void autoRewriteKeepsWhatTheGenericRewriteKeeps(@ForAll("recipes") TableRecipe recipe)
      throws IOException {
    Path warehouse = Files.createTempDirectory("icecompact-equivalence-");
    Map<String, String> catalog = LocalWarehouse.catalogProperties(warehouse);
    try (TableAccess access = new TableAccess(catalog)) {
      Table generic =
          RecipeTable.create(access.catalog(), GENERIC_TABLE, recipe, () -> compact(catalog));
      Table auto =
          access.catalog().registerTable(AUTO_TABLE, TableAccess.metadataLocation(generic));
      Schema columns =
          recipe.formatVersion() >= 3
              ? MetadataColumns.schemaWithRowLineage(generic.schema())
              : generic.schema();
      Map<String, Long> before = LiveRows.multiset(generic, columns);

      RewritePlanner.PlannedJob plan =
          new RewritePlanner(access).dryRun(spec(catalog, GENERIC_TABLE, recipe.maxGroupFiles()));
      Rewrite reference =
          rewrite(access, catalog, plan, generic, GENERIC_TABLE, RewritePathChoice.GENERIC);
      Rewrite candidate =
          rewrite(access, catalog, plan, generic, AUTO_TABLE, RewritePathChoice.AUTO);
      record(recipe, candidate);

      assertThat(candidate.groupInputs())
          .as("both rewrote the same groups")
          .isEqualTo(reference.groupInputs());
      assertThat(LiveRows.multiset(generic, columns))
          .as("generic rewrite keeps the live rows")
          .isEqualTo(before);
      assertThat(LiveRows.multiset(auto, columns))
          .as("AUTO rewrite keeps the live rows")
          .isEqualTo(before);
      assertThat(
              PartitionMetrics.differences(
                  generic.schema(),
                  PartitionMetrics.of(generic, added(generic, reference)),
                  PartitionMetrics.of(auto, added(auto, candidate))))
          .as("metrics of the AUTO rewrite's files against the generic rewrite's")
          .isEmpty();
    } finally {
      deleteTree(warehouse);
    }
  }

  @Provide
  Arbitrary<TableRecipe> recipes() {
    Arbitrary<ColumnRecipe> column =
        Combinators.combine(
                Arbitraries.of(ColumnKind.class),
                Arbitraries.frequency(Tuple.of(1, false), Tuple.of(3, true)),
                Arbitraries.of(false, true),
                Arbitraries.of(0, 20, 100))
            .as(ColumnRecipe::new);
    // one column of every kind, in kind order; shrinking removes them one by one
    Arbitrary<List<ColumnRecipe>> columns =
        column
            .list()
            .ofSize(ColumnKind.values().length)
            .map(
                list -> {
                  List<ColumnRecipe> everyKind = new ArrayList<>();
                  for (int i = 0; i < list.size(); i++) {
                    ColumnRecipe c = list.get(i);
                    everyKind.add(
                        new ColumnRecipe(
                            ColumnKind.values()[i],
                            c.present(),
                            c.lowCardinality(),
                            c.nullPercent()));
                  }
                  return everyKind;
                });
    Arbitrary<Integer> version = Arbitraries.of(2, 3);
    Arbitrary<Integer> files = Arbitraries.integers().between(1, 6);
    Arbitrary<Integer> rows = Arbitraries.integers().between(1, 150);
    Arbitrary<Boolean> flag = Arbitraries.of(false, true);
    Arbitrary<Integer> maxGroupFiles = Arbitraries.integers().between(1, 4);
    Arbitrary<Long> seed = Arbitraries.longs();
    return Combinators.combine(
            Combinators.combine(version, columns, files, rows).as(List::<Object>of),
            Combinators.combine(flag, flag, flag, maxGroupFiles, flag, flag).as(List::<Object>of),
            seed)
        .as(
            (a, b, s) ->
                new TableRecipe(
                    (Integer) a.get(0),
                    castColumns(a.get(1)),
                    (Integer) a.get(2),
                    (Integer) a.get(3),
                    (Boolean) b.get(0),
                    (Boolean) b.get(1),
                    (Boolean) b.get(2),
                    (Integer) b.get(3),
                    (Boolean) b.get(4),
                    (Boolean) b.get(5),
                    s));
  }

  @SuppressWarnings("unchecked")
  private static List<ColumnRecipe> castColumns(Object columns) {
    return (List<ColumnRecipe>) columns;
  }

  @AfterContainer
  static void printPathsTaken() {
    System.out.println("rewrite equivalence: groups by path taken with AUTO: " + PATHS_TAKEN);
  }

  /** A job's plan (input files per group) and where each group went. */
  private record Rewrite(
      JobResult result, Map<Integer, List<String>> groupInputs, Map<Integer, String> paths) {}

  private static JobSpec spec(
      Map<String, String> catalog, TableIdentifier table, int maxGroupFiles) {
    return new JobSpec(
        null,
        table.toString(),
        catalog,
        Map.of(
            RewriteOptions.REWRITE_ALL,
            "true",
            RewriteOptions.MAX_FILE_GROUP_INPUT_FILES,
            Integer.toString(maxGroupFiles)),
        null,
        null,
        null);
  }

  /** The recipe's first compaction (v3 lineage): a whole job on the generic path. */
  private static void compact(Map<String, String> catalog) {
    JobResult result =
        new EmbeddedJobRunner(
                1, ProgressListener.NONE, GroupInterceptor.NONE, RewritePathChoice.GENERIC)
            .run(spec(catalog, GENERIC_TABLE, Integer.MAX_VALUE));
    assertThat(result.status())
        .as("first compaction: %s", result.reason())
        .isEqualTo(JobStatus.COMMITTED);
  }

  /** Rewrites {@code plan}'s groups with {@code choice} and commits them to {@code table}. */
  private static Rewrite rewrite(
      TableAccess access,
      Map<String, String> catalog,
      RewritePlanner.PlannedJob plan,
      Table planned,
      TableIdentifier table,
      RewritePathChoice choice) {
    PlanSummary summary =
        PlanCopy.store(
            access,
            plan,
            planned.location(),
            table.toString(),
            plan.plan().jobId() + "-" + choice.name().toLowerCase(java.util.Locale.ROOT));
    JobSpec spec = spec(catalog, table, Integer.MAX_VALUE);
    JobResult result =
        new EmbeddedJobRunner(1, ProgressListener.NONE, GroupInterceptor.NONE, choice)
            .run(spec, summary);
    assertThat(result.status())
        .as("%s job: %s %s", choice, result.reason(), result.groups())
        .isEqualTo(JobStatus.COMMITTED);
    JobStore store = new JobStore(access.fileIO());
    Map<Integer, List<String>> inputs = new TreeMap<>();
    Map<Integer, String> paths = new TreeMap<>();
    for (int index : summary.groupIndexes()) {
      GroupResult group =
          store.readGroupResult(new WorkLocation(summary.workLocation()), index).orElseThrow();
      inputs.put(index, group.inputFiles().stream().sorted().toList());
      paths.put(index, group.rewritePath());
    }
    return new Rewrite(result, inputs, paths);
  }

  /** The data files a job added: their names carry its id. */
  private static List<DataFile> added(Table table, Rewrite rewrite) {
    table.refresh();
    List<DataFile> files = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        if (task.file().location().contains(rewrite.result().jobId())) {
          files.add(task.file());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static synchronized void record(TableRecipe recipe, Rewrite candidate) {
    Map<String, Long> paths =
        candidate.paths().values().stream()
            .collect(Collectors.groupingBy(p -> p, TreeMap::new, Collectors.counting()));
    paths.forEach((path, count) -> PATHS_TAKEN.merge(path, count.intValue(), Integer::sum));
    System.out.println("rewrite equivalence try: " + recipe + " -> AUTO groups by path " + paths);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
