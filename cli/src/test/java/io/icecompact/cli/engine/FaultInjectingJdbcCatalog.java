package io.icecompact.cli.engine;

import io.icecompact.cli.demo.LocalWarehouse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.jdbc.JdbcCatalog;

/**
 * A real JDBC catalog whose table commits can be made to end in {@link CommitStateUnknownException}.
 * Loaded by Iceberg through {@code catalog-impl} (see {@link #catalogProperties}), so the code under
 * test builds it exactly as it builds any catalog. Its table operations are JdbcCatalog's own,
 * wrapped: everything is delegated, and only an armed {@code commit(base, metadata)} is altered.
 *
 * <p>The switch is static, because every stage builds its own catalog instance, and keyed by the
 * warehouse location, because engine tests run concurrently, each on its own warehouse.
 */
public class FaultInjectingJdbcCatalog extends JdbcCatalog {

  /** What the armed commit does. */
  public enum Fault {
    /** Commits for real, then throws: the commit landed but its answer was lost. */
    LANDED_ANSWER_LOST,
    /** Throws without committing: it did not land, and the caller cannot know that. */
    DID_NOT_LAND
  }

  /** One armed fault: lets {@code pass} commits through untouched, then fires once. */
  private static final class Armed {
    final Fault fault;
    final AtomicInteger pass;

    Armed(Fault fault, int pass) {
      this.fault = fault;
      this.pass = new AtomicInteger(pass);
    }
  }

  private static final Map<String, Armed> ARMED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> FIRED = new ConcurrentHashMap<>();
  private static final Map<String, AtomicInteger> COMMITS = new ConcurrentHashMap<>();

  private String warehouseKey;

  /** LocalWarehouse's properties, with this catalog in place of {@code type=jdbc}. */
  public static Map<String, String> catalogProperties(Path warehouse) {
    Map<String, String> properties = new LinkedHashMap<>(LocalWarehouse.catalogProperties(warehouse));
    properties.remove("type");
    properties.put(CatalogProperties.CATALOG_IMPL, FaultInjectingJdbcCatalog.class.getName());
    return properties;
  }

  /** Makes the next commit on {@code warehouse}'s tables fail with {@code fault}. */
  public static void arm(Path warehouse, Fault fault) {
    arm(warehouse, fault, 0);
  }

  /** Lets {@code passing} commits through, then makes the one after them fail with {@code fault}. */
  public static void arm(Path warehouse, Fault fault, int passing) {
    ARMED.put(key(warehouse), new Armed(fault, passing));
  }

  public static void disarm(Path warehouse) {
    ARMED.remove(key(warehouse));
  }

  public static boolean armed(Path warehouse) {
    return ARMED.containsKey(key(warehouse));
  }

  /** How many faults fired on {@code warehouse}. */
  public static int fired(Path warehouse) {
    return FIRED.computeIfAbsent(key(warehouse), k -> new AtomicInteger()).get();
  }

  /** How many commits reached the real catalog on {@code warehouse} (creation included). */
  public static int realCommits(Path warehouse) {
    return COMMITS.computeIfAbsent(key(warehouse), k -> new AtomicInteger()).get();
  }

  /** Forgets everything about {@code warehouse}. */
  public static void reset(Path warehouse) {
    String key = key(warehouse);
    ARMED.remove(key);
    FIRED.remove(key);
    COMMITS.remove(key);
  }

  private static String key(Path warehouse) {
    return warehouse.toAbsolutePath().toString();
  }

  @Override
  public void initialize(String name, Map<String, String> properties) {
    super.initialize(name, properties);
    String warehouse = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
    this.warehouseKey = warehouse == null ? null : key(Path.of(warehouse));
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier tableIdentifier) {
    return new FaultInjectingOps(super.newTableOps(tableIdentifier), warehouseKey);
  }

  /** Takes the armed fault for this commit, or null when this commit passes. */
  private static Fault take(String warehouseKey) {
    if (warehouseKey == null) {
      return null;
    }
    Fault[] taken = new Fault[1];
    ARMED.computeIfPresent(
        warehouseKey,
        (k, armed) -> {
          if (armed.pass.getAndDecrement() > 0) {
            return armed;
          }
          taken[0] = armed.fault;
          return null; // fires once
        });
    if (taken[0] != null) {
      FIRED.computeIfAbsent(warehouseKey, k -> new AtomicInteger()).incrementAndGet();
    }
    return taken[0];
  }

  /** JdbcCatalog's table operations, delegated one by one; only {@link #commit} can be faulted. */
  private static final class FaultInjectingOps implements TableOperations {
    private final TableOperations delegate;
    private final String warehouseKey;

    FaultInjectingOps(TableOperations delegate, String warehouseKey) {
      this.delegate = delegate;
      this.warehouseKey = warehouseKey;
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
      Fault fault = take(warehouseKey);
      if (fault == Fault.DID_NOT_LAND) {
        throw new CommitStateUnknownException(
            new RuntimeException("injected: the catalog's answer was lost and nothing was committed"));
      }
      delegate.commit(base, metadata);
      if (warehouseKey != null) {
        COMMITS.computeIfAbsent(warehouseKey, k -> new AtomicInteger()).incrementAndGet();
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
