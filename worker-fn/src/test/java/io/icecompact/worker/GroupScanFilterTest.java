package io.icecompact.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class GroupScanFilterTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()),
          Types.NestedField.optional(3, "ts", Types.TimestampType.withZone()),
          Types.NestedField.optional(4, "d", Types.DateType.get()));

  @Test
  void dayOfTimestampSelectsExactlyThatDay() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").identity("region").build();
    Expression filter = GroupScanFilter.of(List.of(task(spec, "ts_day=2026-06-15/region=eu")));

    assertThat(matches(filter, "eu", "2026-06-15T00:00:00Z", "2026-01-01")).isTrue();
    assertThat(matches(filter, "eu", "2026-06-15T23:59:59.999999Z", "2026-01-01")).isTrue();
    assertThat(matches(filter, "eu", "2026-06-16T00:00:00Z", "2026-01-01")).isFalse();
    assertThat(matches(filter, "eu", "2026-06-14T23:59:59Z", "2026-01-01")).isFalse();
    assertThat(matches(filter, "us", "2026-06-15T12:00:00Z", "2026-01-01")).isFalse();
  }

  @Test
  void monthOfDateAndSeveralPartitionsAreOred() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).month("d").build();
    Expression filter =
        GroupScanFilter.of(
            List.of(
                task(spec, "d_month=" + months("2026-02")),
                task(spec, "d_month=" + months("2026-04"))));

    assertThat(matches(filter, "eu", "2026-06-15T00:00:00Z", "2026-02-28")).isTrue();
    assertThat(matches(filter, "eu", "2026-06-15T00:00:00Z", "2026-04-01")).isTrue();
    assertThat(matches(filter, "eu", "2026-06-15T00:00:00Z", "2026-03-01")).isFalse();
    assertThat(matches(filter, "eu", "2026-06-15T00:00:00Z", "2026-05-01")).isFalse();
  }

  @Test
  void bucketSelectsThatBucketsRows() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).bucket("id", 8).build();
    org.apache.iceberg.transforms.Transform<Long, Integer> bucket =
        org.apache.iceberg.transforms.Transforms.bucket(8);
    java.util.function.Function<Long, Integer> bucketOf = bucket.bind(Types.LongType.get());
    Expression filter = GroupScanFilter.of(List.of(task(spec, "id_bucket=" + bucketOf.apply(1L))));

    assertThat(matches(filter, 1L, "any")).isTrue();
    long other =
        java.util.stream.LongStream.range(2, 100)
            .filter(id -> !bucketOf.apply(id).equals(bucketOf.apply(1L)))
            .findFirst()
            .orElseThrow();
    assertThat(matches(filter, other, "any")).isFalse();
  }

  @Test
  void truncateSelectsThatPrefix() {
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).truncate("region", 2).build();
    Expression filter = GroupScanFilter.of(List.of(task(spec, "region_trunc=eu")));

    assertThat(matches(filter, 1L, "eu-west")).isTrue();
    assertThat(matches(filter, 1L, "us-east")).isFalse();
  }

  private static boolean matches(Expression filter, long id, String region) {
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("id", id);
    row.setField("region", region);
    return new Evaluator(SCHEMA.asStruct(), filter, false)
        .eval(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row));
  }

  /** Months since 1970-01, the month transform's value. */
  private static int months(String yearMonth) {
    java.time.YearMonth month = java.time.YearMonth.parse(yearMonth);
    return (month.getYear() - 1970) * 12 + month.getMonthValue() - 1;
  }

  private static boolean matches(Expression filter, String region, String ts, String day) {
    GenericRecord row = GenericRecord.create(SCHEMA);
    row.setField("id", 1L);
    row.setField("region", region);
    row.setField("ts", OffsetDateTime.parse(ts).withOffsetSameInstant(ZoneOffset.UTC));
    row.setField("d", java.time.LocalDate.parse(day));
    return new Evaluator(SCHEMA.asStruct(), filter, false)
        .eval(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row));
  }

  private static FileScanTask task(PartitionSpec spec, String partitionPath) {
    DataFile file =
        DataFiles.builder(spec)
            .withPath("/tmp/" + partitionPath + "/f.parquet")
            .withPartitionPath(partitionPath)
            .withFileSizeInBytes(10)
            .withRecordCount(1)
            .build();
    return new BaseFileScanTask(
        file,
        new org.apache.iceberg.DeleteFile[0],
        SchemaParser.toJson(SCHEMA),
        PartitionSpecParser.toJson(spec),
        ResidualEvaluator.unpartitioned(org.apache.iceberg.expressions.Expressions.alwaysTrue()));
  }
}
