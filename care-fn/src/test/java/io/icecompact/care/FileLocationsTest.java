package io.icecompact.care;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The forms one object takes in metadata and in listings compare equal; other objects do not. */
class FileLocationsTest {
  @Test
  void hadoopS3SchemesDoubledAndTrailingSlashesNameTheSameObject() {
    assertThat(FileLocations.normalized("s3a://bucket/wh//t/data/f.parquet"))
        .isEqualTo(FileLocations.normalized("s3://bucket/wh/t/data/f.parquet"))
        .isEqualTo(FileLocations.normalized("s3n://bucket/wh/t/data/f.parquet/"));
    assertThat(FileLocations.normalized("s3://other/wh/t/data/f.parquet"))
        .isNotEqualTo(FileLocations.normalized("s3://bucket/wh/t/data/f.parquet"));
    assertThat(FileLocations.path("s3://other/wh/t/data/f.parquet"))
        .isEqualTo("/wh/t/data/f.parquet");
  }

  @Test
  void localFilesWithAndWithoutTheFileScheme() {
    assertThat(FileLocations.normalized("file:///w/t/f"))
        .isEqualTo(FileLocations.normalized("file:/w/t/f"))
        .isEqualTo(FileLocations.normalized("/w/t/f"));
  }

  @Test
  void percentEscapesAreDecodedForThePathComparison() {
    assertThat(FileLocations.decodedPath("s3://b/t/data/region=a%20b/f"))
        .isEqualTo("/t/data/region=a b/f");
  }

  @Test
  void underIsByFolderNotByPrefix() {
    assertThat(FileLocations.isUnder("s3a://b/t/data/x", "s3://b/t/data/")).isTrue();
    assertThat(FileLocations.isUnder("s3://b/t/data2/x", "s3://b/t/data")).isFalse();
  }

  @Test
  void rootedSplitsTheNormalizedRootFromThePathAsWritten() {
    assertThat(FileLocations.rooted("s3a://bucket/wh/t/f"))
        .isEqualTo(new FileLocations.Rooted("s3://bucket", "/wh/t/f"));
    assertThat(FileLocations.rooted("file:///w/t/f"))
        .isEqualTo(FileLocations.rooted("file:/w/t/f"))
        .isEqualTo(FileLocations.rooted("/w/t/f"))
        .isEqualTo(new FileLocations.Rooted("", "/w/t/f"));
    assertThat(FileLocations.rooted("s3://bucket/wh//t/f").regular()).isFalse();
    assertThat(FileLocations.rooted("s3://bucket/wh/t/").regular()).isFalse();
    assertThat(FileLocations.rooted("s3://bucket/wh/t/f").regular()).isTrue();
  }
}
