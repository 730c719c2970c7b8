package io.icecompact.cli;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LiveRows;
import io.icecompact.cli.demo.LocalWarehouse;
import io.icecompact.core.table.TableAccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;

/** Small real tables in a local warehouse, and the observations tests make of them. */
public final class TestTables {
  /** 3 day partitions of 5 files of 200 rows, format v2, 2 files with position deletes, 5 equality deletes. */
  public static final FragmentedTable.Shape SMALL = new FragmentedTable.Shape(3, 5, 200, 2, 2, 5, true);

  private TestTables() {}

  public static Map<String, String> catalog(Path warehouse) {
    return LocalWarehouse.catalogProperties(warehouse);
  }

  /** Creates the table; returns its location (a table object would outlive its catalog's connections). */
  public static String create(Path warehouse, String table, FragmentedTable.Shape shape) {
    try (TableAccess access = new TableAccess(catalog(warehouse))) {
      return FragmentedTable.create(access.catalog(), TableIdentifier.parse(table), shape).location();
    }
  }

  /** Runs {@code read} on the freshly loaded table while its catalog is open. */
  public static <T> T withTable(Path warehouse, String table, Function<Table, T> read) {
    try (TableAccess access = new TableAccess(catalog(warehouse))) {
      return read.apply(access.loadTable(table));
    }
  }

  /** The CLI's {@code -c KEY=VALUE} arguments for the warehouse. */
  public static List<String> catalogArgs(Path warehouse) {
    List<String> args = new ArrayList<>();
    catalog(warehouse).forEach((key, value) -> {
      args.add("-c");
      args.add(key + "=" + value);
    });
    return args;
  }

  public static Path localPath(String location) {
    return location.startsWith("file:") ? Paths.get(URI.create(location)) : Paths.get(location);
  }

  /** Every file under the table's location, relative to it, with its size. */
  public static Map<String, Long> filesUnder(Table table) {
    return filesUnder(table.location());
  }

  public static Map<String, Long> filesUnder(String location) {
    Path root = localPath(location);
    Map<String, Long> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(Files::isRegularFile)
          .forEach(path -> files.put(root.relativize(path).toString(), size(path)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  private static long size(Path path) {
    try {
      return Files.size(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Locations of the live data files of the current snapshot, with their partition path. */
  public static Map<String, String> liveDataFiles(Table table) {
    table.refresh();
    Map<String, String> files = new TreeMap<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask task : tasks) {
        files.put(
            task.file().location(),
            table.specs().get(task.file().specId()).partitionToPath(task.file().partition()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  /** What must not change when a job is refused: snapshot, rows, and every file of the table. */
  public record State(Long snapshotId, int snapshots, Map<String, Long> rows, Map<String, Long> files) {
    public static State of(Path warehouse, String table) {
      return withTable(warehouse, table, State::of);
    }

    public static State of(Table table) {
      table.refresh();
      int snapshots = 0;
      for (var ignored : table.snapshots()) {
        snapshots++;
      }
      return new State(
          table.currentSnapshot() == null ? null : table.currentSnapshot().snapshotId(),
          snapshots,
          LiveRows.multiset(table),
          filesUnder(table));
    }
  }
}
