package io.icecompact.testkit;

import java.io.Closeable;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * Any real Iceberg catalog (JDBC, Iceberg's DynamoDbCatalog, ...) whose table commits can be made
 * to end in {@link CommitStateUnknownException}, as when the catalog times out after it wrote the
 * new metadata. Loaded by Iceberg through {@code catalog-impl} ({@link #wrap}), so the code under
 * test builds it exactly as it builds any catalog; everything is the wrapped catalog's own, and
 * only an armed table commit is altered.
 *
 * <p>The switch is static, because every function builds its own catalog instance, and keyed by the
 * warehouse location, because tests run concurrently, each on its own warehouse.
 */
public class CommitFaultCatalog implements Catalog, Closeable {
  /**
   * Catalog properties under this prefix name the wrapped catalog ({@code type} or {@code
   * catalog-impl}).
   */
  public static final String DELEGATE_PREFIX = "commit-fault.";

  /** What the armed commit does. */
  public enum Fault {
    /** Commits for real, then throws: the commit landed but its answer was lost. */
    LANDED_ANSWER_LOST,
    /** Throws without committing: it did not land, and the caller cannot know that. */
    DID_NOT_LAND,
    /**
     * Refuses the swap without committing, as a catalog does when another writer's commit landed
     * first ({@code CommitFailedException}): the caller knows it did not land.
     */
    LOST_RACE
  }

  /**
   * One armed fault: lets {@code pass} commits through untouched, then fires {@code times} times,
   * each firing of {@link Fault#LOST_RACE} after running {@code competitor} (another writer's
   * commit that lands first).
   */
  private record Armed(Fault fault, AtomicInteger pass, AtomicInteger times, Runnable competitor) {}

  private static final Map<String, Armed> ARMED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> FIRED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> COMMITS = new ConcurrentHashMap<>();

  private Catalog delegate;
  private String warehouse;

  /**
   * {@code catalogProperties} with this catalog in place of their {@code type} or {@code
   * catalog-impl}.
   */
  public static Map<String, String> wrap(Map<String, String> catalogProperties) {
    Map<String, String> properties = new LinkedHashMap<>(catalogProperties);
    for (String key : List.of(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogProperties.CATALOG_IMPL)) {
      String value = properties.remove(key);
      if (value != null) {
        properties.put(DELEGATE_PREFIX + key, value);
      }
    }
    properties.put(CatalogProperties.CATALOG_IMPL, CommitFaultCatalog.class.getName());
    return properties;
  }

  /** Makes the next commit on {@code warehouse}'s tables fail with {@code fault}. */
  public static void arm(String warehouse, Fault fault) {
    arm(warehouse, fault, 0);
  }

  /**
   * Lets {@code passing} commits through, then makes the one after them fail with {@code fault}.
   */
  public static void arm(String warehouse, Fault fault, int passing) {
    arm(warehouse, fault, passing, 1);
  }

  /**
   * Lets {@code passing} commits through, then makes the {@code times} commits after them fail with
   * {@code fault}.
   */
  public static void arm(String warehouse, Fault fault, int passing, int times) {
    ARMED.put(
        warehouse,
        new Armed(fault, new AtomicInteger(passing), new AtomicInteger(times), () -> {}));
  }

  /**
   * Makes the next {@code times} commits lose the race: each runs {@code competitor} first (a
   * commit through another catalog, not this one), then is refused as a catalog refuses a swap from
   * stale metadata.
   */
  public static void armLostRaces(String warehouse, int times, Runnable competitor) {
    ARMED.put(
        warehouse,
        new Armed(Fault.LOST_RACE, new AtomicInteger(0), new AtomicInteger(times), competitor));
  }

  public static boolean armed(String warehouse) {
    return ARMED.containsKey(warehouse);
  }

  /** How many faults fired on {@code warehouse}. */
  public static int fired(String warehouse) {
    return FIRED.computeIfAbsent(warehouse, k -> new AtomicInteger()).get();
  }

  /** How many table commits reached the real catalog on {@code warehouse} through this catalog. */
  public static int realCommits(String warehouse) {
    return COMMITS.computeIfAbsent(warehouse, k -> new AtomicInteger()).get();
  }

  /** Forgets everything about {@code warehouse}. */
  public static void reset(String warehouse) {
    ARMED.remove(warehouse);
    FIRED.remove(warehouse);
    COMMITS.remove(warehouse);
  }

  @Override
  public void initialize(String name, Map<String, String> properties) {
    Map<String, String> delegateProperties = new LinkedHashMap<>(properties);
    delegateProperties.remove(CatalogProperties.CATALOG_IMPL);
    properties.forEach(
        (key, value) -> {
          if (key.startsWith(DELEGATE_PREFIX)) {
            delegateProperties.remove(key);
            delegateProperties.put(key.substring(DELEGATE_PREFIX.length()), value);
          }
        });
    this.delegate = CatalogUtil.buildIcebergCatalog(name, delegateProperties, null);
    this.warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public Table loadTable(TableIdentifier identifier) {
    Table table = delegate.loadTable(identifier);
    if (!(table instanceof HasTableOperations tableWithOps)) {
      return table;
    }
    return new BaseTable(
        new FaultingOperations(tableWithOps.operations(), warehouse), table.name());
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return delegate.listTables(namespace);
  }

  @Override
  public Table createTable(
      TableIdentifier identifier,
      Schema schema,
      PartitionSpec spec,
      String location,
      Map<String, String> properties) {
    return delegate.createTable(identifier, schema, spec, location, properties);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return delegate.buildTable(identifier, schema);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return delegate.tableExists(identifier);
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    delegate.renameTable(from, to);
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    delegate.invalidateTable(identifier);
  }

  @Override
  public void close() throws IOException {
    if (delegate instanceof Closeable closeable) {
      closeable.close();
    }
  }

  /** Takes the armed fault for this commit, or null when this commit passes. */
  private static Armed take(String warehouse) {
    if (warehouse == null) {
      return null;
    }
    Armed[] taken = new Armed[1];
    ARMED.computeIfPresent(
        warehouse,
        (k, armed) -> {
          if (armed.pass().getAndDecrement() > 0) {
            return armed;
          }
          taken[0] = armed;
          return armed.times().decrementAndGet() > 0 ? armed : null;
        });
    if (taken[0] != null) {
      FIRED.computeIfAbsent(warehouse, k -> new AtomicInteger()).incrementAndGet();
    }
    return taken[0];
  }

  /**
   * The wrapped catalog's table operations, delegated one by one; only {@link #commit} can be
   * faulted.
   */
  private static final class FaultingOperations implements TableOperations {
    private final TableOperations delegate;
    private final String warehouse;

    FaultingOperations(TableOperations delegate, String warehouse) {
      this.delegate = delegate;
      this.warehouse = warehouse;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      Armed armed = take(warehouse);
      Fault fault = armed == null ? null : armed.fault();
      if (fault == Fault.LOST_RACE) {
        armed.competitor().run();
        throw new CommitFailedException("injected: another writer's commit landed first");
      }
      if (fault == Fault.DID_NOT_LAND) {
        throw new CommitStateUnknownException(
            new RuntimeException(
                "injected: the catalog's answer was lost and nothing was committed"));
      }
      delegate.commit(base, metadata);
      if (warehouse != null) {
        COMMITS.computeIfAbsent(warehouse, k -> new AtomicInteger()).incrementAndGet();
      }
      if (fault == Fault.LANDED_ANSWER_LOST) {
        throw new CommitStateUnknownException(
            new RuntimeException("injected: the commit landed but the catalog's answer was lost"));
      }
    }

    @Override
    public TableMetadata current() {
      return delegate.current();
    }

    @Override
    public TableMetadata refresh() {
      return delegate.refresh();
    }

    @Override
    public FileIO io() {
      return delegate.io();
    }

    @Override
    public EncryptionManager encryption() {
      return delegate.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
      return delegate.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
      return delegate.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
      return delegate.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
      return delegate.newSnapshotId();
    }

    @Override
    public boolean requireStrictCleanup() {
      return delegate.requireStrictCleanup();
    }
  }
}
