package io.icecompact.engine.soak;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.FragmentedTable;
import io.icecompact.fixtures.LocalWarehouse;
import io.icecompact.testkit.CommitFaultCatalog;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The soak: many embedded compaction jobs over three partitioned tables (v2 and v3) while other
 * writers append and delete rows between and during the jobs, each job under a fault drawn from a
 * seeded generator ({@link SoakFault}), every invariant checked after every job ({@link
 * SoakInvariants}).
 *
 * <p>{@code -Dsoak.seed=N} replays a run exactly (the seed is printed at the start and named in
 * every failure); {@code -Dsoak.jobs=N} sets its length. The default is short enough for every
 * build; a long run: {@code mvn -pl cli -am verify -Dtest=EmbeddedSoakTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dsoak.jobs=500}.
 */
@Execution(ExecutionMode.CONCURRENT)
class EmbeddedSoakTest {
  private static final int DEFAULT_JOBS = 16;
  private static final int DAYS = 3;

  @TempDir Path warehouse;

  @Test
  void everyJobUnderFaultsAndWritersKeepsRowsFilesAndHonestOutcomes() {
    long seed = Long.getLong("soak.seed", new SecureRandom().nextLong());
    int jobs = Integer.getInteger("soak.jobs", DEFAULT_JOBS);
    System.err.printf(
        "soak: seed=%d jobs=%d (replay: -Dsoak.seed=%d -Dsoak.jobs=%d)%n", seed, jobs, seed, jobs);
    String warehouseKey = warehouse.toAbsolutePath().toString();
    Map<String, String> local = new LinkedHashMap<>(LocalWarehouse.catalogProperties(warehouse));
    local.put("io-impl", FaultingLocalFileIO.class.getName());
    Map<String, String> catalog = CommitFaultCatalog.wrap(local);
    SoakFigures figures = new SoakFigures();
    long started = System.currentTimeMillis();
    CommitFaultCatalog.reset(warehouseKey);
    // the check that nothing any table reaches is gone reads through the plain catalog: it lists
    // namespaces
    // (the commit-fault wrapper does not) and no drawn fault can touch its reads
    try (TableAccess access = new TableAccess(catalog);
        TableAccess plain = new TableAccess(LocalWarehouse.catalogProperties(warehouse))) {
      List<SoakJob.SoakTable> tables =
          List.of(
              table(access, plain, "db.orders_v2", 2, 1),
              table(access, plain, "db.orders_v3", 3, 2),
              table(access, plain, "db.returns_v3", 3, 3));
      System.err.printf(
          "soak: tables created in %.1f s%n", (System.currentTimeMillis() - started) / 1000.0);
      for (int number = 1; number <= jobs; number++) {
        long jobStarted = System.currentTimeMillis();
        new SoakJob(seed, number, jobs, tables, catalog, warehouseKey, figures).run(access);
        if (number % 10 == 0 || number == jobs) {
          System.err.printf(
              "soak: job %d/%d done (%d ms for the last)%n",
              number, jobs, System.currentTimeMillis() - jobStarted);
        }
      }
    } finally {
      CommitFaultCatalog.reset(warehouseKey);
      FaultingLocalFileIO.disarm(warehouseKey);
      System.err.println(figures.report(seed, System.currentTimeMillis() - started));
    }
  }

  private static SoakJob.SoakTable table(
      TableAccess access, TableAccess plain, String name, int formatVersion, int index) {
    FragmentedTable.create(
        access.catalog(),
        TableIdentifier.parse(name),
        new FragmentedTable.Shape(DAYS, 3, 100, formatVersion, 2, 5, true));
    return new SoakJob.SoakTable(
        name, new SoakWriter(DAYS, 1_000_000L * index), new SoakInvariants(plain.catalog()));
  }
}
