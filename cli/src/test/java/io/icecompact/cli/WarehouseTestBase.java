package io.icecompact.cli;

import io.icecompact.cli.demo.FragmentedTable;
import io.icecompact.cli.demo.LocalWarehouse;
import io.icecompact.core.table.TableAccess;
import java.nio.file.Path;
import java.util.Map;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A local warehouse of its own per test (so tests run concurrently) holding one table, {@link #TABLE}. */
public abstract class WarehouseTestBase {
  protected static final String TABLE = "db.orders";

  @TempDir protected Path warehouse;
  protected Map<String, String> catalog;
  protected TableAccess access;

  @BeforeEach
  void openWarehouse() {
    catalog = LocalWarehouse.catalogProperties(warehouse);
    access = new TableAccess(catalog);
  }

  @AfterEach
  void closeWarehouse() {
    access.close();
  }

  protected Table create(FragmentedTable.Shape shape) {
    return FragmentedTable.create(access.catalog(), TableIdentifier.parse(TABLE), shape);
  }

  protected Table load() {
    return access.loadTable(TABLE);
  }
}
