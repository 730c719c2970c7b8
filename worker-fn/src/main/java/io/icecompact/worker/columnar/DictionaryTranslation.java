package io.icecompact.worker.columnar;

import java.util.Arrays;

/**
 * For one dictionary-encoded input chunk copied into one output chunk: each input dictionary id's id
 * in the output dictionary once known (-1 before).
 */
final class DictionaryTranslation {
  private int[] outputIds = new int[0];

  /** The output id of {@code inputId}, or -1 when not known yet. */
  int outputId(int inputId) {
    return inputId < outputIds.length ? outputIds[inputId] : -1;
  }

  void setOutputId(int inputId, int outputId) {
    if (inputId >= outputIds.length) {
      int length = Math.max(inputId + 1, outputIds.length * 2);
      int from = outputIds.length;
      outputIds = Arrays.copyOf(outputIds, length);
      Arrays.fill(outputIds, from, length, -1);
    }
    outputIds[inputId] = outputId;
  }
}
