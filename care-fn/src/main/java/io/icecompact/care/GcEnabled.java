package io.icecompact.care;

import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Iceberg's {@code gc.enabled}: a table whose owner set it to false says other tables may reach its
 * files (a registered copy, a table sharing a folder). Iceberg's own actions then refuse to delete
 * anything ("Cannot delete orphan files: GC is disabled (deleting files may corrupt other tables)",
 * "Cannot expire snapshots: GC is disabled ..."); icecompact's destructive steps refuse the same
 * way, each on its own, so one step's refusal never hides behind another's failure.
 */
final class GcEnabled {
  private GcEnabled() {}

  /**
   * @throws CareRefusedException when the table sets {@code gc.enabled=false}
   */
  static void require(Table table, String tableName, String step, String icebergWording) {
    if (!PropertyUtil.propertyAsBoolean(
        table.properties(), TableProperties.GC_ENABLED, TableProperties.GC_ENABLED_DEFAULT)) {
      throw SharingTables.refusal(
          step,
          tableName,
          String.format(
              "%s=false on this table (%s). The property says other tables may reach its files; set %s=true only "
                  + "when no other table does, or leave %s out of its icecompact.steps",
              TableProperties.GC_ENABLED, icebergWording, TableProperties.GC_ENABLED, step));
    }
  }
}
