package io.icecompact.worker.columnar;

import java.util.Arrays;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.column.values.dictionary.DictionaryValuesWriter;
import org.apache.parquet.column.values.dictionary.IntList;
import org.apache.parquet.column.values.factory.DefaultV1ValuesWriterFactory;
import org.apache.parquet.column.values.factory.ValuesWriterFactory;
import org.apache.parquet.column.values.fallback.FallbackValuesWriter;
import org.apache.parquet.column.values.plain.PlainValuesWriter;
import org.apache.parquet.io.api.Binary;
import shaded.parquet.it.unimi.dsi.fastutil.longs.Long2IntLinkedOpenHashMap;
import shaded.parquet.it.unimi.dsi.fastutil.objects.Object2IntLinkedOpenHashMap;

/**
 * parquet-java's v1 values writers, except that INT64 and BINARY dictionary writers take a hint: the
 * output dictionary id of the value written next.
 *
 * <p>Copying a dictionary-encoded input chunk into a dictionary-encoded output chunk, parquet-java's
 * writer hashes every value to find its id in the output dictionary; for a timestamp column with tens
 * of thousands of distinct values that is a cache miss per value and the largest cost of the column,
 * paid even where every other column's pages pass through. The copy instead learns each input
 * dictionary id's output id once per input chunk ({@link Hinted#takeLastId}) and hints it on every
 * later occurrence. These writers are parquet-java's {@code PlainLongDictionaryValuesWriter} and
 * {@code PlainBinaryDictionaryValuesWriter} (same ids, dictionary page, byte accounting and fallback,
 * through the same base class) with one map and an id-ordered value array, so a hinted value is not
 * hashed at all. fastutil is the map parquet-java's own writers use, as shaded into the pinned
 * parquet-column.
 */
final class HintedDictionaryWriters implements ValuesWriterFactory {
  /** A dictionary writer taking hints. */
  interface Hinted {
    /** The next value written is known to have this id in the output dictionary. */
    void hint(int id);

    /**
     * The dictionary id of the value written last, or -1 when none was written through this writer
     * since the last call (it has fallen back to plain encoding).
     */
    int takeLastId();
  }

  private final DefaultV1ValuesWriterFactory defaults = new DefaultV1ValuesWriterFactory();
  private ParquetProperties properties;
  private Hinted lastCreated;

  @Override
  public void initialize(ParquetProperties parquetProperties) {
    this.properties = parquetProperties;
    defaults.initialize(parquetProperties);
  }

  @Override
  public ValuesWriter newValuesWriter(ColumnDescriptor column) {
    lastCreated = null;
    if (!properties.isDictionaryEnabled(column)) {
      return defaults.newValuesWriter(column);
    }
    int maxBytes = properties.getDictionaryPageSizeThreshold();
    ByteBufferAllocator allocator = properties.getAllocator();
    PlainValuesWriter plain =
        new PlainValuesWriter(properties.getInitialSlabSize(), properties.getPageSizeThreshold(), allocator);
    switch (column.getPrimitiveType().getPrimitiveTypeName()) {
      case INT64 -> {
        Longs longs = new Longs(maxBytes, allocator);
        lastCreated = longs;
        return FallbackValuesWriter.of(longs, plain);
      }
      case BINARY -> {
        Binaries binaries = new Binaries(maxBytes, allocator);
        lastCreated = binaries;
        return FallbackValuesWriter.of(binaries, plain);
      }
      default -> {
        return defaults.newValuesWriter(column);
      }
    }
  }

  /**
   * The hinted dictionary writer made by the last {@link #newValuesWriter} call, or null: a column
   * write store calls it once, while it is built, on the thread that builds it.
   */
  Hinted takeLastCreated() {
    Hinted created = lastCreated;
    lastCreated = null;
    return created;
  }

  /** INT64 values, as parquet-java's {@code PlainLongDictionaryValuesWriter}. */
  static final class Longs extends DictionaryValuesWriter implements Hinted {
    private final Long2IntLinkedOpenHashMap ids = new Long2IntLinkedOpenHashMap();
    private long[] values = new long[64];
    private int hint = -1;
    private int lastId = -1;

    Longs(int maxDictionaryBytes, ByteBufferAllocator allocator) {
      super(maxDictionaryBytes, Encoding.PLAIN_DICTIONARY, Encoding.PLAIN_DICTIONARY, allocator);
      ids.defaultReturnValue(-1);
    }

    @Override
    public void hint(int id) {
      hint = id;
    }

    @Override
    public int takeLastId() {
      int id = lastId;
      lastId = -1;
      return id;
    }

    @Override
    public void writeLong(long value) {
      int id = hint >= 0 ? hint : ids.get(value);
      hint = -1;
      if (id == -1) {
        id = ids.size();
        ids.put(value, id);
        if (id == values.length) {
          values = Arrays.copyOf(values, id * 2);
        }
        values[id] = value;
        dictionaryByteSize += 8;
      }
      encodedValues.add(id);
      lastId = id;
    }

    @Override
    public DictionaryPage toDictPageAndClose() {
      if (lastUsedDictionarySize == 0) {
        return null; // a dictionary only if a page used it
      }
      PlainValuesWriter dictionary = new PlainValuesWriter(lastUsedDictionaryByteSize, maxDictionaryByteSize, allocator);
      for (int id = 0; id < lastUsedDictionarySize; id++) {
        dictionary.writeLong(values[id]);
      }
      return dictPage(dictionary);
    }

    @Override
    public int getDictionarySize() {
      return ids.size();
    }

    @Override
    protected void clearDictionaryContent() {
      ids.clear();
      hint = -1;
      lastId = -1;
    }

    @Override
    public void fallBackDictionaryEncodedData(ValuesWriter writer) {
      IntList.IntIterator encoded = encodedValues.iterator();
      while (encoded.hasNext()) {
        writer.writeLong(values[encoded.next()]);
      }
    }
  }

  /** BINARY values, as parquet-java's {@code PlainBinaryDictionaryValuesWriter}. */
  static final class Binaries extends DictionaryValuesWriter implements Hinted {
    private final Object2IntLinkedOpenHashMap<Binary> ids = new Object2IntLinkedOpenHashMap<>();
    private Binary[] values = new Binary[64];
    private int hint = -1;
    private int lastId = -1;

    Binaries(int maxDictionaryBytes, ByteBufferAllocator allocator) {
      super(maxDictionaryBytes, Encoding.PLAIN_DICTIONARY, Encoding.PLAIN_DICTIONARY, allocator);
      ids.defaultReturnValue(-1);
    }

    @Override
    public void hint(int id) {
      hint = id;
    }

    @Override
    public int takeLastId() {
      int id = lastId;
      lastId = -1;
      return id;
    }

    @Override
    public void writeBytes(Binary value) {
      int id = hint >= 0 ? hint : ids.getInt(value);
      hint = -1;
      if (id == -1) {
        id = ids.size();
        Binary kept = value.copy();
        ids.put(kept, id);
        if (id == values.length) {
          values = Arrays.copyOf(values, id * 2);
        }
        values[id] = kept;
        dictionaryByteSize += 4L + value.length(); // length as int, then the bytes
      }
      encodedValues.add(id);
      lastId = id;
    }

    @Override
    public DictionaryPage toDictPageAndClose() {
      if (lastUsedDictionarySize == 0) {
        return null;
      }
      PlainValuesWriter dictionary = new PlainValuesWriter(lastUsedDictionaryByteSize, maxDictionaryByteSize, allocator);
      for (int id = 0; id < lastUsedDictionarySize; id++) {
        dictionary.writeBytes(values[id]);
      }
      return dictPage(dictionary);
    }

    @Override
    public int getDictionarySize() {
      return ids.size();
    }

    @Override
    protected void clearDictionaryContent() {
      ids.clear();
      Arrays.fill(values, null);
      hint = -1;
      lastId = -1;
    }

    @Override
    public void fallBackDictionaryEncodedData(ValuesWriter writer) {
      IntList.IntIterator encoded = encodedValues.iterator();
      while (encoded.hasNext()) {
        writer.writeBytes(values[encoded.next()]);
      }
    }
  }
}
