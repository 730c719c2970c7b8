package io.icecompact.worker.sort;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Spark's z-order options: what a string contributes, and where the z-value is cut. */
class ZValuesTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()));

  private static byte[] z(ZValues values, Long id, String name) {
    Record row = GenericRecord.create(SCHEMA);
    row.setField("id", id);
    row.setField("name", name);
    return values.of(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row));
  }

  @Test
  void stringsContributeVarLengthBytesAndTheValueIsCutAtMaxBytes() {
    ZValues spark = new ZValues(SCHEMA, List.of("id", "name"), 8, Integer.MAX_VALUE);
    assertThat(z(spark, 1L, "abcdefgh")).hasSize(16);
    assertThat(z(spark, 1L, "abcdefgh")).isNotEqualTo(z(spark, 1L, "abcdefgz"));

    ZValues fourBytes = new ZValues(SCHEMA, List.of("id", "name"), 4, Integer.MAX_VALUE);
    assertThat(z(fourBytes, 1L, "abcdefgh")).hasSize(12).isEqualTo(z(fourBytes, 1L, "abcdzzzz"));

    ZValues cut = new ZValues(SCHEMA, List.of("id", "name"), 8, 3);
    assertThat(z(cut, 1L, "abc")).hasSize(3);
    // nulls are all zero bytes, below every value (the sign bit of an ordered long is set for 0)
    assertThat(Arrays.compareUnsigned(z(spark, null, null), z(spark, 0L, "a"))).isNegative();
  }
}
