package io.icecompact.worker.columnar;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.UUIDUtil;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Reads the current value of a column reader in the representation Iceberg's equality-delete sets
 * hold (its "internal" one: days as int, timestamps as micros, strings as CharSequence, decimals as
 * BigDecimal, binary as ByteBuffer), so a data row's key can be looked up in the loaded set.
 */
final class KeyValueOf {
  private KeyValueOf() {}

  static Object read(ColumnReader reader, Type type) {
    PrimitiveTypeName physical = reader.getDescriptor().getPrimitiveType().getPrimitiveTypeName();
    return switch (type.typeId()) {
      case BOOLEAN -> reader.getBoolean();
      case INTEGER, DATE -> reader.getInteger();
      case LONG, TIME, TIMESTAMP, TIMESTAMP_NANO -> reader.getLong();
      case FLOAT -> reader.getFloat();
      case DOUBLE -> reader.getDouble();
      case STRING -> reader.getBinary().toStringUsingUTF8();
      case UUID -> UUIDUtil.convert(reader.getBinary().getBytes());
      case FIXED, BINARY -> ByteBuffer.wrap(reader.getBinary().getBytes());
      case DECIMAL -> {
        int scale = ((Types.DecimalType) type).scale();
        yield switch (physical) {
          case INT32 -> BigDecimal.valueOf(reader.getInteger(), scale);
          case INT64 -> BigDecimal.valueOf(reader.getLong(), scale);
          default -> new BigDecimal(new BigInteger(reader.getBinary().getBytes()), scale);
        };
      }
      default -> throw new IllegalArgumentException("Unsupported equality key type " + type);
    };
  }
}
