package io.icecompact.worker.columnar;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Copies an input column chunk's compressed pages as they are, for a row group none of whose rows
 * is deleted. parquet-java can copy whole column chunks ({@code
 * ParquetFileWriter.appendColumnChunk}) but not the pages of several input chunks into one output
 * chunk, which merging row groups needs; so the page headers are read here with parquet-format's
 * Thrift reader and the pages handed to the file writer's page API.
 *
 * <p>Only chunks whose pages mean the same in the output chunk qualify: the output's codec, v1 data
 * pages, plain values without a dictionary (an output chunk has one dictionary), no floating-point
 * type (Iceberg's NaN counts need the values), and complete chunk statistics, which stand in for
 * the pages' (parquet-java writes none in page headers).
 */
final class ChunkPassThrough {
  private static final Set<Encoding> PLAIN_ENCODINGS =
      EnumSet.of(Encoding.PLAIN, Encoding.RLE, Encoding.BIT_PACKED);

  /** One data page as stored: {@code length} bytes of the chunk's bytes from {@code offset}. */
  record CopiedPage(
      byte[] chunk,
      int offset,
      int length,
      int uncompressedSize,
      int valueCount,
      Encoding rl,
      Encoding dl,
      Encoding values) {}

  private ChunkPassThrough() {}

  /**
   * Whether the chunk's metadata allows copying its pages into an output chunk of {@code codec}.
   */
  static boolean eligible(ColumnChunkMetaData chunk, CompressionCodecName codec) {
    PrimitiveTypeName type = chunk.getPrimitiveType().getPrimitiveTypeName();
    if (type == PrimitiveTypeName.FLOAT
        || type == PrimitiveTypeName.DOUBLE
        || type == PrimitiveTypeName.INT96) {
      return false;
    }
    if (chunk.getCodec() != codec || !plainValues(chunk)) {
      return false;
    }
    Statistics<?> stats = chunk.getStatistics();
    return stats != null
        && !stats.isEmpty()
        && stats.isNumNullsSet()
        && (stats.hasNonNullValue() || stats.getNumNulls() == chunk.getValueCount());
  }

  /** Whether every data page of the chunk holds PLAIN values (no dictionary), by its metadata. */
  static boolean plainValues(ColumnChunkMetaData chunk) {
    if (chunk.hasDictionaryPage() || !PLAIN_ENCODINGS.containsAll(chunk.getEncodings())) {
      return false;
    }
    return chunk.getEncodingStats() == null
        || !chunk.getEncodingStats().hasDictionaryEncodedPages();
  }

  /** The chunk's data pages, or null when one of them cannot be copied (e.g. a v2 page). */
  static List<CopiedPage> read(SeekableInputStream stream, ColumnChunkMetaData chunk)
      throws IOException {
    byte[] bytes = new byte[Math.toIntExact(chunk.getTotalSize())];
    stream.seek(chunk.getStartingPos());
    stream.readFully(bytes);
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    List<CopiedPage> pages = new ArrayList<>();
    long values = 0;
    while (in.available() > 0) {
      PageHeader header = Util.readPageHeader(in);
      int size = header.getCompressed_page_size();
      if (header.getType() == PageType.INDEX_PAGE) {
        in.skipNBytes(size);
        continue;
      }
      if (header.getType() != PageType.DATA_PAGE) {
        return null;
      }
      DataPageHeader data = header.getData_page_header();
      int offset = bytes.length - in.available();
      if (in.skip(size) != size) {
        throw new IOException("Truncated page in column chunk " + chunk.getPath());
      }
      pages.add(
          new CopiedPage(
              bytes,
              offset,
              size,
              header.getUncompressed_page_size(),
              data.getNum_values(),
              Encoding.valueOf(data.getRepetition_level_encoding().name()),
              Encoding.valueOf(data.getDefinition_level_encoding().name()),
              Encoding.valueOf(data.getEncoding().name())));
      values += data.getNum_values();
    }
    if (values != chunk.getValueCount()) {
      throw new IOException(
          String.format(
              "Column chunk %s holds %d values in its pages, %d in its metadata",
              chunk.getPath(), values, chunk.getValueCount()));
    }
    return pages;
  }

  /**
   * Appends the pages to the sink's chunk after the values encoded so far. The input chunk's
   * statistics ride on its first page (rebuilt for the output column's type), the others carry
   * empty ones: merged by the file writer, they make the output chunk's statistics.
   */
  static void append(List<CopiedPage> pages, ColumnChunkMetaData chunk, ColumnSink sink) {
    sink.cutPages();
    PrimitiveType type = sink.column().getPrimitiveType();
    Statistics<?> input = chunk.getStatistics();
    Statistics.Builder builder =
        Statistics.getBuilderForReading(type).withNumNulls(input.getNumNulls());
    if (input.hasNonNullValue()) {
      builder.withMin(input.getMinBytes()).withMax(input.getMaxBytes());
    }
    Statistics<?> first = builder.build();
    for (int p = 0; p < pages.size(); p++) {
      CopiedPage page = pages.get(p);
      sink.chunk()
          .copyPage(
              page.chunk(),
              page.offset(),
              page.length(),
              page.uncompressedSize(),
              page.valueCount(),
              p == 0 ? first : Statistics.createStats(type),
              page.rl(),
              page.dl(),
              page.values());
    }
  }
}
