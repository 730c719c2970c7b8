package io.icecompact.worker.columnar;

import static org.apache.parquet.schema.LogicalTypeAnnotation.decimalType;
import static org.apache.parquet.schema.LogicalTypeAnnotation.stringType;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32;
import static org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT64;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types.DecimalType;
import org.apache.iceberg.types.Types.LongType;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.iceberg.types.Types.StringType;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each reason {@link FooterCheck} gives for leaving a file to the generic path, and the differences
 * it lets through, on the footers of real Parquet files written by parquet-java (as other engines
 * write them: another name, required columns, fixed-bytes decimals, no field ids).
 */
class FooterCheckTest {
  /** The table: id, name, price, and {@code channel} added after some files were written. */
  private static final Schema SCHEMA =
      new Schema(
          NestedField.required(1, "id", LongType.get()),
          NestedField.optional(2, "name", StringType.get()),
          NestedField.optional(3, "price", DecimalType.of(10, 2)),
          NestedField.optional(4, "channel", StringType.get()));

  private static final OutputColumns COLUMNS = new OutputColumns(SCHEMA, 2);

  @TempDir Path dir;

  @Test
  void aFileWrittenUnderTheTableSchemaPasses() throws IOException {
    assertThat(problem(COLUMNS.type)).isNull();
  }

  @Test
  void renamedRequiredDroppedAndLaterAddedColumnsAndFixedDecimalsPass() throws IOException {
    MessageType file =
        Types.buildMessage()
            .required(INT64)
            .id(1)
            .named("order_id") // renamed
            .required(BINARY)
            .as(stringType())
            .id(2)
            .named("name") // required under an optional field
            .required(FIXED_LEN_BYTE_ARRAY)
            .length(5)
            .as(decimalType(2, 10))
            .id(3)
            .named("price") // pyarrow's
            .optional(INT32)
            .id(9)
            .named("dropped") // no longer in the schema
            .named("spark_schema"); // no channel: added later, reads as nulls
    assertThat(problem(file)).isNull();
  }

  @Test
  void aColumnWithoutFieldIdIsRefused() throws IOException {
    MessageType file =
        Types.buildMessage()
            .required(INT64)
            .id(1)
            .named("id")
            .optional(BINARY)
            .as(stringType())
            .named("name")
            .named("table");
    assertThat(problem(file)).isEqualTo("column name has no field id");
  }

  @Test
  void aMissingRequiredColumnIsRefused() throws IOException {
    MessageType file =
        Types.buildMessage().optional(BINARY).as(stringType()).id(2).named("name").named("table");
    assertThat(problem(file))
        .isEqualTo("column id (id 1) is missing and is required or has an initial default");
  }

  @Test
  void aMissingColumnWithAnInitialDefaultIsRefused() throws IOException {
    Schema withDefault =
        new Schema(
            NestedField.required(1, "id", LongType.get()),
            NestedField.optional("region")
                .withId(5)
                .ofType(StringType.get())
                .withInitialDefault(org.apache.iceberg.expressions.Literal.of("eu"))
                .build());
    MessageType file = Types.buildMessage().required(INT64).id(1).named("id").named("table");
    OutputColumns columns = new OutputColumns(withDefault, 3);
    assertThat(FooterCheck.problem(columns.type, footer(file), columns.mayBeAbsent()))
        .isEqualTo("column region (id 5) is missing and is required or has an initial default");
  }

  @Test
  void aNestedColumnIsRefused() throws IOException {
    MessageType file =
        Types.buildMessage()
            .required(INT64)
            .id(1)
            .named("id")
            .optionalGroup()
            .id(2)
            .optional(BINARY)
            .as(stringType())
            .id(7)
            .named("first")
            .named("name")
            .named("table");
    assertThat(problem(file)).isEqualTo("column name (id 2) is nested");
  }

  @Test
  void anotherPhysicalTypeIsRefused() throws IOException {
    MessageType file = Types.buildMessage().required(INT32).id(1).named("id").named("table");
    assertThat(problem(file))
        .startsWith(
            "column id is written as 'required int32 id = 1', the schema has 'required int64 id = 1'")
        .endsWith("(another physical type)");
  }

  @Test
  void anotherLogicalTypeIsRefused() throws IOException {
    MessageType file =
        Types.buildMessage()
            .required(INT64)
            .id(1)
            .named("id")
            .optional(BINARY)
            .id(2)
            .named("name")
            .named("table");
    assertThat(problem(file))
        .startsWith("column name is written as")
        .endsWith("(another logical type)");
  }

  @Test
  void anOptionalColumnOfARequiredFieldIsRefused() throws IOException {
    MessageType file = Types.buildMessage().optional(INT64).id(1).named("id").named("table");
    assertThat(problem(file))
        .startsWith("column id is written as")
        .endsWith("(optional in the file, required in the schema)");
  }

  @Test
  void aRepeatedColumnIsRefused() throws IOException {
    MessageType file =
        Types.buildMessage()
            .required(INT64)
            .id(1)
            .named("id")
            .repeated(BINARY)
            .as(stringType())
            .id(2)
            .named("name")
            .named("table");
    assertThat(problem(file)).startsWith("column name is written as").endsWith("(repeated)");
  }

  @Test
  void anEqualityDeleteOnAColumnTheFileLacksIsNamed() throws IOException {
    MessageType file =
        footer(Types.buildMessage().required(INT64).id(1).named("id").named("table"));
    DeleteFile onChannel = equalityDelete("/deletes/channel.parquet", 4);
    DeleteFile onId = equalityDelete("/deletes/id.parquet", 1);
    DeleteFile positions =
        FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
            .ofPositionDeletes()
            .withPath("/deletes/positions.parquet")
            .withFormat(FileFormat.PARQUET)
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();

    assertThat(
            FooterCheck.missingDeleteKey(file, "/data/a.parquet", List.of(positions, onId), SCHEMA))
        .isNull();
    assertThat(
            FooterCheck.missingDeleteKey(file, "/data/a.parquet", List.of(onId, onChannel), SCHEMA))
        .isEqualTo(
            "equality delete on column channel (id 4), which data file /data/a.parquet does not contain: "
                + "/deletes/channel.parquet");
  }

  private String problem(MessageType written) throws IOException {
    return FooterCheck.problem(COLUMNS.type, footer(written), COLUMNS.mayBeAbsent());
  }

  /** The schema in the footer of a file parquet-java writes with {@code type} (no rows). */
  private MessageType footer(MessageType type) throws IOException {
    Path file = dir.resolve(System.nanoTime() + ".parquet");
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(type).build()) {
      // no rows: the footer alone is checked
    }
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(file))) {
      return reader.getFooter().getFileMetaData().getSchema();
    }
  }

  private static DeleteFile equalityDelete(String location, int... fieldIds) {
    return FileMetadata.deleteFileBuilder(PartitionSpec.unpartitioned())
        .ofEqualityDeletes(fieldIds)
        .withPath(location)
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(10)
        .withRecordCount(1)
        .build();
  }
}
