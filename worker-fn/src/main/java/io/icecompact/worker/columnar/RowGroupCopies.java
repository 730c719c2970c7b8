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
 * reads: chunks that qualify (no deleted row, see {@link ChunkPassThrough}) as their compressed
 * pages, plain chunks of a row group with deleted rows by their pages' bytes ({@link
 * PlainPageFilter}), dictionary-encoded chunks by id ({@link DictionaryIdCopier}), the others value
 * by value.
 *
 * <p>The choice opens the output row group's sinks it depends on (a page copy needs a sink without
 * dictionary, an id copy one with), so it is made on the thread that owns the output file.
 */
final class RowGroupCopies {
  private final OutputColumns columns;
  private final WriteSettings settings;

  /**
   * A column whose copy reads the row group's chunk, as decided before the chunks are read (they
   * are read together): by its pages ({@code onPages}: plain pages if {@code plainWanted}, else
   * dictionary ids) or by value.
   */
  private record ChunkRead(ColumnDescriptor source, boolean plainWanted, boolean onPages) {}

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
      ColumnarFileWriter out)
      throws IOException {
    BlockMetaData block = input.footer().getBlocks().get(index);
    int rows = Math.toIntExact(block.getRowCount());
    Map<ColumnPath, ColumnChunkMetaData> chunks = new HashMap<>();
    block.getColumns().forEach(chunk -> chunks.put(chunk.getPath(), chunk));

    ColumnCopy[] copies = new ColumnCopy[columns.size()];
    ChunkRead[] reads = new ChunkRead[columns.size()];
    List<ColumnDescriptor> toRead = new ArrayList<>(); // the sources of reads, read together
    for (int c = 0; c < columns.size(); c++) {
      ColumnDescriptor source = input.sources()[c];
      ColumnChunkMetaData chunk =
          source == null ? null : chunks.get(ColumnPath.get(source.getPath()));
      boolean lineage = isLineage(c);
      // a required input column under an optional output one: its pages need definition levels
      // added
      boolean sameLevels =
          source != null
              && source.getMaxDefinitionLevel() == columns.columns.get(c).getMaxDefinitionLevel();
      // values stored otherwise (a decimal in fixed bytes for an INT64 one) are converted one by
      // one
      boolean sameValues =
          source != null
              && source.getPrimitiveType().getPrimitiveTypeName()
                  == columns.columns.get(c).getPrimitiveType().getPrimitiveTypeName();
      boolean passThrough =
          chunk != null
              && !lineage
              && sameLevels
              && sameValues
              && ChunkPassThrough.eligible(chunk, settings.codec);
      boolean plainPages =
          chunk != null
              && !lineage
              && sameValues
              && ChunkPassThrough.plainValues(chunk)
              && PlainPageFilter.supports(source);
      boolean plainWanted = passThrough || plainPages;
      boolean plainSink = plainWanted && out.sink(c, true) != null && out.isPlain(c);
      if (noDeletes && passThrough && plainSink) {
        copies[c] = new ColumnCopy.PassThrough(ChunkPassThrough.read(stream, chunk), chunk);
        continue;
      }
      boolean onPages =
          plainSink && plainPages // deleted rows, added levels, v2 pages or another codec
              || !plainWanted && sameValues && idsWanted(c, chunk, out);
      if (source != null) {
        reads[c] = new ChunkRead(source, plainWanted, onPages);
        toRead.add(source);
      }
    }
    if (!toRead.isEmpty()) {
      reader.setRequestedSchema(toRead);
      openReaders(input, reader.readRowGroup(index), index, rows, reads, copies);
    }
    for (int c = 0; c < copies.length; c++) {
      if (copies[c] == null) {
        copies[c] = lineageOrNulls(input, c, null);
      }
    }
    return copies;
  }

  /** Sets the copies of {@code reads} over the row group's {@code pages}. */
  private void openReaders(
      ColumnarInput input,
      PageReadStore pages,
      int index,
      int rows,
      ChunkRead[] reads,
      ColumnCopy[] copies) {
    MessageType fileType = input.footer().getFileMetaData().getSchema();
    ColumnReadStoreImpl store =
        new ColumnReadStoreImpl(
            pages,
            NoConverter.forSchema(fileType),
            fileType,
            input.footer().getFileMetaData().getCreatedBy());
    for (int c = 0; c < copies.length; c++) {
      if (reads[c] == null) {
        continue;
      }
      ColumnDescriptor source = reads[c].source();
      long values;
      if (reads[c].onPages()) {
        PageReader pageReader = pages.getPageReader(source);
        values = pageReader.getTotalValueCount();
        copies[c] =
            reads[c].plainWanted()
                ? new ColumnCopy.PlainPages(
                    new PlainPageFilter(
                        pageReader,
                        source,
                        columns.columns.get(c),
                        settings.pageRowLimit,
                        settings.pageSize))
                : new ColumnCopy.DictionaryIds(new DictionaryIdCopier(pageReader, source));
      } else {
        ColumnReader columnReader = store.getColumnReader(source);
        values = columnReader.getTotalValueCount();
        copies[c] =
            isLineage(c)
                ? lineageOrNulls(input, c, columnReader)
                : new ColumnCopy.Decode(columnReader, reads[c].plainWanted());
      }
      if (values != rows) {
        throw new CorruptInputFileException(
            String.format(
                "Column %s of row group %d of %s has %d values for %d rows",
                source, index, input.location(), values, rows));
      }
    }
  }

  /**
   * A lineage column (its stored values from {@code stored}, or null), or nulls for an added
   * column.
   */
  private ColumnCopy lineageOrNulls(ColumnarInput input, int c, ColumnReader stored) {
    if (!isLineage(c)) {
      return new ColumnCopy.Nulls(); // added after the file was written
    }
    return new ColumnCopy.Lineage(
        stored,
        input.task().file().firstRowId(),
        input.task().file().dataSequenceNumber(),
        columns.isRowId(c));
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
   * Whether every data page of the chunk is dictionary-encoded: by its encoding statistics, or, in
   * a file without them (Trino's writer, old parquet-java), by its encodings when no value encoding
   * but the dictionary's is listed (a v1 dictionary page is PLAIN_DICTIONARY; a v2 one is PLAIN,
   * which leaves such a chunk undecided, so decoded).
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
