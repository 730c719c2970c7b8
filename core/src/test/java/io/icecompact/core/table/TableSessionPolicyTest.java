package io.icecompact.core.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icecompact.core.error.OutsideDeploymentScopeException;
import io.icecompact.core.table.TableSessionPolicy.Stage;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The session policy document built from a table (no S3 here): which folders each stage may write
 * under, the S3 resource syntax, and STS's size limit. {@code TableSessionPolicyOnLocalS3Test} (in
 * engine) runs the stages against it through an enforcing S3 stand-in.
 */
class TableSessionPolicyTest {
  private static final String LOCATION = "s3://warehouse/wh/db/orders";
  private static final String METADATA_FILE = LOCATION + "/metadata/00003-abc.metadata.json";
  private static final String WORK = LOCATION + "/_icecompact/job-1";

  @Test
  void eachStageWritesOnlyItsOwnFoldersOfTheTable() {
    Table table = table(LOCATION, Map.of(), METADATA_FILE);
    assertThat(folders(table, Stage.PLANNER)).containsExactly(WORK);
    assertThat(folders(table, Stage.WORKER)).containsExactly(WORK, LOCATION + "/data");
    assertThat(folders(table, Stage.COMMITTER))
        .containsExactly(WORK, LOCATION + "/data", LOCATION + "/metadata");
    assertThat(folders(table, Stage.CARE))
        .as("the work location and data and metadata folders are inside the table's")
        .containsExactly(LOCATION);
    assertThat(folders(table, Stage.RECORDER)).containsExactly(WORK);
  }

  @Test
  void aFailureRecordWritesOnlyUnderItsWorkLocation() {
    TableSessionPolicy policy =
        TableSessionPolicy.ofWorkLocation("s3a://work/icecompact/db.orders/job-1/").orElseThrow();
    assertThat(policy.stage()).isEqualTo(Stage.RECORDER);
    assertThat(policy.writeResources())
        .containsExactly("arn:aws:s3:::work/icecompact/db.orders/job-1/*");
    assertThat(TableSessionPolicy.ofWorkLocation("file:/tmp/work/db.orders/job-1")).isEmpty();
  }

  @Test
  void locationPropertiesMoveTheFoldersAndTheCurrentMetadataFileAddsItsOwn() {
    Table table =
        table(
            "s3a://warehouse/wh/db/orders/",
            Map.of(
                "write.data.path", "s3://elsewhere/orders-data/",
                "write.object-storage.path", "s3n://objects/orders",
                "write.folder-storage.path", "s3://folders/orders",
                "write.metadata.path", "s3://meta/orders"),
            "s3://registered/copy/v7.metadata.json");
    assertThat(folders(table, Stage.COMMITTER))
        .containsExactly(
            WORK,
            LOCATION + "/data",
            "s3://elsewhere/orders-data",
            "s3://objects/orders",
            "s3://folders/orders",
            "s3://meta/orders",
            "s3://registered/copy");
  }

  @Test
  void theDocumentAllowsWritesOnlyUnderTheFoldersAndEverythingElseAsTheRole() {
    Table table = table(LOCATION, Map.of(), METADATA_FILE);
    String json = TableSessionPolicy.of(table, WORK, Stage.WORKER).orElseThrow().json();
    assertThat(json)
        .isEqualTo(
            "{\"Version\":\"2012-10-17\",\"Statement\":["
                + "{\"Sid\":\"AsTheRole\",\"Effect\":\"Allow\",\"NotAction\":\"s3:*\",\"Resource\":\"*\"},"
                + "{\"Sid\":\"Read\",\"Effect\":\"Allow\",\"Action\":[\"s3:GetObject\",\"s3:GetObjectVersion\","
                + "\"s3:ListBucket\",\"s3:GetBucketLocation\",\"s3:ListBucketMultipartUploads\","
                + "\"s3:ListMultipartUploadParts\"],\"Resource\":\"*\"},"
                + "{\"Sid\":\"WriteTableFolders\",\"Effect\":\"Allow\",\"Action\":[\"s3:PutObject\","
                + "\"s3:DeleteObject\",\"s3:AbortMultipartUpload\"],\"Resource\":["
                + "\"arn:aws:s3:::warehouse/wh/db/orders/_icecompact/job-1/*\","
                + "\"arn:aws:s3:::warehouse/wh/db/orders/data/*\"]}]}");
  }

  @Test
  void wildcardCharactersInAKeyAreLiteral() {
    assertThat(TableSessionPolicy.literal("b/odd*name?$x")).isEqualTo("b/odd${*}name${?}${$}x");
  }

  @Test
  void aTableWithEveryLocationPropertyAndLongPathsStaysUnderStsLimit() {
    String longPrefix =
        "s3://a-bucket-name-of-sixty-three-characters-for-the-worst-case-x/" + "p".repeat(80);
    Table table =
        table(
            longPrefix + "/db/t",
            Map.of(
                "write.data.path", longPrefix + "/data-elsewhere",
                "write.object-storage.path", longPrefix + "/objects",
                "write.folder-storage.path", longPrefix + "/folders",
                "write.metadata.path", longPrefix + "/meta"),
            longPrefix + "/registered/v1.metadata.json");
    String json =
        TableSessionPolicy.of(table, longPrefix + "/work/db.t/job-1", Stage.CARE)
            .orElseThrow()
            .json();
    assertThat(json.length()).isLessThan(TableSessionPolicy.MAX_CHARACTERS);
  }

  @Test
  void aLocalTableHasNoPolicyAndAMixedOneIsRefused() {
    assertThat(
            TableSessionPolicy.of(
                table("file:/tmp/wh/db/t", Map.of(), "file:/tmp/wh/db/t/metadata/v1.metadata.json"),
                "file:/tmp/wh/db/t/_icecompact/j",
                Stage.CARE))
        .isEmpty();
    Table mixed = table(LOCATION, Map.of("write.data.path", "hdfs://nn/orders"), METADATA_FILE);
    assertThatThrownBy(() -> TableSessionPolicy.of(mixed, WORK, Stage.WORKER))
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessageContaining("both on S3 and elsewhere")
        .hasMessageContaining("hdfs://nn/orders");
  }

  @Test
  void aPolicyOverStsLimitIsRefusedBeforeAnyCall() {
    TableSessionPolicy huge =
        new TableSessionPolicy(Stage.CARE, List.of("s3://b/" + "k".repeat(2000)));
    assertThatThrownBy(huge::json)
        .isInstanceOf(OutsideDeploymentScopeException.class)
        .hasMessageContaining("over STS's 2048");
  }

  private static List<String> folders(Table table, Stage stage) {
    return TableSessionPolicy.of(table, WORK, stage).orElseThrow().writeFolders();
  }

  static Table table(String location, Map<String, String> properties, String metadataFile) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    TableMetadata created =
        TableMetadata.newTableMetadata(
            schema, PartitionSpec.unpartitioned(), SortOrder.unsorted(), location, properties);
    TableMetadata metadata =
        TableMetadata.buildFrom(created)
            .discardChanges()
            .withMetadataLocation(metadataFile)
            .build();
    return new BaseTable(new StaticTableOperations(metadata, new InMemoryFileIO()), "db.orders");
  }
}
