package io.icecompact.care;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;

/**
 * The folders a table writes to, and how two tables' folders overlap: the test by which {@link
 * SharingTables} and {@link SharingScreen} call another table a possible sharer. Folders compare by
 * path, scheme and bucket aside ({@link FileLocations#path}), so that a copy registered through
 * {@code s3a://} or another bucket name still counts: a doubt counts as an overlap.
 */
final class TableFolders {
  private TableFolders() {}

  /** The folders a table writes to, by the property (or role) that names each. */
  static Map<String, String> of(TableMetadata metadata) {
    Map<String, String> folders = new LinkedHashMap<>();
    folders.put("location", metadata.location());
    Map<String, String> properties = metadata.properties();
    for (String key :
        List.of(
            TableProperties.WRITE_DATA_LOCATION,
            TableProperties.OBJECT_STORE_PATH,
            TableProperties.WRITE_FOLDER_STORAGE_LOCATION,
            TableProperties.WRITE_METADATA_LOCATION)) {
      String value = properties.get(key);
      if (value != null && !value.isBlank()) {
        folders.put(key, value);
      }
    }
    String metadataFile = metadata.metadataFileLocation();
    if (metadataFile != null && metadataFile.lastIndexOf('/') > 0) {
      folders.put(
          "current metadata file's folder",
          metadataFile.substring(0, metadataFile.lastIndexOf('/')));
    }
    return folders;
  }

  /** How two tables' folders overlap (the first pair found), or null when none does. */
  static String overlap(Map<String, String> ours, Map<String, String> theirs) {
    for (Map.Entry<String, String> mine : ours.entrySet()) {
      for (Map.Entry<String, String> other : theirs.entrySet()) {
        String relation =
            relation(FileLocations.path(other.getValue()), FileLocations.path(mine.getValue()));
        if (relation != null) {
          return String.format(
              "its %s %s %s this table's %s %s",
              other.getKey(), other.getValue(), relation, mine.getKey(), mine.getValue());
        }
      }
    }
    return null;
  }

  /**
   * How folder {@code a} relates to folder {@code b} by path: the same, inside, containing; null:
   * apart.
   */
  private static String relation(String a, String b) {
    String left = a.isEmpty() ? "/" : a;
    String right = b.isEmpty() ? "/" : b;
    if (left.equals(right)) {
      return "is";
    }
    if (right.equals("/") || left.startsWith(right + "/")) {
      return "is inside";
    }
    if (left.equals("/") || right.startsWith(left + "/")) {
      return "contains";
    }
    return null;
  }
}
