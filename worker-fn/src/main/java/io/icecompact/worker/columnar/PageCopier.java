package io.icecompact.worker.columnar;

import java.util.BitSet;

/**
 * The copy of one input column chunk done on its pages rather than through parquet-java's column
 * reader: {@link PlainPageFilter} and {@link DictionaryIdCopier}. One instance per input chunk,
 * called for consecutive runs of its rows.
 */
interface PageCopier {
  /**
   * Copies rows {@code [from, to)} of the row group into the sink, leaving out deleted rows; {@code
   * firstRow} is the row group's first position in its file. Returns the rows written.
   */
  int copy(ColumnSink sink, int from, int to, long firstRow, BitSet deleted);
}
