package io.icecompact.worker.columnar;

import io.icecompact.core.error.CorruptInputFileException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;

/**
 * Chooses the {@link ColumnCopy} of each output column for one input row group and opens what it
 * reads: chunks that qualify (no deleted row, see {@link ChunkPassThrough}) as their compressed pages,
 * plain chunks of a row group with deleted rows by their pages' bytes ({@link PlainPageFilter}),
 * dictionary-encoded chunks by id ({@link DictionaryIdCopier}), the others value by value.
 *
 * <p>The choice opens the output row group's sinks it depends on (a page copy needs a sink without
 * dictionary, an id copy one with), so it is made on the thread that owns the output file.
 */
final class RowGroupCopies {
  private final OutputColumns columns;
  private final WriteSettings settings;

  RowGroupCopies(OutputColumns columns, WriteSettings settings) {
    this.columns = columns;
    this.settings = settings;
  }

  /** The copy of every output column, in output column order. */
  ColumnCopy[] choose(
      ColumnarInput input,
      ParquetFileReader reader,
      SeekableInputStream stream,
      int index,
      boolean noDeletes,
      ColumnarFileWriter out) throws IOException {
    BlockMetaData block = input.footer().getBlocks().get(index);
    int rows = Math.toIntExact(block.getRowCount());
    Map<ColumnPath, ColumnChunkMetaData> chunks = new HashMap<>();
    block.getColumns().forEach(chunk -> chunks.put(chunk.getPath(), chunk));

    ColumnCopy[] copies = new ColumnCopy[columns.size()];
    boolean[] plainWanted = new boolean[columns.size()];
    boolean[] onPages = new boolean[columns.size()];
    List<ColumnDescriptor> toRead = new ArrayList<>();
    for (int c = 0; c < columns.size(); c++) {
      ColumnDescriptor source = input.sources()[c];
      ColumnChunkMetaData chunk = source == null ? null : chunks.get(ColumnPath.get(source.getPath()));
      boolean lineage = isLineage(c);
      // a required input column under an optional output one: its pages need definition levels added
      boolean sameLevels =
          source != null && source.getMaxDefinitionLevel() == columns.columns.get(c).getMaxDefinitionLevel();
      // values stored otherwise (a decimal in fixed bytes for an INT64 one) are converted one by one
      boolean sameValues =
          source != null
              && source.getPrimitiveType().getPrimitiveTypeName()
                  == columns.columns.get(c).getPrimitiveType().getPrimitiveTypeName();
      boolean passThrough =
          chunk != null && !lineage && sameLevels && sameValues && ChunkPassThrough.eligible(chunk, settings.codec);
      boolean plainPages =
          chunk != null && !lineage && sameValues
              && ChunkPassThrough.plainValues(chunk)
              && PlainPageFilter.supports(source);
      plainWanted[c] = passThrough || plainPages;
      boolean plainSink = plainWanted[c] && out.sink(c, true) != null && out.isPlain(c);
      if (noDeletes && passThrough && plainSink) {
        copies[c] = new ColumnCopy.PassThrough(ChunkPassThrough.read(stream, chunk), chunk);
        continue;
      }
      onPages[c] =
          plainSink && plainPages // deleted rows, added levels, v2 pages or another codec
              || !plainWanted[c] && sameValues && idsWanted(c, chunk, out);
      if (source != null) {
        toRead.add(source);
      }
    }
    if (!toRead.isEmpty()) {
      openReaders(input, reader, index, rows, toRead, plainWanted, onPages, copies);
    }
    for (int c = 0; c < copies.length; c++) {
      if (copies[c] == null) {
        copies[c] = withoutSource(input, c, null);
      }
    }
    return copies;
  }

  /** Reads the row group's chunks of {@code toRead} and sets the copies that read them. */
  private void openReaders(
      ColumnarInput input,
      ParquetFileReader reader,
      int index,
      int rows,
      List<ColumnDescriptor> toRead,
      boolean[] plainWanted,
      boolean[] onPages,
      ColumnCopy[] copies) throws IOException {
    MessageType fileType = input.footer().getFileMetaData().getSchema();
    reader.setRequestedSchema(toRead);
    PageReadStore pages = reader.readRowGroup(index);
    ColumnReadStoreImpl store =
        new ColumnReadStoreImpl(
            pages, NoConverter.forSchema(fileType), fileType, input.footer().getFileMetaData().getCreatedBy());
    for (int c = 0; c < copies.length; c++) {
      ColumnDescriptor source = input.sources()[c];
      if (source == null || copies[c] != null) {
        continue;
      }
      long values;
      if (onPages[c]) {
        PageReader pageReader = pages.getPageReader(source);
        values = pageReader.getTotalValueCount();
        copies[c] =
            plainWanted[c]
                ? new ColumnCopy.PlainPages(
                    new PlainPageFilter(
                        pageReader, source, columns.columns.get(c), settings.pageRowLimit, settings.pageSize))
                : new ColumnCopy.DictionaryIds(new DictionaryIdCopier(pageReader, source));
      } else {
        ColumnReader columnReader = store.getColumnReader(source);
        values = columnReader.getTotalValueCount();
        copies[c] =
            isLineage(c) ? withoutSource(input, c, columnReader) : new ColumnCopy.Decode(columnReader, plainWanted[c]);
      }
      if (values != rows) {
        throw new CorruptInputFileException(
            String.format(
                "Column %s of row group %d of %s has %d values for %d rows",
                source, index, input.location(), values, rows));
      }
    }
  }

  /** A lineage column (its stored values from {@code stored}, or null), or nulls for an added column. */
  private ColumnCopy withoutSource(ColumnarInput input, int c, ColumnReader stored) {
    if (!isLineage(c)) {
      return new ColumnCopy.Nulls(); // added after the file was written
    }
    return new ColumnCopy.Lineage(
        stored, input.task().file().firstRowId(), input.task().file().dataSequenceNumber(), columns.isRowId(c));
  }

  private boolean isLineage(int c) {
    return columns.isRowId(c) || columns.isLastUpdatedSequenceNumber(c);
  }

  /**
   * Whether column {@code c}'s chunk is copied by id: every data page dictionary-encoded (by its
   * encoding statistics) into a dictionary column, and not a lineage column (those derive values).
   */
  private boolean idsWanted(int c, ColumnChunkMetaData chunk, ColumnarFileWriter out) {
    return dictionaryPagesOnly(chunk)
        && !isLineage(c)
        && DictionaryIdCopier.supports(out.sink(c, false).column())
        && out.sink(c, false).dictionary() != null;
  }

  /**
   * Whether every data page of the chunk is dictionary-encoded: by its encoding statistics, or, in a
   * file without them (Trino's writer, old parquet-java), by its encodings when no value encoding but
   * the dictionary's is listed (a v1 dictionary page is PLAIN_DICTIONARY; a v2 one is PLAIN, which
   * leaves such a chunk undecided, so decoded).
   */
  private static boolean dictionaryPagesOnly(ColumnChunkMetaData chunk) {
    if (chunk == null) {
      return false;
    }
    EncodingStats stats = chunk.getEncodingStats();
    if (stats != null) {
      return stats.hasDictionaryEncodedPages() && !stats.hasNonDictionaryEncodedPages();
    }
    return chunk.hasDictionaryPage()
        && chunk.getEncodings().stream().anyMatch(Encoding::usesDictionary)
        && chunk.getEncodings().stream()
            .allMatch(e -> e.usesDictionary() || e == Encoding.RLE || e == Encoding.BIT_PACKED);
  }
}
