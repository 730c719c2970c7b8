package io.icecompact.infra.cdk;

import java.nio.file.Files;
import java.nio.file.Path;
import software.amazon.awscdk.services.lambda.Code;
import software.amazon.awscdk.services.s3.IBucket;

/**
 * Where the functions' code comes from: one deployable jar per function module (see docs/deploy.md,
 * "Artifacts"). The construct asks once per module and gives both functions of a module the same
 * code.
 */
@FunctionalInterface
public interface FunctionCode {
  /** The code of a function module, e.g. {@code lease-fn}. */
  Code forModule(String module);

  /**
   * The shaded jar's file name, as the build writes it and infra/template.yaml's CodeUris name it.
   */
  static String jarName(String module) {
    return "icecompact-" + module + "-lambda.jar";
  }

  /**
   * The jars built by {@code mvn -B -DskipTests package} in a checkout of this repository: {@code
   * <root>/<module>/target/icecompact-<module>-lambda.jar}, uploaded as CDK file assets.
   */
  static FunctionCode fromBuiltJars(Path repositoryRoot) {
    return module -> {
      Path jar =
          repositoryRoot
              .resolve(module)
              .resolve("target")
              .resolve(jarName(module))
              .toAbsolutePath()
              .normalize();
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException(
            "Lambda jar "
                + jar
                + " does not exist: build the jars first with"
                + " `mvn -B -DskipTests package` at the repository root ("
                + repositoryRoot.toAbsolutePath().normalize()
                + ")");
      }
      return Code.fromAsset(jar.toString());
    };
  }

  /**
   * Jars already uploaded to S3, e.g. by a release pipeline: {@code
   * s3://<bucket>/<keyPrefix>icecompact-<module>-lambda.jar}.
   */
  static FunctionCode fromBucket(IBucket bucket, String keyPrefix) {
    return module -> Code.fromBucket(bucket, keyPrefix + jarName(module));
  }
}
