package io.icecompact.infra.cdk;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import software.amazon.awscdk.App;
import software.amazon.awscdk.Stack;
import software.amazon.awscdk.assertions.Template;
import software.amazon.awscdk.services.s3.Bucket;

/**
 * One stack holding one IcebergCompaction (construct id {@code Compaction}), synthesized once: the
 * tests of a class share it, since the first synthesis in a JVM costs ~20 s of jsii start-up and
 * the next ones well under a second.
 */
final class SynthesizedCompaction {
  static final String WAREHOUSE_BUCKET = "my-warehouse";
  static final String GLUE_DATABASE = "analytics";

  /** CDK logical ids: the construct's id, the construct path, then an 8-digit hash. */
  private static final Pattern CDK_LOGICAL_ID = Pattern.compile("^Compaction(.+?)[0-9A-F]{8}$");

  final IcebergCompaction compaction;
  final Template template;
  final Map<String, Object> json;
  final Path outdir;

  private SynthesizedCompaction(IcebergCompaction compaction, Template template, Path outdir) {
    this.compaction = compaction;
    this.template = template;
    this.json = CfnMaps.map(template.toJSON());
    this.outdir = outdir;
  }

  /**
   * @param customize sets props on a builder that already has the warehouse bucket {@value
   *     #WAREHOUSE_BUCKET}, a Glue catalog of database {@value #GLUE_DATABASE} and stand-in jars;
   *     it gets the stack to create imported resources in
   */
  static SynthesizedCompaction of(BiConsumer<Stack, IcebergCompactionProps.Builder> customize) {
    Path outdir = ScratchDirs.create("cdk-out");
    App app = App.Builder.create().outdir(outdir.toString()).build();
    Stack stack = new Stack(app, "Icecompact");
    IcebergCompactionProps.Builder props =
        IcebergCompactionProps.builder()
            .warehouseBucket(Bucket.fromBucketName(stack, "WarehouseBucket", WAREHOUSE_BUCKET))
            .catalog(IcebergCatalog.glue(GLUE_DATABASE))
            .functionCode(FunctionCode.fromBuiltJars(StandInJars.create()));
    customize.accept(stack, props);
    IcebergCompaction compaction = new IcebergCompaction(stack, "Compaction", props.build());
    return new SynthesizedCompaction(compaction, Template.fromStack(stack), outdir);
  }

  /**
   * The template resolved, with the CDK's logical ids turned into the construct ids (= the SAM
   * template's ids).
   */
  ResolvedTemplate resolved(Map<String, Object> parameterValues) {
    return new ResolvedTemplate(json, parameterValues, SynthesizedCompaction::constructId);
  }

  ResolvedTemplate resolved() {
    return resolved(Map.of());
  }

  /** {@code CompactionLeaseTableBA4607A1} → {@code LeaseTable}; other ids stay. */
  static String constructId(String logicalId) {
    var m = CDK_LOGICAL_ID.matcher(logicalId);
    return m.matches() ? m.group(1) : logicalId;
  }

  Map<String, Object> resources() {
    return CfnMaps.map(json.get("Resources"));
  }
}
