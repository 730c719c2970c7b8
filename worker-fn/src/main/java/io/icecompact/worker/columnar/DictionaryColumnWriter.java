package io.icecompact.worker.columnar;

import io.icecompact.worker.primitive.LongLongMap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridEncoder;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import shaded.parquet.it.unimi.dsi.fastutil.objects.Object2IntLinkedOpenHashMap;

/**
 * A dictionary-encoded output column chunk of INT32, INT64 or BINARY values (v1 data pages) that
 * also takes values by their output dictionary id.
 *
 * <p>Copying a dictionary-encoded input chunk, each input id's output id is learnt once per output
 * chunk ({@link #idsOf}, {@link #idOf}) and every row is written as that id ({@link #writeId}): no
 * value is decoded, hashed or encoded again. parquet-java's column writer only takes values, and
 * those per-value steps were most of the columnar path's time on dictionary columns, even in files
 * whose other columns' pages pass through. Pages are what parquet-java's v1 writer makes for such a
 * chunk: RLE definition levels, then the bit width and RLE/bit-packed ids; one PLAIN dictionary
 * page. Page statistics of signed numbers are kept as two longs ({@link SignedBounds}); in other
 * orders they take each id's value the first time it occurs in the page.
 *
 * <p>Fallback is parquet-java's. When the dictionary would grow past the table's dictionary page
 * size, the open page is written with the dictionary and the rest of the chunk goes to
 * parquet-java's plain column writer over the same chunk. When the first page's ids and dictionary
 * are not smaller than its values written plainly, that page goes there too, and the chunk has no
 * dictionary.
 *
 * <p>Numbers are indexed by {@link LongLongMap}; binaries by fastutil's map as shaded into the
 * pinned parquet-column (which keeps only the linked ones).
 */
final class DictionaryColumnWriter implements ColumnWriter {
  private final ColumnDescriptor column;
  private final PrimitiveTypeName type;
  private final ChunkBuffer chunk;
  private final ParquetProperties plainProperties;
  private final ByteBufferAllocator allocator;
  private final int maxDefinition;
  private final int definitionWidth;
  private final int pageRowLimit;
  private final long pageSize;
  private final long maxDictionaryBytes;

  // the dictionary: ids by value, values by id
  private final LongLongMap numberIds;
  private final Object2IntLinkedOpenHashMap<Binary> binaryIds;
  private long[] numbers;
  // numbers: ids from this one on are not in numberIds yet (see idsOf), and the range of all
  // numbers
  private int indexedIds;
  private long smallest = Long.MAX_VALUE;
  private long largest = Long.MIN_VALUE;
  private Binary[] binaries;
  private int dictionarySize;
  private long dictionaryBytes;
  private int dictionaryPages;

  // the open page: definition levels of every value, ids of the non-null ones
  private byte[] definitions = new byte[1024];
  private int[] ids = new int[1024];
  private int pageValues;
  private int pageIds;
  private long pagePlainBytes;
  private Statistics<?> pageStatistics;
  private int[] idPage; // the page an id last updated statistics in
  private final SignedBounds numberBounds; // instead, for numbers in signed order
  private int page = 1;
  private boolean firstPageDone;

  // after fallback: parquet-java's plain writer over the same chunk
  private ColumnWriteStore fallbackStore;
  private ColumnWriter fallback;

  /**
   * @param expectedSize the dictionary size expected (the column's in the previous row group): the
   *     map is sized for it, sparing rehashes of a growing map
   */
  DictionaryColumnWriter(
      ColumnDescriptor column,
      ParquetProperties properties,
      ParquetProperties plainProperties,
      ChunkBuffer chunk,
      int expectedSize) {
    this.column = column;
    this.type = column.getPrimitiveType().getPrimitiveTypeName();
    if (!supports(column)) {
      throw new IllegalArgumentException("no id dictionary for " + column);
    }
    this.chunk = chunk;
    this.plainProperties = plainProperties;
    this.allocator = properties.getAllocator();
    this.maxDefinition = column.getMaxDefinitionLevel();
    this.definitionWidth = BytesUtils.getWidthFromMaxInt(maxDefinition);
    this.pageRowLimit = properties.getPageRowCountLimit();
    this.pageSize = properties.getPageSizeThreshold();
    this.maxDictionaryBytes = properties.getDictionaryPageSizeThreshold();
    this.pageStatistics = Statistics.createStats(column.getPrimitiveType());
    this.numberBounds = SignedBounds.forType(column.getPrimitiveType());
    int capacity = Math.max(expectedSize, 64);
    if (type == PrimitiveTypeName.BINARY) {
      binaryIds = new Object2IntLinkedOpenHashMap<>(capacity);
      numberIds = null;
      binaries = new Binary[capacity];
      binaryIds.defaultReturnValue(-1);
    } else {
      numberIds = new LongLongMap(capacity);
      binaryIds = null;
      numbers = new long[capacity];
    }
    idPage = new int[capacity];
  }

  /** Values in the dictionary. */
  int dictionarySize() {
    return dictionarySize;
  }

  /** Whether a column of this type can be written here: flat INT32, INT64 or BINARY. */
  static boolean supports(ColumnDescriptor column) {
    PrimitiveTypeName type = column.getPrimitiveType().getPrimitiveTypeName();
    return column.getMaxRepetitionLevel() == 0
        && (type == PrimitiveTypeName.INT32
            || type == PrimitiveTypeName.INT64
            || type == PrimitiveTypeName.BINARY);
  }

  /**
   * The output id of a number (INT32 or INT64 column), added to the dictionary if new; -1 once the
   * dictionary has fallen back (or falls back now), when the caller writes the value instead.
   */
  int idOf(long value) {
    if (fallback != null) {
      return -1; // values are written as themselves now: no lookup in the dictionary (one per row)
    }
    indexAll();
    int id = (int) numberIds.get(value);
    if (id >= 0 || !roomFor(type == PrimitiveTypeName.INT32 ? 4 : 8)) {
      return id;
    }
    id = append(value);
    numberIds.put(value, id);
    indexedIds = dictionarySize;
    return id;
  }

  /**
   * The output ids of the first {@code count} numbers of an input dictionary (distinct, as a
   * dictionary's are), added if new; -1 for those that did not fit before the dictionary fell back.
   *
   * <p>When they all lie outside the range of the numbers already in the dictionary, none of them
   * can be there: they are appended without a lookup, and indexed only if a later call needs it.
   * The timestamps of a streaming table's files usually cover disjoint windows, and looking each of
   * them up in an index of the whole output dictionary cost a cache miss per value.
   */
  int[] idsOf(long[] values, int count) {
    int[] ids = new int[count];
    long low = Long.MAX_VALUE;
    long high = Long.MIN_VALUE;
    for (int i = 0; i < count; i++) {
      low = Math.min(low, values[i]);
      high = Math.max(high, values[i]);
    }
    boolean disjoint = high < smallest || low > largest;
    for (int i = 0; i < count; i++) {
      if (disjoint) {
        ids[i] = roomFor(type == PrimitiveTypeName.INT32 ? 4 : 8) ? append(values[i]) : -1;
      } else {
        ids[i] = idOf(values[i]);
      }
    }
    return ids;
  }

  private int append(long value) {
    int id = dictionarySize++;
    if (id == numbers.length) {
      numbers = Arrays.copyOf(numbers, id * 2);
    }
    numbers[id] = value;
    smallest = Math.min(smallest, value);
    largest = Math.max(largest, value);
    return id;
  }

  /** Indexes the numbers appended without a lookup. */
  private void indexAll() {
    for (; indexedIds < dictionarySize; indexedIds++) {
      long value = numbers[indexedIds];
      if (numberIds.get(value) < 0) {
        numberIds.put(value, indexedIds);
      }
    }
  }

  /**
   * As {@link #idOf(long)} for a binary value, copied if added: the value may be a view into a
   * page.
   */
  int idOf(Binary value) {
    if (fallback != null) {
      return -1; // values are written as themselves now: no hash of each row's bytes (a
      // high-cardinality column)
    }
    int id = binaryIds.getInt(value);
    if (id >= 0 || !roomFor(4L + value.length())) {
      return id;
    }
    id = dictionarySize++;
    ByteBuffer bytes =
        value.toByteBuffer(); // always copied: getBytes() may hand out the value's own array
    byte[] copy = new byte[bytes.remaining()];
    bytes.get(copy);
    Binary kept = Binary.fromConstantByteArray(copy);
    binaryIds.put(kept, id);
    if (id == binaries.length) {
      binaries = Arrays.copyOf(binaries, id * 2);
    }
    binaries[id] = kept;
    return id;
  }

  /** Whether a new value of {@code bytes} fits the dictionary; falls back when it does not. */
  private boolean roomFor(long bytes) {
    if (fallback != null) {
      return false;
    }
    if (dictionaryBytes + bytes > maxDictionaryBytes) {
      fallBack(false);
      return false;
    }
    dictionaryBytes += bytes;
    return true;
  }

  /** Writes the non-null value of output id {@code id}, at definition level {@code definition}. */
  void writeId(int id, int definition) {
    if (fallback != null) {
      writeValue(fallback, id, definition);
      return;
    }
    if (pageIds == ids.length) {
      ids = Arrays.copyOf(ids, pageIds * 2);
    }
    ids[pageIds++] = id;
    if (numberBounds != null) {
      numberBounds.add(numbers[id]);
    } else {
      if (id >= idPage.length) {
        idPage = Arrays.copyOf(idPage, Math.max(id + 1, idPage.length * 2));
      }
      if (idPage[id] != page) {
        idPage[id] = page; // statistics see each value once per page
        updateStatistics(id);
      }
    }
    if (!firstPageDone) {
      pagePlainBytes +=
          type == PrimitiveTypeName.BINARY
              ? 4L + binaries[id].length()
              : type == PrimitiveTypeName.INT32 ? 4 : 8;
    }
    addDefinition(definition);
  }

  private void updateStatistics(int id) {
    switch (type) {
      case INT32 -> pageStatistics.updateStats((int) numbers[id]);
      case INT64 -> pageStatistics.updateStats(numbers[id]);
      default -> pageStatistics.updateStats(binaries[id]);
    }
  }

  @Override
  public void write(int value, int repetitionLevel, int definitionLevel) {
    write((long) value, repetitionLevel, definitionLevel);
  }

  @Override
  public void write(long value, int repetitionLevel, int definitionLevel) {
    int id = fallback == null ? idOf(value) : -1;
    if (id >= 0) {
      writeId(id, definitionLevel);
    } else if (type == PrimitiveTypeName.INT32) {
      fallback.write((int) value, repetitionLevel, definitionLevel);
    } else {
      fallback.write(value, repetitionLevel, definitionLevel);
    }
  }

  @Override
  public void write(Binary value, int repetitionLevel, int definitionLevel) {
    int id = fallback == null ? idOf(value) : -1;
    if (id >= 0) {
      writeId(id, definitionLevel);
    } else {
      fallback.write(value, repetitionLevel, definitionLevel);
    }
  }

  @Override
  public void writeNull(int repetitionLevel, int definitionLevel) {
    if (fallback != null) {
      fallback.writeNull(repetitionLevel, definitionLevel);
      return;
    }
    pageStatistics.incrementNumNulls();
    addDefinition(definitionLevel);
  }

  @Override
  public void write(boolean value, int repetitionLevel, int definitionLevel) {
    throw new UnsupportedOperationException("not a boolean column: " + column);
  }

  @Override
  public void write(float value, int repetitionLevel, int definitionLevel) {
    throw new UnsupportedOperationException("not a float column: " + column);
  }

  @Override
  public void write(double value, int repetitionLevel, int definitionLevel) {
    throw new UnsupportedOperationException("not a double column: " + column);
  }

  private void addDefinition(int definition) {
    if (pageValues == definitions.length) {
      definitions = Arrays.copyOf(definitions, pageValues * 2);
    }
    definitions[pageValues++] = (byte) definition;
  }

  /** After each row: cuts the page at the table's page row limit or page size. */
  void endRecord() {
    if (fallbackStore != null) {
      fallbackStore.endRecord();
    } else if (pageValues >= pageRowLimit || openPageBytes() >= pageSize) {
      writePage();
    }
  }

  /** The open page's encoded size, at most: bit-packed ids and levels. */
  private long openPageBytes() {
    int idWidth = BytesUtils.getWidthFromMaxInt(Math.max(dictionarySize - 1, 0));
    return ((long) pageIds * idWidth + (long) pageValues * definitionWidth) / 8;
  }

  /** Bytes held: the chunk's pages, the open page and the dictionary. */
  long bufferedBytes() {
    long pages =
        fallbackStore != null
            ? fallbackStore.getBufferedSize()
            : chunk.bufferedBytes() + openPageBytes();
    return pages + dictionaryBytes;
  }

  private void writePage() {
    if (pageValues == 0) {
      return;
    }
    if (numberBounds != null) {
      numberBounds.addTo(pageStatistics);
    }
    try {
      BytesInput values;
      Encoding encoding;
      if (dictionarySize == 0) {
        values = BytesInput.empty(); // only nulls, and no dictionary to refer to
        encoding = Encoding.PLAIN;
      } else {
        values = encodedIds();
        encoding = Encoding.PLAIN_DICTIONARY;
      }
      if (!firstPageDone) {
        firstPageDone = true;
        // parquet-java's check after the first page: a dictionary that does not pay falls back
        if (dictionarySize > 0 && values.size() + dictionaryBytes >= pagePlainBytes) {
          fallBack(true);
          return;
        }
      }
      BytesInput levels =
          maxDefinition == 0
              ? BytesInput.empty()
              : LevelEncoding.definitions(definitions, pageValues, maxDefinition);
      chunk.writePage(
          BytesInput.concat(levels, values),
          pageValues,
          pageValues,
          pageStatistics,
          null,
          Encoding.BIT_PACKED,
          maxDefinition == 0 ? Encoding.BIT_PACKED : Encoding.RLE,
          encoding);
      if (encoding == Encoding.PLAIN_DICTIONARY) {
        dictionaryPages++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a page of " + column, e);
    }
    startPage();
  }

  private void startPage() {
    pageValues = 0;
    pageIds = 0;
    pagePlainBytes = 0;
    page++;
    pageStatistics = Statistics.createStats(column.getPrimitiveType());
  }

  /**
   * The ids after a byte holding their bit width, as parquet-java's dictionary writer lays them
   * out.
   */
  private BytesInput encodedIds() throws IOException {
    int width = BytesUtils.getWidthFromMaxInt(dictionarySize - 1);
    try (RunLengthBitPackingHybridEncoder encoder =
        new RunLengthBitPackingHybridEncoder(
            width, 1024, Math.toIntExact(Math.max(pageSize, 1024)), allocator)) {
      for (int i = 0; i < pageIds; i++) {
        encoder.writeInt(ids[i]);
      }
      return BytesInput.concat(
          BytesInput.from(new byte[] {(byte) width}), BytesInput.copy(encoder.toBytes()));
    }
  }

  /**
   * From now on values go to parquet-java's plain writer over the same chunk. The open page is
   * written first with the dictionary, or, after the first page's check, replayed to the plain
   * writer.
   */
  private void fallBack(boolean replayOpenPage) {
    if (!replayOpenPage && pageValues > 0) {
      firstPageDone = true; // the open page keeps the dictionary: its ids fit it
      writePage();
    }
    fallbackStore =
        plainProperties.newColumnWriteStore(
            new MessageType("table", column.getPrimitiveType()), chunk);
    fallback = fallbackStore.getColumnWriter(column);
    if (replayOpenPage) {
      for (int i = 0, next = 0; i < pageValues; i++) {
        if (definitions[i] == maxDefinition) {
          writeValue(fallback, ids[next++], definitions[i]);
        } else {
          fallback.writeNull(0, definitions[i]);
        }
        fallbackStore.endRecord();
      }
      startPage();
    }
  }

  private void writeValue(ColumnWriter writer, int id, int definition) {
    switch (type) {
      case INT32 -> writer.write((int) numbers[id], 0, definition);
      case INT64 -> writer.write(numbers[id], 0, definition);
      default -> writer.write(binaries[id], 0, definition);
    }
  }

  /**
   * Ends the chunk: the open page, the plain writer's pages, and the dictionary if a page uses it.
   */
  @Override
  public void close() {
    if (fallbackStore == null) {
      writePage(); // which may fall back, at the first page's check
    }
    if (fallbackStore != null) {
      fallbackStore.close();
    }
    if (dictionaryPages > 0) {
      PlainValuesWriter plain =
          new PlainValuesWriter(
              Math.toIntExact(Math.max(dictionaryBytes, 64)),
              Math.toIntExact(Math.max(dictionaryBytes, 64)),
              allocator);
      for (int id = 0; id < dictionarySize; id++) {
        switch (type) {
          case INT32 -> plain.writeInteger((int) numbers[id]);
          case INT64 -> plain.writeLong(numbers[id]);
          default -> plain.writeBytes(binaries[id]);
        }
      }
      try {
        chunk.writeDictionaryPage(
            new DictionaryPage(
                BytesInput.copy(plain.getBytes()), dictionarySize, Encoding.PLAIN_DICTIONARY));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write the dictionary of " + column, e);
      } finally {
        plain.close();
      }
    }
  }

  @Override
  public long getBufferedSizeInMemory() {
    return bufferedBytes();
  }
}
