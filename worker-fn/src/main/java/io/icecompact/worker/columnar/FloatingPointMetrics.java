package io.icecompact.worker.columnar;

import org.apache.iceberg.DoubleFieldMetrics;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.FloatFieldMetrics;
import org.apache.iceberg.types.Type;

/**
 * Value, null and NaN counts and NaN-free bounds of one float or double column of an output file.
 *
 * <p>Parquet statistics carry no NaN count, so Iceberg's writer gathers these itself; and once
 * Iceberg is handed any metrics of a column it ignores the footer for that column entirely, so
 * these must be complete. Non-null values go through Iceberg's own builders to keep its bound
 * semantics (e.g. {@code -0.0 < 0.0}).
 */
final class FloatingPointMetrics {
  private final int fieldId;
  private final Type type;
  private final FloatFieldMetrics.Builder floats;
  private final DoubleFieldMetrics.Builder doubles;
  private long nulls;

  FloatingPointMetrics(int fieldId, Type type) {
    this.fieldId = fieldId;
    this.type = type;
    boolean isFloat = type.typeId() == Type.TypeID.FLOAT;
    this.floats = isFloat ? new FloatFieldMetrics.Builder(fieldId) : null;
    this.doubles = isFloat ? null : new DoubleFieldMetrics.Builder(fieldId);
  }

  void addFloat(float value) {
    floats.addValue(value);
  }

  void addDouble(double value) {
    doubles.addValue(value);
  }

  void addNull() {
    nulls++;
  }

  FieldMetrics<?> build() {
    FieldMetrics<?> values = floats != null ? floats.build() : doubles.build();
    return new FieldMetrics<>(
        fieldId,
        values.valueCount() + nulls,
        nulls,
        values.nanValueCount(),
        values.lowerBound(),
        values.upperBound(),
        type);
  }
}
