package io.icecompact.worker.deletes;

import org.apache.iceberg.StructLike;

/**
 * The keys of one scope's equality deletes, each with the newest data sequence number of a delete
 * file holding it. A row of a data file with data sequence number {@code S} is deleted iff its
 * key's newest delete sequence number is greater than {@code S}: the spec's rule, so one index
 * serves every data file of a group whatever delete files apply to it.
 */
public sealed interface KeyDeletes permits LongKeyDeletes, ValueKeyDeletes, StructKeyDeletes {
  /**
   * What {@link #newestSequence} answers for a key no delete holds: below every sequence number.
   */
  long NONE = Long.MIN_VALUE;

  /**
   * The newest delete sequence number of {@code key} (in the key schema's order, Iceberg's internal
   * values).
   */
  long newestSequence(StructLike key);

  /** Distinct keys held. */
  int size();

  /** Records that a delete file of data sequence number {@code sequence} holds {@code key}. */
  void add(StructLike key, long sequence);
}
