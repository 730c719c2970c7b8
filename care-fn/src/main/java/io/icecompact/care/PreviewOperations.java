package io.icecompact.care;

import org.apache.iceberg.LocationProviders;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A table's operations whose commits stay in memory: a care step's dry run applies Iceberg's own
 * update (its retention rules, its ref expiry) to a copy of the metadata and reads what it would
 * leave, writing nothing. Iceberg's {@code StaticTableOperations} refuses commits, and {@code
 * ExpireSnapshots.apply()} returns the remaining snapshots but not the refs, hence this.
 */
final class PreviewOperations implements TableOperations {
  private final FileIO io;
  private TableMetadata current;

  PreviewOperations(TableMetadata metadata, FileIO io) {
    this.current = metadata;
    this.io = io;
  }

  @Override
  public TableMetadata current() {
    return current;
  }

  @Override
  public TableMetadata refresh() {
    return current;
  }

  @Override
  public void commit(TableMetadata base, TableMetadata metadata) {
    current = metadata;
  }

  @Override
  public FileIO io() {
    return io;
  }

  @Override
  public String metadataFileLocation(String fileName) {
    throw new UnsupportedOperationException("a preview writes no metadata file");
  }

  @Override
  public LocationProvider locationProvider() {
    return LocationProviders.locationsFor(current.location(), current.properties());
  }
}
