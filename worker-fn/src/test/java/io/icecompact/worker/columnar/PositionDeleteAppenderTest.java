package io.icecompact.worker.columnar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import io.icecompact.core.table.TableAccess;
import io.icecompact.fixtures.LocalWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DeleteSchemaUtil;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.internal.column.columnindex.OffsetIndex;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The position delete files the conversion writes are Iceberg's: the same delete file metadata
 * (metrics, bounds, the data file they reference), the same Parquet schema and footer keys, the
 * table's delete codec, encodings, row groups and pages, and the positions read back by Iceberg's
 * reader; from pages ({@link PositionDeletePages}) and, past a row group, the record writer.
 */
class PositionDeleteAppenderTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()));

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"table default", "gzip", "snappy", "uncompressed", "64 KB row groups"})
  void writesWhatIcebergsWriterWrites(String settings, @TempDir Path dir) throws IOException {
    try (TableAccess access = new TableAccess(LocalWarehouse.catalogProperties(dir))) {
      Map<String, String> properties =
          switch (settings) {
            case "table default" -> Map.of(TableProperties.FORMAT_VERSION, "2");
            // more positions than a row group holds: written through the record writer
            case "64 KB row groups" ->
                Map.of(
                    TableProperties.FORMAT_VERSION,
                    "2",
                    TableProperties.DELETE_PARQUET_ROW_GROUP_SIZE_BYTES,
                    "65536");
            default ->
                Map.of(
                    TableProperties.FORMAT_VERSION,
                    "2",
                    TableProperties.DELETE_PARQUET_COMPRESSION,
                    settings);
          };
      PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).identity("region").build();
      Table table =
          access.catalog().createTable(TableIdentifier.parse("db.t"), SCHEMA, spec, properties);
      PartitionData partition = new PartitionData(spec.partitionType());
      partition.set(0, "eu");
      String dataFile = table.location() + "/data/region=eu/00000-0-data.parquet";
      long[] positions = new long[30_000];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = 3L * i + 1;
      }
      OutputFileFactory files =
          OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();

      EncryptedOutputFile ours = files.newOutputFile(spec, partition);
      DeleteFile written =
          PositionDeleteAppender.writeOneDataFile(
              ours.encryptingOutputFile(),
              table.properties(),
              spec,
              partition,
              dataFile,
              positions);
      DeleteFile underIcebergsWriter =
          write(
              new PositionDeleteWriter<>(
                  new PositionDeleteAppender<>(
                      files.newOutputFile(spec, partition).encryptingOutputFile(),
                      table.properties()),
                  FileFormat.PARQUET,
                  files.newOutputFile(spec, partition).encryptingOutputFile().location(),
                  spec,
                  partition,
                  null),
              dataFile,
              positions);
      DeleteFile icebergs =
          write(
              new GenericFileWriterFactory.Builder(table)
                  .deleteFileFormat(FileFormat.PARQUET)
                  .build()
                  .newPositionDeleteWriter(files.newOutputFile(spec, partition), spec, partition),
              dataFile,
              positions);

      assertThat(written.content()).isEqualTo(icebergs.content());
      assertThat(written.format()).isEqualTo(FileFormat.PARQUET);
      assertThat(written.specId()).isEqualTo(icebergs.specId());
      assertThat(written.partition().get(0, String.class)).isEqualTo("eu");
      assertThat(written.recordCount()).isEqualTo(positions.length);
      assertThat(written.lowerBounds()).isEqualTo(icebergs.lowerBounds());
      assertThat(written.upperBounds()).isEqualTo(icebergs.upperBounds());
      assertThat(written.valueCounts()).isEqualTo(icebergs.valueCounts());
      assertThat(written.nullValueCounts()).isEqualTo(icebergs.nullValueCounts());
      assertThat(written.columnSizes().keySet()).isEqualTo(icebergs.columnSizes().keySet());
      assertThat(written.referencedDataFile()).isEqualTo(icebergs.referencedDataFile());
      assertThat(written.keyMetadata()).isEqualTo(icebergs.keyMetadata());
      // the appender under Iceberg's writer makes the same metadata as writeOneDataFile
      assertThat(underIcebergsWriter.valueCounts()).isEqualTo(written.valueCounts());
      assertThat(underIcebergsWriter.lowerBounds()).isEqualTo(written.lowerBounds());
      assertThat(underIcebergsWriter.splitOffsets()).isEqualTo(written.splitOffsets());
      assertThat(ContentFileUtil.referencedDataFileLocation(written)).isEqualTo(dataFile);
      assertThat(written.fileSizeInBytes())
          .isEqualTo(table.io().newInputFile(written.location()).getLength());

      ParquetMetadata ourFooter = footer(table, written);
      ParquetMetadata icebergFooter = footer(table, icebergs);
      assertThat(ourFooter.getFileMetaData().getSchema())
          .isEqualTo(icebergFooter.getFileMetaData().getSchema());
      assertThat(ourFooter.getFileMetaData().getKeyValueMetaData())
          .isEqualTo(icebergFooter.getFileMetaData().getKeyValueMetaData());
      if (settings.equals("64 KB row groups")) {
        // the record writer ends row groups by its sampled size checks, which see the pos
        // column's plain pages where Iceberg's first builds a dictionary: not at the same rows
        assertThat(ourFooter.getBlocks()).hasSizeGreaterThan(1);
        assertThat(written.splitOffsets()).hasSameSizeAs(ourFooter.getBlocks());
      } else {
        assertThat(written.splitOffsets()).isEqualTo(icebergs.splitOffsets());
        assertThat(ourFooter.getBlocks()).hasSize(1).hasSameSizeAs(icebergFooter.getBlocks());
        for (int column = 0; column < 2; column++) {
          ColumnChunkMetaData ourChunk = ourFooter.getBlocks().get(0).getColumns().get(column);
          ColumnChunkMetaData icebergChunk =
              icebergFooter.getBlocks().get(0).getColumns().get(column);
          assertThat(ourChunk.getCodec()).isEqualTo(icebergChunk.getCodec());
          assertThat(ourChunk.getEncodings())
              .as("encodings of %s", ourChunk.getPath())
              .isEqualTo(icebergChunk.getEncodings());
          assertThat(ourChunk.hasDictionaryPage()).isEqualTo(icebergChunk.hasDictionaryPage());
          assertThat(ourChunk.getStatistics()).isEqualTo(icebergChunk.getStatistics());
          assertThat(ourChunk.getTotalUncompressedSize())
              .as("uncompressed size of %s", ourChunk.getPath())
              .isCloseTo(icebergChunk.getTotalUncompressedSize(), withinPercentage(20));
        }
        // pages where Iceberg's writer ends them, each in the column and offset indexes
        assertThat(pages(table, written)).isEqualTo(pages(table, icebergs));
      }

      assertThat(readBack(table, written)).isEqualTo(readBack(table, icebergs));
      assertThat(readBack(table, written))
          .hasSize(positions.length)
          .first()
          .isEqualTo(dataFile + "@1");
    }
  }

  private static DeleteFile write(
      PositionDeleteWriter<Record> writer, String dataFile, long[] positions) throws IOException {
    PositionDelete<Record> delete = PositionDelete.create();
    try (writer) {
      for (long position : positions) {
        writer.write(delete.set(dataFile, position));
      }
    }
    return writer.toDeleteFile();
  }

  /**
   * Each column chunk's pages: their count, and for the positions the first row of each (the path
   * column's page ends are parquet-java's sampled estimate; ours fall within a row group of them).
   */
  private static List<String> pages(Table table, DeleteFile file) throws IOException {
    List<String> pages = new ArrayList<>();
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetInputOf(table.io().newInputFile(file.location())),
            ReadOptions.builder().build())) {
      for (BlockMetaData block : reader.getFooter().getBlocks()) {
        for (ColumnChunkMetaData chunk : block.getColumns()) {
          OffsetIndex offsets = reader.readOffsetIndex(chunk);
          assertThat(reader.readColumnIndex(chunk)).isNotNull();
          List<Long> firstRows = new ArrayList<>();
          for (int page = 0; page < offsets.getPageCount(); page++) {
            firstRows.add(offsets.getFirstRowIndex(page));
          }
          pages.add(
              chunk.getPath()
                  + ": "
                  + (chunk.getPath().toDotString().equals("pos")
                      ? firstRows.toString()
                      : firstRows.size() + " pages"));
        }
      }
    }
    return pages;
  }

  private static ParquetMetadata footer(Table table, DeleteFile file) throws IOException {
    try (ParquetFileReader reader =
        ParquetFileReader.open(
            new ParquetInputOf(table.io().newInputFile(file.location())),
            ReadOptions.builder().build())) {
      return reader.getFooter();
    }
  }

  private static List<String> readBack(Table table, DeleteFile file) throws IOException {
    Schema schema = DeleteSchemaUtil.pathPosSchema();
    List<String> rows = new ArrayList<>();
    try (CloseableIterable<Record> records =
        Parquet.read(table.io().newInputFile(file.location()))
            .project(schema)
            .createReaderFunc(type -> GenericParquetReaders.buildReader(schema, type))
            .build()) {
      records.forEach(record -> rows.add(record.get(0) + "@" + record.get(1)));
    }
    return rows;
  }
}
