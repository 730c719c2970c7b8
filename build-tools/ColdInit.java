import java.util.Map;

/**
 * Measures the init part of a cold start from a function's deployable jar: JVM start is measured by the
 * caller; this loads and constructs the named handlers (as Lambda's runtime does) and, with --fileio,
 * builds an S3FileIO through TableAccess (no request is sent). It performs no invocation.
 *
 * <pre>java -cp X-lambda.jar build-tools/ColdInit.java [--fileio] HANDLER_CLASS...</pre>
 */
public class ColdInit {
  public static void main(String[] args) throws Exception {
    long start = System.nanoTime();
    for (String arg : args) {
      if (arg.equals("--fileio")) {
        Class<?> access = Class.forName("io.icecompact.core.table.TableAccess");
        Object ta = access.getConstructor(Map.class)
            .newInstance(Map.of("warehouse", "s3://bucket/wh", "client.region", "us-east-1"));
        Object io = access.getMethod("fileIO").invoke(ta);
        System.out.printf("%-60s %6.0f ms%n", io.getClass().getName(), (System.nanoTime() - start) / 1e6);
        continue;
      }
      Class.forName(arg).getConstructor().newInstance();
      System.out.printf("%-60s %6.0f ms%n", arg, (System.nanoTime() - start) / 1e6);
    }
  }
}
