package io.icecompact.worker.columnar;

import org.apache.parquet.column.Dictionary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;

/**
 * The record converter parquet-java's column read store insists on. Values are taken from the
 * column readers directly, so nothing is ever converted. It declares dictionary support only so that
 * readers of dictionary-encoded pages expose each value's dictionary id
 * ({@code getCurrentValueDictionaryID}) besides its decoded value.
 */
final class NoConverter extends GroupConverter {
  private final Converter[] fields;

  private NoConverter(GroupType type) {
    this.fields = new Converter[type.getFieldCount()];
    for (int i = 0; i < fields.length; i++) {
      fields[i] =
          type.getType(i).isPrimitive() ? new DictionaryIds() : new NoConverter(type.getType(i).asGroupType());
    }
  }

  static GroupConverter forSchema(MessageType type) {
    return new NoConverter(type);
  }

  @Override
  public Converter getConverter(int fieldIndex) {
    return fields[fieldIndex];
  }

  private static final class DictionaryIds extends PrimitiveConverter {
    @Override
    public boolean hasDictionarySupport() {
      return true;
    }

    @Override
    public void setDictionary(Dictionary dictionary) {}
  }

  @Override
  public void start() {}

  @Override
  public void end() {}
}
