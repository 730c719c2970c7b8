package io.icecompact.worker.columnar;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * A flat INT32 or INT64 column chunk decoded page by page, from the pages' bytes, into an array of
 * longs and one of nulls: the key column of an equality delete's data file, read to find the rows
 * it deletes.
 *
 * <p>Written by hand because parquet-java's {@code ColumnReader} costs a definition-level call, a
 * value call and a {@code consume} (each several virtual calls deep) per value, which profiled at a
 * third of a conversion's CPU for 12 million keys; its page-level {@code ValuesReader}s still read
 * value by value. Here a PLAIN page is read as little-endian numbers straight from its bytes and a
 * dictionary page as ids into the chunk's dictionary, decoded once. Only chunks whose pages are all
 * PLAIN or dictionary-encoded, with RLE definition levels, come here ({@link #supports}); others
 * stay on the column reader.
 */
final class IntegerPages {
  private static final Set<Encoding> SUPPORTED =
      Set.of(
          Encoding.PLAIN,
          Encoding.PLAIN_DICTIONARY,
          Encoding.RLE_DICTIONARY,
          Encoding.RLE,
          // parquet-java lists it for v1 pages' absent repetition levels (definition levels it
          // writes RLE; a page whose are not is refused in next())
          Encoding.BIT_PACKED);

  private final PageReader pages;
  private final ColumnDescriptor column;
  private final boolean int64;
  private final int maxDefinition;
  private final long[] dictionary; // null: the chunk has no dictionary page

  private long[] values = new long[0];
  private boolean[] nulls = new boolean[0];
  private boolean anyNull;

  /** Whether {@code chunk} of {@code column} can be decoded here, by its metadata. */
  static boolean supports(ColumnDescriptor column, ColumnChunkMetaData chunk) {
    PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
    return chunk != null
        && (type == PrimitiveTypeName.INT32 || type == PrimitiveTypeName.INT64)
        && column.getMaxRepetitionLevel() == 0
        && column.getMaxDefinitionLevel() <= 1
        && SUPPORTED.containsAll(chunk.getEncodings());
  }

  IntegerPages(PageReader pages, ColumnDescriptor column) throws IOException {
    this.pages = pages;
    this.column = column;
    this.int64 = column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT64;
    this.maxDefinition = column.getMaxDefinitionLevel();
    DictionaryPage page = pages.readDictionaryPage();
    this.dictionary = page == null ? null : dictionary(page);
  }

  /**
   * Decodes the next data page: returns its values' count, 0 after the last page; {@link #values}
   * and {@link #nulls} hold them until the next call.
   */
  int next() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      return 0;
    }
    int count = page.getValueCount();
    if (values.length < count) {
      values = new long[count];
      nulls = new boolean[count];
    }
    DataPageBytes split = DataPageBytes.of(page, column);
    if (split.levels() != null) {
      readDefinitions(split.levels(), count);
    }
    byte[] data = split.values();
    int offset = split.valuesOffset();
    Encoding encoding = split.encoding();
    if (maxDefinition == 0) {
      anyNull = false;
    }
    if (encoding == Encoding.PLAIN) {
      readPlain(data, offset, count);
    } else {
      requireEncoding(encoding.usesDictionary() && dictionary != null, encoding + " values");
      readIds(data, offset, count);
    }
    return count;
  }

  /** The page's values; a null's slot holds 0. */
  long[] values() {
    return values;
  }

  /** Whether the page's value at {@code index} is null. */
  boolean isNull(int index) {
    return anyNull && nulls[index];
  }

  private void readPlain(byte[] data, int offset, int count) {
    ByteBuffer bytes = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    int width = int64 ? 8 : 4;
    int defined = anyNull ? count - nullCount(count) : count;
    if (offset + (long) defined * width > data.length) {
      throw new IllegalStateException(
          String.format(
              "Column %s: a page of %d values has %d bytes of values",
              column, defined, data.length - offset));
    }
    int at = offset;
    for (int i = 0; i < count; i++) {
      if (anyNull && nulls[i]) {
        values[i] = 0;
      } else {
        values[i] = int64 ? bytes.getLong(at) : bytes.getInt(at);
        at += width;
      }
    }
  }

  private void readIds(byte[] data, int offset, int count) throws IOException {
    int bitWidth = data[offset] & 0xff;
    RunLengthBitPackingHybridDecoder ids =
        new RunLengthBitPackingHybridDecoder(
            bitWidth, new ByteArrayInputStream(data, offset + 1, data.length - offset - 1));
    for (int i = 0; i < count; i++) {
      if (anyNull && nulls[i]) {
        values[i] = 0;
        continue;
      }
      int id = ids.readInt();
      if (id < 0 || id >= dictionary.length) {
        throw new IllegalStateException(
            "Column " + column + ": id " + id + " outside its dictionary of " + dictionary.length);
      }
      values[i] = dictionary[id];
    }
  }

  private void readDefinitions(byte[] levels, int count) throws IOException {
    if (LevelEncoding.isSingleRun(levels, count, maxDefinition, 1)) {
      anyNull = false; // a page without nulls: one run of "defined"
      return;
    }
    anyNull = true;
    RunLengthBitPackingHybridDecoder decoder =
        new RunLengthBitPackingHybridDecoder(1, new ByteArrayInputStream(levels));
    for (int i = 0; i < count; i++) {
      nulls[i] = decoder.readInt() != maxDefinition;
    }
  }

  private int nullCount(int count) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (nulls[i]) {
        n++;
      }
    }
    return n;
  }

  private long[] dictionary(DictionaryPage page) throws IOException {
    requireEncoding(
        page.getEncoding() == Encoding.PLAIN || page.getEncoding() == Encoding.PLAIN_DICTIONARY,
        page.getEncoding() + " dictionary");
    byte[] data = page.getBytes().toByteArray();
    ByteBuffer bytes = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    int width = int64 ? 8 : 4;
    int size = page.getDictionarySize();
    if ((long) size * width > data.length) {
      throw new IllegalStateException(
          "Column "
              + column
              + ": a dictionary of "
              + size
              + " values has "
              + data.length
              + " bytes");
    }
    long[] entries = new long[size];
    for (int i = 0; i < size; i++) {
      entries[i] = int64 ? bytes.getLong(i * width) : bytes.getInt(i * width);
    }
    return entries;
  }

  private void requireEncoding(boolean supported, String what) {
    if (!supported) {
      // the chunk's metadata listed only supported encodings (see supports): the file contradicts
      // it
      throw new IllegalStateException("Column " + column + " has " + what + " its metadata omits");
    }
  }
}
