package io.icecompact.worker.columnar;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.BitSet;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The copy of a plain-encoded input column chunk whose row group has deleted rows, done on the
 * pages' bytes: each decompressed page's values are copied in runs of kept rows into new PLAIN
 * pages, with their definition levels and statistics; no value goes through a column reader or
 * writer.
 *
 * <p>For such a chunk (an ID, an amount, a free-text column) parquet-java's reader and writer cost
 * a few virtual calls, a statistics update and a buffer append per value, which was most of the
 * time of a file with a single deleted row. Only flat INT32, INT64, FIXED_LEN_BYTE_ARRAY and BINARY
 * columns whose pages are all PLAIN come here (see {@link #supports}); floating-point columns stay
 * on the column API, since Iceberg's NaN counts need every value.
 */
final class PlainPageFilter implements PageCopier {
  private final PageReader pages;
  private final ColumnDescriptor column;
  private final PrimitiveTypeName type;
  private final int width; // bytes of a fixed-width value, or -1 for BINARY
  private final int maxDefinition; // of the input column
  private final int outputMaxDefinition; // 1 where a required input column is written as optional
  private final ColumnDescriptor output;
  private final int pageRowLimit;
  private final long pageSize;

  // the input page being read
  private byte[] values;
  private ByteBuffer littleEndian; // the values, read as numbers
  private int valueOffset;
  private int pageRemaining;
  private RunLengthBitPackingHybridDecoder definitions;

  // the output page being filled
  private byte[] outValues = new byte[8192];
  private int outValueBytes;
  private byte[] outDefinitions = new byte[1024];
  private int outCount;
  private Statistics<?> outStatistics;
  // the output page's bounds in the common orders, else null (see updateStatistics)
  private final SignedBounds numberBounds;
  private final UnsignedBytesBounds byteBounds;

  /**
   * {@code column}: the input's, {@code output}: the output's (the same type, maybe optional where
   * the input is required); {@code pageRowLimit} and {@code pageSize}: the table's, where output
   * pages are cut.
   */
  PlainPageFilter(
      PageReader pages,
      ColumnDescriptor column,
      ColumnDescriptor output,
      int pageRowLimit,
      long pageSize) {
    this.output = output;
    this.outputMaxDefinition = output.getMaxDefinitionLevel();
    this.pageRowLimit = pageRowLimit;
    this.pageSize = pageSize;
    this.pages = pages;
    this.column = column;
    this.type = column.getPrimitiveType().getPrimitiveTypeName();
    this.width =
        switch (type) {
          case INT32 -> 4;
          case INT64 -> 8;
          case FIXED_LEN_BYTE_ARRAY -> column.getPrimitiveType().getTypeLength();
          default -> -1;
        };
    this.maxDefinition = column.getMaxDefinitionLevel();
    this.outStatistics = Statistics.createStats(output.getPrimitiveType());
    this.numberBounds = SignedBounds.forType(output.getPrimitiveType());
    this.byteBounds = UnsignedBytesBounds.forType(output.getPrimitiveType());
    if (pages.readDictionaryPage() != null) {
      throw new IllegalArgumentException("a dictionary-encoded chunk: " + column);
    }
  }

  /** Whether a chunk of this column, all of whose pages are PLAIN, can be filtered here. */
  static boolean supports(ColumnDescriptor column) {
    PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
    return column.getMaxRepetitionLevel() == 0
        && column.getMaxDefinitionLevel() <= 1
        && (type == PrimitiveTypeName.INT32
            || type == PrimitiveTypeName.INT64
            || type == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY
            || type == PrimitiveTypeName.BINARY);
  }

  /** Into the sink (a column without dictionary) as new pages. */
  @Override
  public int copy(ColumnSink sink, int from, int to, long firstRow, BitSet deleted) {
    sink.cutPages(); // values the column writer holds come first
    int written = 0;
    int row = from;
    try {
      while (row < to) {
        if (pageRemaining == 0) {
          readPage();
        }
        int end = Math.min(to, row + pageRemaining);
        written += copyRows(row, end, Math.toIntExact(firstRow), deleted);
        pageRemaining -= end - row;
        row = end;
        if (outCount >= pageRowLimit || outValueBytes >= pageSize) {
          writePage(sink);
        }
      }
      writePage(sink);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot copy the pages of " + column, e);
    }
    return written;
  }

  /** Rows {@code [from, end)}, all in the open input page; copies kept values in runs. */
  private int copyRows(int from, int end, int firstRow, BitSet deleted) throws IOException {
    int kept = 0;
    int runStart = valueOffset; // the bytes of a run of kept values, copied at once
    for (int row = from; row < end; row++) {
      // no decoder: a required column, or a page whose levels are one run of "defined" (no nulls)
      int definition = definitions == null ? maxDefinition : definitions.readInt();
      boolean isDeleted = deleted.get(firstRow + row);
      if (definition != maxDefinition) {
        if (!isDeleted) {
          addDefinition(definition);
          outStatistics.incrementNumNulls();
          kept++;
        }
        continue;
      }
      int length = width >= 0 ? width : 4 + littleEndian.getInt(valueOffset);
      if ((width < 0 && length < 4) || valueOffset + length > values.length) {
        throw new IllegalStateException(
            String.format(
                "A value of column %s runs past the end of its page (%d bytes at %d of %d)",
                column, length, valueOffset, values.length));
      }
      if (isDeleted) {
        copyRun(runStart, valueOffset);
        runStart = valueOffset + length;
      } else {
        addDefinition(outputMaxDefinition);
        updateStatistics(valueOffset, length);
        kept++;
      }
      valueOffset += length;
    }
    copyRun(runStart, valueOffset);
    return kept;
  }

  /**
   * Bounds in signed number order and unsigned byte order (integers, strings, UUIDs) are kept apart
   * and handed to the page's statistics once; others go to the statistics value by value.
   */
  private void updateStatistics(int offset, int length) {
    if (numberBounds != null) {
      numberBounds.add(
          type == PrimitiveTypeName.INT32
              ? littleEndian.getInt(offset)
              : littleEndian.getLong(offset));
      return;
    }
    if (byteBounds != null) {
      byteBounds.add(values, width >= 0 ? offset : offset + 4, offset + length);
      return;
    }
    switch (type) {
      case INT32 -> outStatistics.updateStats(littleEndian.getInt(offset));
      case INT64 -> outStatistics.updateStats(littleEndian.getLong(offset));
      case FIXED_LEN_BYTE_ARRAY ->
          outStatistics.updateStats(Binary.fromReusedByteArray(values, offset, length));
      default ->
          outStatistics.updateStats(Binary.fromReusedByteArray(values, offset + 4, length - 4));
    }
  }

  private void copyRun(int from, int to) {
    int length = to - from;
    if (length == 0) {
      return;
    }
    if (outValueBytes + length > outValues.length) {
      outValues = Arrays.copyOf(outValues, Math.max(outValueBytes + length, outValues.length * 2));
    }
    System.arraycopy(values, from, outValues, outValueBytes, length);
    outValueBytes += length;
  }

  private void addDefinition(int definition) {
    if (outCount == outDefinitions.length) {
      outDefinitions = Arrays.copyOf(outDefinitions, outCount * 2);
    }
    outDefinitions[outCount++] = (byte) definition;
  }

  private void readPage() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new IllegalStateException(
          "Column " + column + " has fewer values than its row group's rows");
    }
    pageRemaining = page.getValueCount();
    DataPageBytes split = DataPageBytes.of(page, column);
    requirePlain(split.encoding());
    byte[] levels = split.levels();
    values = split.values();
    valueOffset = split.valuesOffset();
    littleEndian = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
    int levelWidth = BytesUtils.getWidthFromMaxInt(maxDefinition);
    definitions =
        levels == null
                || LevelEncoding.isSingleRun(levels, pageRemaining, maxDefinition, levelWidth)
            ? null
            : new RunLengthBitPackingHybridDecoder(levelWidth, new ByteArrayInputStream(levels));
  }

  private void requirePlain(Encoding encoding) {
    if (encoding != Encoding.PLAIN) {
      throw new IllegalStateException(
          "Column " + column + " has a " + encoding + " page among PLAIN ones");
    }
  }

  /** Writes the output page, if it holds any row, as a v1 PLAIN page. */
  private void writePage(ColumnSink sink) throws IOException {
    if (outCount == 0) {
      return;
    }
    if (numberBounds != null) {
      numberBounds.addTo(outStatistics);
    }
    if (byteBounds != null) {
      byteBounds.addTo(outStatistics);
    }
    BytesInput levels =
        outputMaxDefinition == 0
            ? BytesInput.empty()
            : LevelEncoding.definitions(outDefinitions, outCount, outputMaxDefinition);
    sink.chunk()
        .writePage(
            BytesInput.concat(levels, BytesInput.from(outValues, 0, outValueBytes)),
            outCount,
            outCount,
            outStatistics,
            null,
            Encoding.BIT_PACKED,
            outputMaxDefinition == 0 ? Encoding.BIT_PACKED : Encoding.RLE,
            Encoding.PLAIN);
    outCount = 0;
    outValueBytes = 0;
    outStatistics = Statistics.createStats(output.getPrimitiveType());
  }
}
