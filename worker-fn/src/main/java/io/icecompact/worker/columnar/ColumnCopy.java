package io.icecompact.worker.columnar;

import java.util.BitSet;
import java.util.List;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;

/**
 * How one output column receives one input row group's values (chosen by {@link RowGroupCopies}),
 * from the cheapest copy to the dearest: the chunk's compressed pages as they are, its plain pages
 * filtered of deleted rows, its dictionary ids, or its values decoded one by one. Columns the file
 * does not store are written as nulls or, for v3 lineage, derived.
 */
sealed interface ColumnCopy {
  /**
   * Whether the output column should be opened without a dictionary: one that may receive copied
   * pages. It counts only when the row group's sink for the column is opened.
   */
  boolean plainSink();

  /**
   * Copies rows {@code [from, to)} of the input row group into {@code sink}, leaving out deleted
   * rows; {@code firstRow} is the row group's first position in its file. Returns the rows written.
   */
  int copy(
      ColumnSink sink,
      FloatingPointMetrics metrics,
      int from,
      int to,
      long firstRow,
      BitSet deleted);

  /**
   * The chunk's compressed pages, read whole and appended to the sink as they are (a row group with
   * no deleted row; see {@link ChunkPassThrough}). The row group is then copied as one slice.
   */
  record PassThrough(List<ChunkPassThrough.CopiedPage> pages, ColumnChunkMetaData chunk)
      implements ColumnCopy {
    @Override
    public boolean plainSink() {
      return true;
    }

    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      ChunkPassThrough.append(pages, chunk, sink);
      return to - from;
    }
  }

  /** Plain pages copied by their bytes, deleted rows cut out ({@link PlainPageFilter}). */
  record PlainPages(PlainPageFilter filter) implements ColumnCopy {
    @Override
    public boolean plainSink() {
      return true;
    }

    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      return filter.copy(sink, from, to, firstRow, deleted);
    }
  }

  /**
   * Dictionary-encoded pages copied by id into the output column's dictionary ({@link
   * DictionaryIdCopier}).
   */
  record DictionaryIds(DictionaryIdCopier copier) implements ColumnCopy {
    @Override
    public boolean plainSink() {
      return false;
    }

    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      return copier.copy(sink, from, to, firstRow, deleted);
    }
  }

  /**
   * Values decoded by parquet-java's column reader and written one by one ({@link ColumnCopier}).
   * {@code plainSink} keeps the choice of a chunk that was eligible for a page copy.
   */
  record Decode(ColumnReader reader, boolean plainSink) implements ColumnCopy {
    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      return ColumnCopier.copy(reader, sink, metrics, from, to, firstRow, deleted);
    }
  }

  /** A column added after the file was written: nulls, as Iceberg's readers read it. */
  record Nulls() implements ColumnCopy {
    @Override
    public boolean plainSink() {
      return false;
    }

    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      return ColumnCopier.copyNulls(sink, metrics, from, to, firstRow, deleted);
    }
  }

  /**
   * A v3 lineage column ({@link LineageCopier}): the stored value where there is one, else derived
   * from the file's first row id (for {@code _row_id}) or its data sequence number. {@code reader}
   * is null when the file does not store the column.
   */
  record Lineage(ColumnReader reader, Long firstRowId, Long dataSequenceNumber, boolean rowId)
      implements ColumnCopy {
    @Override
    public boolean plainSink() {
      return false;
    }

    @Override
    public int copy(
        ColumnSink sink,
        FloatingPointMetrics metrics,
        int from,
        int to,
        long firstRow,
        BitSet deleted) {
      return LineageCopier.copy(
          reader,
          sink,
          firstRowId,
          rowId ? null : dataSequenceNumber,
          rowId,
          from,
          to,
          firstRow,
          deleted);
    }
  }
}
