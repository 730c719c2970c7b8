package io.icecompact.worker.columnar;

import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * The record converter parquet-java's column read store insists on. Values are taken from the
 * column readers directly, so nothing is ever converted; without dictionary support, readers decode
 * dictionary ids themselves.
 */
final class NoConverter extends GroupConverter {
  private final Converter[] fields;

  private NoConverter(GroupType type) {
    this.fields = new Converter[type.getFieldCount()];
    for (int i = 0; i < fields.length; i++) {
      fields[i] =
          type.getType(i).isPrimitive()
              ? new PrimitiveConverter() {}
              : new NoConverter(type.getType(i).asGroupType());
    }
  }

  static GroupConverter forSchema(MessageType type) {
    return new NoConverter(type);
  }

  @Override
  public Converter getConverter(int fieldIndex) {
    return fields[fieldIndex];
  }

  @Override
  public void start() {}

  @Override
  public void end() {}
}
