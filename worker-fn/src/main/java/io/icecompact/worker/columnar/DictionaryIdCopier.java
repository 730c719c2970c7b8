package io.icecompact.worker.columnar;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.BitSet;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.rle.RunLengthBitPackingHybridDecoder;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The copy of a dictionary-encoded input column chunk into a {@link DictionaryColumnWriter}, by id:
 * each page's definition levels and dictionary ids are decoded into arrays at once, each input id's
 * output id is learnt once per output chunk, and every row is written as its output id. No value is
 * decoded except once per distinct id.
 *
 * <p>parquet-java's column reader would hand out the same ids one call chain per value (level
 * iterator, page check, id decoder); for the timestamp and category columns of a streaming table
 * that was a third of the columnar path's time, even in files whose other columns pass through.
 */
final class DictionaryIdCopier implements PageCopier {
  private final PageReader pages;
  private final ColumnDescriptor column;
  private final PrimitiveTypeName type;
  private final int maxDefinition;
  private final Dictionary dictionary;

  // the input page being read: its levels, and the ids of its non-null values
  private int[] definitions = new int[1024];
  private int[] ids = new int[1024];
  private int pageValues;
  private int nextValue;
  private int nextId;

  // input id -> output id (-1: not known yet) in the writer they were learnt for
  private int[] outputIds;
  private DictionaryColumnWriter translatedFor;

  DictionaryIdCopier(PageReader pages, ColumnDescriptor column) {
    this.pages = pages;
    this.column = column;
    this.type = column.getPrimitiveType().getPrimitiveTypeName();
    this.maxDefinition = column.getMaxDefinitionLevel();
    DictionaryPage page = pages.readDictionaryPage();
    if (page == null) {
      throw new IllegalStateException(
          "Column " + column + " has dictionary-encoded pages but no dictionary");
    }
    try {
      this.dictionary = page.getEncoding().initDictionary(column, page);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the dictionary of " + column, e);
    }
    this.outputIds = new int[dictionary.getMaxId() + 1];
  }

  /**
   * Whether a chunk of this column, all of whose pages are dictionary-encoded, can be copied here.
   */
  static boolean supports(ColumnDescriptor column) {
    return DictionaryColumnWriter.supports(column) && column.getMaxDefinitionLevel() <= 1;
  }

  /** Into the sink's {@link DictionaryColumnWriter}. */
  @Override
  public int copy(ColumnSink sink, int from, int to, long firstRow, BitSet deleted) {
    DictionaryColumnWriter writer = sink.dictionary();
    if (writer == null) {
      throw new IllegalStateException(
          "Column " + column + " is copied by id into a column without dictionary");
    }
    if (writer != translatedFor) {
      translatedFor = writer; // a new output chunk: a new dictionary
      if (type == PrimitiveTypeName.BINARY) {
        Arrays.fill(outputIds, -1); // learnt as they occur
      } else {
        outputIds = writer.idsOf(numbers(), outputIds.length); // learnt at once
      }
    }
    int fileRow = Math.toIntExact(firstRow);
    // a required input column under an optional output one: its values gain the output's level
    int outputPresent = sink.column().getMaxDefinitionLevel();
    int written = 0;
    try {
      for (int row = from; row < to; row++) {
        if (nextValue == pageValues) {
          readPage();
        }
        int definition = definitions[nextValue++];
        boolean present = definition == maxDefinition;
        int inputId = present ? ids[nextId++] : -1;
        if (deleted.get(fileRow + row)) {
          continue;
        }
        if (present) {
          int outputId = outputIds[inputId];
          if (outputId < 0) {
            outputId = learn(writer, inputId, outputPresent);
          }
          if (outputId >= 0) {
            writer.writeId(outputId, outputPresent);
          }
        } else {
          writer.writeNull(0, definition);
        }
        sink.endRecord();
        written++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the pages of " + column, e);
    }
    return written;
  }

  /** The input dictionary's numbers, by id. */
  private long[] numbers() {
    long[] numbers = new long[outputIds.length];
    for (int id = 0; id < numbers.length; id++) {
      numbers[id] =
          type == PrimitiveTypeName.INT32
              ? dictionary.decodeToInt(id)
              : dictionary.decodeToLong(id);
    }
    return numbers;
  }

  /**
   * The output id of {@code inputId}'s value, added to the writer's dictionary; or, once that is
   * full, -1 after writing the value itself.
   */
  private int learn(DictionaryColumnWriter writer, int inputId, int definition) {
    int outputId =
        switch (type) {
          case INT32 -> writer.idOf(dictionary.decodeToInt(inputId));
          case INT64 -> writer.idOf(dictionary.decodeToLong(inputId));
          default -> writer.idOf(dictionary.decodeToBinary(inputId));
        };
    if (outputId >= 0) {
      outputIds[inputId] = outputId;
      return outputId;
    }
    switch (type) {
      case INT32 -> writer.write(dictionary.decodeToInt(inputId), 0, definition);
      case INT64 -> writer.write(dictionary.decodeToLong(inputId), 0, definition);
      default ->
          writer.write(ColumnCopier.reused(dictionary.decodeToBinary(inputId)), 0, definition);
    }
    return -1;
  }

  private void readPage() throws IOException {
    DataPage page = pages.readPage();
    if (page == null) {
      throw new IllegalStateException(
          "Column " + column + " has fewer values than its row group's rows");
    }
    pageValues = page.getValueCount();
    nextValue = 0;
    nextId = 0;
    if (definitions.length < pageValues) {
      definitions = new int[pageValues];
      ids = new int[pageValues];
    }
    DataPageBytes split = DataPageBytes.of(page, column);
    byte[] levels = split.levels();
    byte[] data = split.values();
    int dataOffset = split.valuesOffset();
    Encoding encoding = split.encoding();
    if (!encoding.usesDictionary()) {
      throw new IllegalStateException(
          "Column " + column + " has a " + encoding + " page among dictionary ones");
    }
    int present = pageValues;
    if (levels == null) {
      Arrays.fill(definitions, 0, pageValues, 0);
    } else {
      RunLengthBitPackingHybridDecoder decoder =
          new RunLengthBitPackingHybridDecoder(
              BytesUtils.getWidthFromMaxInt(maxDefinition), new ByteArrayInputStream(levels));
      present = 0;
      for (int i = 0; i < pageValues; i++) {
        definitions[i] = decoder.readInt();
        present += definitions[i] == maxDefinition ? 1 : 0;
      }
    }
    if (present > 0) {
      int width = data[dataOffset];
      RunLengthBitPackingHybridDecoder decoder =
          new RunLengthBitPackingHybridDecoder(
              width, new ByteArrayInputStream(data, dataOffset + 1, data.length - dataOffset - 1));
      for (int i = 0; i < present; i++) {
        ids[i] = decoder.readInt();
        if (ids[i] >= outputIds.length) {
          throw new IllegalStateException(
              String.format(
                  "Column %s refers to dictionary id %d of a dictionary of %d values",
                  column, ids[i], outputIds.length));
        }
      }
    }
  }
}
