package io.icecompact.worker.columnar;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * A position delete file naming one data file, written page by page as parquet-java's v1 record
 * writer lays it out under Iceberg's writer: one row group; {@code file_path} as a one-entry
 * dictionary and pages of its id (all 0: a run-length run of a few bytes); {@code pos} as plain
 * longs; pages ended at the page row limit or the page size, with page statistics, size statistics,
 * checksums, and column and offset indexes. A path page ends, as parquet-java ends it, by the
 * unencoded size of its values (4 bytes and the path a row): about where parquet-java's sampled
 * size check ends it.
 *
 * <p>Not through the record writer because it hashes the path into its dictionary and compares it
 * with the page's bounds for every row: that and its flush were a sixth of a v2 conversion's
 * sampled CPU (JFR, 475 delete files). Here the path is encoded once a file.
 */
final class PositionDeletePages {
  private PositionDeletePages() {}

  /**
   * Whether {@code positions} fit the one row group this writer writes (parquet-java would start a
   * second past the row group size); the caller writes the others through the record writer.
   */
  static boolean fits(long positions, WriteSettings settings) {
    return positions > 0 && positions * Long.BYTES < settings.rowGroupSize;
  }

  /**
   * Writes {@code positions} of {@code dataFile} into {@code output} with {@code schema}'s two
   * columns and {@code keyValues} in the footer; returns the footer.
   */
  static ParquetMetadata write(
      ParquetOutputOf output,
      MessageType schema,
      Map<String, String> keyValues,
      WriteSettings settings,
      PageCompressor compressor,
      String dataFile,
      long[] positions)
      throws IOException {
    ParquetFileWriter writer =
        new ParquetFileWriter(
            output,
            schema,
            ParquetFileWriter.Mode.CREATE,
            settings.rowGroupSize,
            0,
            ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH,
            ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
            ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
    writer.start();
    writer.startBlock(positions.length);
    Binary path = Binary.fromConstantByteArray(dataFile.getBytes(StandardCharsets.UTF_8));
    writePaths(
        writer,
        schema.getColumns().get(0),
        settings,
        compressor,
        path,
        positions.length,
        pageRows(settings, Integer.BYTES + path.length()));
    writePositions(
        writer,
        schema.getColumns().get(1),
        settings,
        compressor,
        positions,
        pageRows(settings, Long.BYTES));
    writer.endBlock();
    writer.end(keyValues);
    return writer.getFooter();
  }

  private static int pageRows(WriteSettings settings, int rowBytes) {
    return (int) Math.max(1, Math.min(settings.pageRowLimit, settings.pageSize / (long) rowBytes));
  }

  private static void writePaths(
      ParquetFileWriter writer,
      ColumnDescriptor column,
      WriteSettings settings,
      PageCompressor compressor,
      Binary path,
      int rows,
      int pageRows)
      throws IOException {
    byte[] dictionary =
        ByteBuffer.allocate(Integer.BYTES + path.length())
            .order(ByteOrder.LITTLE_ENDIAN)
            .putInt(path.length())
            .put(path.getBytesUnsafe())
            .array();
    writer.startColumn(column, rows, settings.codec);
    writer.writeDictionaryPage(
        new DictionaryPage(
            BytesInput.from(compressor.compress(BytesInput.from(dictionary))),
            dictionary.length,
            1,
            Encoding.PLAIN_DICTIONARY));
    int width = BytesUtils.getWidthFromMaxInt(0); // one entry: 0 bits an id
    for (int start = 0; start < rows; start += pageRows) {
      int count = Math.min(pageRows, rows - start);
      // the ids after a byte holding their bit width, as parquet-java lays them out
      byte[] ids;
      try (RunLengthBitPackingHybridEncoder encoder =
          new RunLengthBitPackingHybridEncoder(
              width, 64, 1024, HeapByteBufferAllocator.getInstance())) {
        for (int i = 0; i < count; i++) {
          encoder.writeInt(0);
        }
        ids =
            BytesInput.concat(BytesInput.from(new byte[] {(byte) width}), encoder.toBytes())
                .toByteArray();
      }
      Statistics<?> statistics = Statistics.createStats(column.getPrimitiveType());
      statistics.updateStats(path);
      SizeStatistics.Builder sizes = SizeStatistics.newBuilder(column.getPrimitiveType(), 0, 0);
      for (int i = 0; i < count; i++) {
        sizes.add(0, 0, path);
      }
      writePage(
          writer, compressor, ids, count, statistics, sizes.build(), Encoding.PLAIN_DICTIONARY);
    }
    writer.endColumn();
  }

  private static void writePositions(
      ParquetFileWriter writer,
      ColumnDescriptor column,
      WriteSettings settings,
      PageCompressor compressor,
      long[] positions,
      int pageRows)
      throws IOException {
    writer.startColumn(column, positions.length, settings.codec);
    for (int start = 0; start < positions.length; start += pageRows) {
      int count = Math.min(pageRows, positions.length - start);
      byte[] values = new byte[count * Long.BYTES];
      ByteBuffer page = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      SizeStatistics.Builder sizes = SizeStatistics.newBuilder(column.getPrimitiveType(), 0, 0);
      for (int i = start; i < start + count; i++) {
        long position = positions[i];
        page.putLong(position);
        min = Math.min(min, position);
        max = Math.max(max, position);
        sizes.add(0, 0);
      }
      Statistics<?> statistics = Statistics.createStats(column.getPrimitiveType());
      statistics.updateStats(min);
      statistics.updateStats(max);
      writePage(writer, compressor, values, count, statistics, sizes.build(), Encoding.PLAIN);
    }
    writer.endColumn();
  }

  /** A v1 page of a required, unrepeated column: its values alone, no levels. */
  private static void writePage(
      ParquetFileWriter writer,
      PageCompressor compressor,
      byte[] values,
      int count,
      Statistics<?> statistics,
      SizeStatistics sizes,
      Encoding encoding)
      throws IOException {
    writer.writeDataPage(
        count,
        values.length,
        BytesInput.from(compressor.compress(BytesInput.from(values))),
        statistics,
        count,
        Encoding.BIT_PACKED,
        Encoding.BIT_PACKED,
        encoding,
        null,
        null,
        sizes);
  }
}
