package io.icecompact.worker.columnar;

import java.io.IOException;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.schema.MessageType;

/**
 * One output column of the open row group, written independently of the others for a run of rows;
 * its pages collect in a {@link ChunkBuffer}. A dictionary-encoded INT32, INT64 or BINARY column is
 * written by a {@link DictionaryColumnWriter}, which also takes dictionary ids; any other column by
 * parquet-java's column writer (encoding, dictionary, statistics, page cutting) over a one-column
 * write store.
 */
final class ColumnSink {
  private final ColumnDescriptor column;
  private final MessageType oneColumn;
  private final ParquetProperties properties;
  private final ChunkBuffer chunk;
  private ColumnWriteStore store;
  private ColumnWriter writer;
  private DictionaryColumnWriter dictionary;

  /**
   * @param properties the column's encoder settings
   * @param plainProperties the same without dictionary: a dictionary column's fallback
   * @param expectedDictionarySize the column's dictionary size in the previous row group, or 0
   */
  ColumnSink(
      ColumnDescriptor column,
      ParquetProperties properties,
      ParquetProperties plainProperties,
      WriteSettings settings,
      PageCompressor compressor,
      int expectedDictionarySize) {
    this.column = column;
    this.oneColumn = new MessageType("table", column.getPrimitiveType());
    this.properties = properties;
    this.chunk = new ChunkBuffer(column, compressor, settings.codec);
    if (properties.isDictionaryEnabled(column) && DictionaryColumnWriter.supports(column)) {
      dictionary =
          new DictionaryColumnWriter(
              column, properties, plainProperties, chunk, expectedDictionarySize);
      writer = dictionary;
    } else {
      open();
    }
  }

  private void open() {
    store = properties.newColumnWriteStore(oneColumn, chunk);
    writer = store.getColumnWriter(column);
  }

  /** The column's dictionary writer taking ids, or null (no dictionary, or another type). */
  DictionaryColumnWriter dictionary() {
    return dictionary;
  }

  ColumnDescriptor column() {
    return column;
  }

  ColumnWriter writer() {
    return writer;
  }

  /** After each value: the writer counts rows to decide when to cut a page. */
  void endRecord() {
    if (dictionary != null) {
      dictionary.endRecord();
    } else {
      store.endRecord();
    }
  }

  /** Compressed pages plus what the open page (and a dictionary) holds. */
  long bufferedBytes() {
    if (dictionary != null) {
      return dictionary.bufferedBytes();
    }
    return store == null ? chunk.bufferedBytes() : store.getBufferedSize();
  }

  ChunkBuffer chunk() {
    return chunk;
  }

  /**
   * Ends the pages encoded so far, so copied pages can follow them; later values start a new store.
   * Only for columns written without a dictionary: a chunk has one dictionary page.
   */
  void cutPages() {
    if (dictionary != null) {
      throw new IllegalStateException("a dictionary column takes no copied pages: " + column);
    }
    store.close();
    open();
  }

  void writeTo(ParquetFileWriter fileWriter) throws IOException {
    if (dictionary != null) {
      dictionary.close();
    } else {
      store.close();
      store = null;
    }
    chunk.writeTo(fileWriter);
  }
}
