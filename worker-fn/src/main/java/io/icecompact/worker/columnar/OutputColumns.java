package io.icecompact.worker.columnar;

import java.util.List;
import java.util.Set;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;

/**
 * The columns of every output file: the table's schema, plus {@code _row_id} and {@code
 * _last_updated_sequence_number} on a v3 table (as the generic path writes them), converted to
 * Parquet the way Iceberg's writer converts them.
 */
final class OutputColumns {
  static final Set<Integer> LINEAGE_IDS =
      Set.of(
          MetadataColumns.ROW_ID.fieldId(), MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId());

  final Schema schema;
  final MessageType type;
  final List<ColumnDescriptor> columns;
  final Types.NestedField[] fields;

  OutputColumns(Schema tableSchema, int formatVersion) {
    this.schema =
        formatVersion >= 3 ? MetadataColumns.schemaWithRowLineage(tableSchema) : tableSchema;
    this.type = ParquetSchemaUtil.convert(schema, "table");
    this.columns = type.getColumns();
    this.fields = new Types.NestedField[columns.size()];
    for (int i = 0; i < fields.length; i++) {
      fields[i] = schema.findField(columns.get(i).getPrimitiveType().getId().intValue());
    }
  }

  /**
   * Field ids a data file may lack: the lineage columns (derived) and optional fields added after
   * it was written without an initial default (they read as nulls).
   */
  Set<Integer> mayBeAbsent() {
    Set<Integer> ids = new java.util.HashSet<>(LINEAGE_IDS);
    for (Types.NestedField field : fields) {
      if (field.isOptional() && field.initialDefault() == null) {
        ids.add(field.fieldId());
      }
    }
    return ids;
  }

  int size() {
    return columns.size();
  }

  int fieldId(int column) {
    return fields[column].fieldId();
  }

  boolean isRowId(int column) {
    return fieldId(column) == MetadataColumns.ROW_ID.fieldId();
  }

  boolean isLastUpdatedSequenceNumber(int column) {
    return fieldId(column) == MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId();
  }
}
