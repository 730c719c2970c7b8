package io.icecompact.worker.columnar;

import java.io.IOException;
import java.util.Arrays;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;

/**
 * A decompressed data page of a flat column split into its definition levels and its values, as the
 * readers that work on page bytes need it (plain pages filtered, dictionary ids copied, integer
 * keys decoded): a v1 page holds its RLE levels, their length first, before the values; a v2 page
 * keeps them apart.
 *
 * @param levels the RLE/bit-packed definition levels without a length prefix; null for a required
 *     column
 * @param values the bytes the values are in, from {@code valuesOffset}
 * @param encoding the values' encoding
 */
record DataPageBytes(byte[] levels, byte[] values, int valuesOffset, Encoding encoding) {

  /**
   * Splits {@code page} of {@code column}; refuses a v1 page whose definition levels are not RLE
   * (parquet-java writes no other), naming the column.
   */
  static DataPageBytes of(DataPage page, ColumnDescriptor column) throws IOException {
    int maxDefinition = column.getMaxDefinitionLevel();
    if (page instanceof DataPageV1 v1) {
      byte[] bytes = v1.getBytes().toByteArray();
      if (maxDefinition == 0) {
        return new DataPageBytes(null, bytes, 0, v1.getValueEncoding());
      }
      if (v1.getDlEncoding() != Encoding.RLE) {
        throw new IllegalStateException(
            "Column " + column + " has " + v1.getDlEncoding() + " definition levels");
      }
      int length = BytesUtils.readIntLittleEndian(bytes, 0);
      return new DataPageBytes(
          Arrays.copyOfRange(bytes, 4, 4 + length), bytes, 4 + length, v1.getValueEncoding());
    }
    DataPageV2 v2 = (DataPageV2) page;
    return new DataPageBytes(
        maxDefinition > 0 ? v2.getDefinitionLevels().toByteArray() : null,
        v2.getData().toByteArray(),
        0,
        v2.getDataEncoding());
  }
}
