import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Locale;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Size budget of a function's deployable jar, run by each function module in the {@code verify} phase
 * (as a single-file source program: {@code java JarBudget.java JAR MAX_ZIPPED_MB MAX_UNZIPPED_MB}).
 * Fails when the jar's file size or the sum of its entries' uncompressed sizes (what Lambda counts
 * against its 250 MB unzipped limit) exceeds the budget. MB = 1,000,000 bytes, as Lambda's quotas.
 */
public class JarBudget {
  public static void main(String[] args) throws IOException {
    if (args.length != 3) {
      System.err.println("usage: JarBudget JAR MAX_ZIPPED_MB MAX_UNZIPPED_MB");
      System.exit(2);
    }
    Path jar = Path.of(args[0]);
    double maxZipped = Double.parseDouble(args[1]);
    double maxUnzipped = Double.parseDouble(args[2]);
    if (!Files.isRegularFile(jar)) {
      System.err.println("[JarBudget] missing " + jar + " (run mvn package)");
      System.exit(1);
    }
    long zipped = Files.size(jar);
    long unzipped = 0;
    int entries = 0;
    try (ZipFile zip = new ZipFile(jar.toFile())) {
      for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
        ZipEntry entry = e.nextElement();
        long size = entry.getSize();
        if (size < 0) {
          throw new IOException("Entry without a size: " + entry.getName());
        }
        unzipped += size;
        entries++;
      }
    }
    String line = String.format(Locale.ROOT,
        "[JarBudget] %s: %.1f MB zipped (budget %.0f), %.1f MB unzipped (budget %.0f), %d entries",
        jar.getFileName(), zipped / 1e6, maxZipped, unzipped / 1e6, maxUnzipped, entries);
    System.out.println(line);
    if (zipped / 1e6 > maxZipped || unzipped / 1e6 > maxUnzipped) {
      System.err.println("[JarBudget] OVER BUDGET: " + line
          + ". Trim dependencies (docs/deploy.md, Artifacts) or raise the budget with a reason.");
      System.exit(1);
    }
  }
}
