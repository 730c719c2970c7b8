package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageWriteStore;
import org.apache.parquet.column.page.PageWriter;
import org.apache.parquet.column.statistics.SizeStatistics;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.statistics.geospatial.GeospatialStatistics;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The compressed pages of one output column chunk until its row group is written.
 *
 * <p>parquet-java's {@code ColumnChunkPageWriteStore} does this for pages its column writers
 * encode, but it cannot take pages that are already compressed: a page copied as it is from an
 * input file (pass-through) would have to be decompressed and compressed again, the very cost it
 * avoids. Here both kinds of pages sit in one list, in row order, and go to the file writer
 * together.
 */
final class ChunkBuffer implements PageWriteStore, PageWriter {
  /** A compressed page: {@code length} bytes of {@code bytes} from {@code offset}. */
  private record Page(
      byte[] bytes,
      int offset,
      int length,
      int uncompressedSize,
      int valueCount,
      int rowCount,
      Statistics<?> statistics,
      SizeStatistics sizeStatistics,
      Encoding rlEncoding,
      Encoding dlEncoding,
      Encoding valuesEncoding) {}

  private final ColumnDescriptor column;
  private final PageCompressor compressor;
  private final CompressionCodecName codec;
  private final List<Page> pages = new ArrayList<>();
  private DictionaryPage dictionary;
  private long bufferedBytes;
  private long valueCount;
  private boolean copiedPages;

  ChunkBuffer(ColumnDescriptor column, PageCompressor compressor, CompressionCodecName codec) {
    this.column = column;
    this.compressor = compressor;
    this.codec = codec;
  }

  @Override
  public PageWriter getPageWriter(ColumnDescriptor path) {
    return this;
  }

  long bufferedBytes() {
    return bufferedBytes;
  }

  long valueCount() {
    return valueCount;
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      Statistics<?> statistics,
      Encoding rl,
      Encoding dl,
      Encoding values)
      throws IOException {
    throw new UnsupportedOperationException(
        "pages need a row count (parquet-java >= 1.11 writers give one)");
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      int rowCount,
      Statistics<?> statistics,
      Encoding rl,
      Encoding dl,
      Encoding values)
      throws IOException {
    writePage(bytes, valueCount, rowCount, statistics, null, rl, dl, values);
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      int rowCount,
      Statistics<?> statistics,
      SizeStatistics sizeStatistics,
      Encoding rl,
      Encoding dl,
      Encoding values)
      throws IOException {
    long uncompressed = bytes.size();
    byte[] compressed = compressor.compress(bytes);
    add(
        new Page(
            compressed,
            0,
            compressed.length,
            (int) uncompressed,
            valueCount,
            rowCount,
            statistics,
            sizeStatistics,
            rl,
            dl,
            values));
  }

  @Override
  public void writePage(
      BytesInput bytes,
      int valueCount,
      int rowCount,
      Statistics<?> statistics,
      SizeStatistics sizeStatistics,
      GeospatialStatistics geospatialStatistics,
      Encoding rl,
      Encoding dl,
      Encoding values)
      throws IOException {
    // no geospatial columns come here (ColumnarEligibility)
    writePage(bytes, valueCount, rowCount, statistics, sizeStatistics, rl, dl, values);
  }

  /**
   * A data page copied from an input file ({@code length} bytes of {@code chunk} from {@code
   * offset}, not copied again): compressed with this chunk's codec, v1, no page statistics.
   */
  void copyPage(
      byte[] chunk,
      int offset,
      int length,
      int uncompressedSize,
      int valueCount,
      Statistics<?> statistics,
      Encoding rl,
      Encoding dl,
      Encoding values) {
    copiedPages = true;
    add(
        new Page(
            chunk,
            offset,
            length,
            uncompressedSize,
            valueCount,
            -1,
            statistics,
            null,
            rl,
            dl,
            values));
  }

  private void add(Page page) {
    pages.add(page);
    bufferedBytes += page.length();
    valueCount += page.valueCount();
  }

  @Override
  public void writePageV2(
      int rowCount,
      int nullCount,
      int valueCount,
      BytesInput repetitionLevels,
      BytesInput definitionLevels,
      Encoding dataEncoding,
      BytesInput data,
      Statistics<?> statistics) {
    throw new UnsupportedOperationException("the columnar path writes v1 pages");
  }

  @Override
  public void writeDictionaryPage(DictionaryPage page) throws IOException {
    if (dictionary != null) {
      throw new IllegalStateException("a column chunk has one dictionary page: " + column);
    }
    BytesInput compressed = BytesInput.from(compressor.compress(page.getBytes()));
    dictionary =
        new DictionaryPage(
            compressed, page.getUncompressedSize(), page.getDictionarySize(), page.getEncoding());
    bufferedBytes += compressed.size();
  }

  @Override
  public long getMemSize() {
    return bufferedBytes;
  }

  @Override
  public long allocatedSize() {
    return bufferedBytes;
  }

  @Override
  public String memUsageString(String prefix) {
    return prefix + " " + column + " " + bufferedBytes + " bytes";
  }

  @Override
  public void close() {}

  /**
   * Writes the chunk. Copied pages carry no page statistics (their chunk's statistics ride on the
   * first page of each copied chunk), so a chunk holding any gets no column or offset index: the
   * file writer's page API without a row count leaves both out, rather than describe pages wrongly.
   */
  void writeTo(ParquetFileWriter writer) throws IOException {
    writer.startColumn(column, valueCount, codec);
    if (dictionary != null) {
      writer.writeDictionaryPage(dictionary);
    }
    // size statistics are all or nothing per chunk (the offset index needs one per page); the pages
    // written here from bytes (DictionaryColumnWriter, PlainPageFilter) carry none
    boolean sizeStatistics = pages.stream().allMatch(page -> page.sizeStatistics() != null);
    for (Page page : pages) {
      BytesInput bytes = BytesInput.from(page.bytes(), page.offset(), page.length());
      if (copiedPages) {
        writer.writeDataPage(
            page.valueCount(),
            page.uncompressedSize(),
            bytes,
            page.statistics(),
            page.rlEncoding(),
            page.dlEncoding(),
            page.valuesEncoding());
      } else {
        writer.writeDataPage(
            page.valueCount(),
            page.uncompressedSize(),
            bytes,
            page.statistics(),
            page.rowCount(),
            page.rlEncoding(),
            page.dlEncoding(),
            page.valuesEncoding(),
            null,
            null,
            sizeStatistics ? page.sizeStatistics() : null);
      }
    }
    writer.endColumn();
  }
}
