package io.icecompact.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type.Repetition;

/**
 * Writes order files laid out as Spark 3.5 with Iceberg 1.10 lays them out (measured in
 * /work/shared/notes/other-writers.md): parquet-java's writer, {@code required int64 order_id}
 * under an optional Iceberg field (Spark keeps the DataFrame's non-null), every other column
 * optional, field ids, {@code iceberg.schema} in the footer, v1 data pages, numbers and
 * high-cardinality strings PLAIN, the low-cardinality {@code region} dictionary-encoded, column and
 * offset indexes, timestamps as {@code INT64 TIMESTAMP(MICROS,true)} and {@code decimal(10,2)} as
 * {@code INT64}, one row group. The one difference: {@code created_by} names the parquet-java on
 * this classpath, not 1.16.0.
 */
final class SparkLayoutWriter {
  /** The table's schema as Spark creates it from SQL: every field optional. */
  static final Schema SCHEMA =
      new Schema(
          Types.NestedField.optional(1, "order_id", Types.LongType.get()),
          Types.NestedField.optional(2, "customer_id", Types.LongType.get()),
          Types.NestedField.optional(3, "region", Types.StringType.get()),
          Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(5, "ordered_at", Types.TimestampType.withZone()),
          Types.NestedField.optional(6, "note", Types.StringType.get()));

  /** The file's schema: order_id written {@code required}, as Spark writes a non-null column. */
  static final MessageType FILE_SCHEMA =
      org.apache.parquet.schema.Types.buildMessage()
          .primitive(PrimitiveTypeName.INT64, Repetition.REQUIRED)
          .id(1)
          .named("order_id")
          .primitive(PrimitiveTypeName.INT64, Repetition.OPTIONAL)
          .id(2)
          .named("customer_id")
          .primitive(PrimitiveTypeName.BINARY, Repetition.OPTIONAL)
          .as(LogicalTypeAnnotation.stringType())
          .id(3)
          .named("region")
          .primitive(PrimitiveTypeName.INT64, Repetition.OPTIONAL)
          .as(LogicalTypeAnnotation.decimalType(2, 10))
          .id(4)
          .named("amount")
          .primitive(PrimitiveTypeName.INT64, Repetition.OPTIONAL)
          .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS))
          .id(5)
          .named("ordered_at")
          .primitive(PrimitiveTypeName.BINARY, Repetition.OPTIONAL)
          .as(LogicalTypeAnnotation.stringType())
          .id(6)
          .named("note")
          .named("table");

  /** One row; the writer reads it field by field, so one instance is reused for a whole file. */
  static final class Order {
    long orderId;
    long customerId;
    String region;
    long amountCents;
    long orderedAtMicros;
    String note;
  }

  private SparkLayoutWriter() {}

  /**
   * Opens a writer for {@code file} with the codec Spark's table uses ({@code zstd} by default).
   */
  static ParquetWriter<Order> open(Path file, CompressionCodecName codec) {
    try {
      Files.createDirectories(file.getParent());
      return new Builder(new LocalOutputFile(file))
          .withConf(new Configuration(false))
          .withCompressionCodec(codec)
          .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
          .withDictionaryEncoding(false)
          .withDictionaryEncoding("region", true)
          .withRowGroupSize(128L * 1024 * 1024)
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<Order, Builder> {
    Builder(OutputFile file) {
      super(file);
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<Order> getWriteSupport(Configuration conf) {
      return new OrderWriteSupport();
    }
  }

  private static final class OrderWriteSupport extends WriteSupport<Order> {
    private RecordConsumer consumer;

    @Override
    public WriteContext init(Configuration configuration) {
      Map<String, String> footer = new HashMap<>();
      footer.put("iceberg.schema", SchemaParser.toJson(SCHEMA));
      return new WriteContext(FILE_SCHEMA, footer);
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      this.consumer = recordConsumer;
    }

    @Override
    public void write(Order row) {
      consumer.startMessage();
      longField("order_id", 0, row.orderId);
      longField("customer_id", 1, row.customerId);
      stringField("region", 2, row.region);
      longField("amount", 3, row.amountCents);
      longField("ordered_at", 4, row.orderedAtMicros);
      stringField("note", 5, row.note);
      consumer.endMessage();
    }

    private void longField(String name, int index, long value) {
      consumer.startField(name, index);
      consumer.addLong(value);
      consumer.endField(name, index);
    }

    private void stringField(String name, int index, String value) {
      if (value == null) {
        return;
      }
      consumer.startField(name, index);
      consumer.addBinary(Binary.fromString(value));
      consumer.endField(name, index);
    }
  }
}
