package io.icecompact.infra.cdk;

/**
 * Memory, timeout and ephemeral storage (/tmp) of one function. Lambda's limits apply: 128–10240 MB
 * memory, 1–900 s timeout, 512–10240 MB ephemeral storage (512 MB is Lambda's default and is left
 * out of the template).
 */
public record FunctionSize(int memoryMb, int timeoutSeconds, int ephemeralStorageMb) {
  public static final int DEFAULT_EPHEMERAL_STORAGE_MB = 512;

  public FunctionSize {
    PropsCheck.range("memoryMb", memoryMb, 128, 10240);
    PropsCheck.range("timeoutSeconds", timeoutSeconds, 1, 900);
    PropsCheck.range("ephemeralStorageMb", ephemeralStorageMb, DEFAULT_EPHEMERAL_STORAGE_MB, 10240);
  }

  /** A size with Lambda's default ephemeral storage. */
  public static FunctionSize of(int memoryMb, int timeoutSeconds) {
    return new FunctionSize(memoryMb, timeoutSeconds, DEFAULT_EPHEMERAL_STORAGE_MB);
  }

  public FunctionSize withMemoryMb(int memory) {
    return new FunctionSize(memory, timeoutSeconds, ephemeralStorageMb);
  }

  public FunctionSize withTimeoutSeconds(int timeout) {
    return new FunctionSize(memoryMb, timeout, ephemeralStorageMb);
  }

  public FunctionSize withEphemeralStorageMb(int storage) {
    return new FunctionSize(memoryMb, timeoutSeconds, storage);
  }
}
