package io.icecompact.care;

import io.icecompact.care.catalog.ListedTable;
import io.icecompact.core.scope.DeploymentScope;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the sharing check does with one table of the catalog's listing, decided from the listing
 * alone (no S3 read): skip it, load it, name it as not checked, or refuse. The rule, for this
 * table's folders and the deployment's location prefixes ({@code ALLOWED_LOCATIONS}):
 *
 * <ul>
 *   <li>an Iceberg table whose listed location or metadata folder overlaps one of this table's
 *       folders, or lies inside the deployment's locations, or whose locations are not listed, is
 *       loaded, and refuses when it cannot be read: it may share files and the deployment answers
 *       for it;
 *   <li>an Iceberg table whose listed location and metadata location are both outside the
 *       deployment's locations (and overlap none of this table's folders) is loaded if it can be:
 *       its {@code write.data.path} could still point here. When its metadata cannot be read (other
 *       buckets, KMS keys, Lake Formation) it is named "not checked: outside this deployment's
 *       locations", not a refusal;
 *   <li>with no location prefixes (the embedded runner, the CLI) nothing is outside: every table
 *       that cannot be read refuses, as before the screen;
 *   <li>a table of another format (Hive, Delta) has no Iceberg metadata: when its location overlaps
 *       this table's folders the step refuses (its files cannot be told apart), otherwise it is
 *       named as not checked (a partition of its own elsewhere would not be seen);
 *   <li>a resource link to a table of this catalog is checked as its target, which the listing
 *       holds too; one to another catalog's table that could not be read is named as not checked;
 *   <li>a view has no files.
 * </ul>
 */
final class SharingScreen {
  /** What to do with one listed table. */
  enum Action {
    /** Nothing to read: it has no files of its own here (a view, a link checked as its target). */
    SKIP,
    /** Read its metadata; refuse when that fails: it may share files and cannot be told apart. */
    LOAD,
    /** Read its metadata if it can be; when not, name it as not checked (outside our locations). */
    TRY_LOAD,
    /** Name it in the report as not checked, and why. */
    NOT_CHECKED,
    /** The step refuses: a table that may share files whose files cannot be told. */
    REFUSE
  }

  /**
   * @param why for a load, why it is read (for a refusal's message); otherwise what is reported
   */
  record Decision(Action action, String why) {}

  static final String OUTSIDE = "not checked: outside this deployment's locations";

  private final Map<String, String> ours;
  private final DeploymentScope scope;

  /**
   * @param ours this table's folders ({@link TableFolders#of})
   */
  SharingScreen(Map<String, String> ours, DeploymentScope scope) {
    this.ours = ours;
    this.scope = scope;
  }

  Decision decide(ListedTable table) {
    return switch (table.kind()) {
      case VIEW -> skip("a view");
      case UNKNOWN -> load("listed by name only");
      case RESOURCE_LINK ->
          table.targetInThisCatalog()
              ? skip("resource link to " + table.target() + ": checked as its target")
              : notChecked(
                  "resource link to "
                      + table.target()
                      + ": not checked: another catalog's table this role cannot read");
      case OTHER_FORMAT -> otherFormat(table);
      case ICEBERG -> iceberg(table);
    };
  }

  private Decision otherFormat(ListedTable table) {
    String what = "not an Iceberg table (" + table.format() + ")";
    if (table.location() == null) {
      return notChecked(what + " and no location listed: not checked");
    }
    String overlap = overlap(Map.of("listed location", table.location()));
    if (overlap != null) {
      return refuse(
          what
              + ", and "
              + overlap
              + ", so which of its files are live cannot be told from any metadata");
    }
    return notChecked(
        what
            + " at "
            + table.location()
            + ", apart from this table's folders: its partitions' own locations are not checked");
  }

  private Decision iceberg(ListedTable table) {
    Map<String, String> listed = new LinkedHashMap<>();
    if (table.location() != null) {
      listed.put("listed location", table.location());
    }
    String metadataFolder = folderOf(table.metadataLocation());
    if (metadataFolder != null) {
      listed.put("listed metadata folder", metadataFolder);
    }
    String overlap = overlap(listed);
    if (overlap != null) {
      return load(overlap);
    }
    if (table.location() == null || table.metadataLocation() == null) {
      return load("its locations are not listed");
    }
    if (scope.locationPrefixes().isEmpty()) {
      return load("this deployment sets no location bounds");
    }
    if (scope.contains(table.location()) || scope.contains(table.metadataLocation())) {
      return load("it lies inside this deployment's locations");
    }
    return tryLoad("outside this deployment's locations");
  }

  private static Decision skip(String why) {
    return new Decision(Action.SKIP, why);
  }

  private static Decision load(String why) {
    return new Decision(Action.LOAD, why);
  }

  private static Decision tryLoad(String why) {
    return new Decision(Action.TRY_LOAD, why);
  }

  private static Decision notChecked(String why) {
    return new Decision(Action.NOT_CHECKED, why);
  }

  private static Decision refuse(String why) {
    return new Decision(Action.REFUSE, why);
  }

  private String overlap(Map<String, String> theirs) {
    return theirs.isEmpty() ? null : TableFolders.overlap(ours, theirs);
  }

  private static String folderOf(String file) {
    return file == null || file.lastIndexOf('/') <= 0
        ? null
        : file.substring(0, file.lastIndexOf('/'));
  }
}
