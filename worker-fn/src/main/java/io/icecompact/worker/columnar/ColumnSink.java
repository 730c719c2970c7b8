package io.icecompact.worker.columnar;

import java.io.IOException;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.schema.MessageType;

/**
 * One output column of the open row group: parquet-java's column writer (encoding, dictionary,
 * statistics, page cutting) over a one-column write store, so each column can be written for a run
 * of rows independently of the others; its pages collect in a {@link ChunkBuffer}.
 */
final class ColumnSink {
  private final ColumnDescriptor column;
  private final MessageType oneColumn;
  private final ParquetProperties properties;
  private final ChunkBuffer chunk;
  private ColumnWriteStore store;
  private ColumnWriter writer;
  private HintedDictionaryWriters.Hinted dictionary;
  private Object translatedChunk;
  private DictionaryTranslation translation;

  ColumnSink(ColumnDescriptor column, ParquetProperties properties, WriteSettings settings, PageCompressor compressor) {
    this.column = column;
    this.oneColumn = new MessageType("table", column.getPrimitiveType());
    this.properties = properties;
    this.chunk = new ChunkBuffer(column, compressor, settings.codec);
    open();
  }

  private void open() {
    store = properties.newColumnWriteStore(oneColumn, chunk);
    writer = store.getColumnWriter(column);
    dictionary =
        properties.getValuesWriterFactory() instanceof HintedDictionaryWriters writers
            ? writers.takeLastCreated()
            : null;
    translatedChunk = null; // a new writer has a new dictionary
    translation = null;
  }

  /** The column writer's dictionary writer taking id hints, or null (no dictionary, or another type). */
  HintedDictionaryWriters.Hinted dictionary() {
    return dictionary;
  }

  /**
   * The translation of {@code inputChunk}'s dictionary ids (the chunk identified by its column reader)
   * into this sink's output dictionary: a new one for each input chunk.
   */
  DictionaryTranslation translation(Object inputChunk) {
    if (inputChunk != translatedChunk) {
      translatedChunk = inputChunk;
      translation = new DictionaryTranslation();
    }
    return translation;
  }

  ColumnDescriptor column() {
    return column;
  }

  ColumnWriter writer() {
    return writer;
  }

  /** After each value: the store counts rows to decide when to cut a page. */
  void endRecord() {
    store.endRecord();
  }

  /** Compressed pages plus what the open page holds. */
  long bufferedBytes() {
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
    store.close();
    open();
  }

  void writeTo(ParquetFileWriter fileWriter) throws IOException {
    store.close();
    store = null;
    chunk.writeTo(fileWriter);
  }
}
