package io.icecompact.engine.equivalence;

/**
 * The column types a random table may have: every primitive the rewrite paths must carry, and
 * nesting.
 */
enum ColumnKind {
  INT,
  LONG,
  FLOAT,
  DOUBLE,
  DECIMAL,
  STRING,
  BINARY,
  DATE,
  TIMESTAMP,
  BOOLEAN,
  STRUCT,
  LIST,
  MAP
}
