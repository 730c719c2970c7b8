package io.icecompact.infra.cdk;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awscdk.Aws;
import software.amazon.awscdk.services.iam.Effect;
import software.amazon.awscdk.services.iam.PolicyStatement;

/**
 * The IAM statements of each function, the same (Sid, actions, resources, conditions) as
 * infra/template.yaml's {@code Policies}. Written out rather than made with CDK's grant methods,
 * which add actions (e.g. {@code s3:GetObject*}, {@code dynamodb:BatchGetItem}) the functions do
 * not use. The workers get no catalog and no lease-table statement under any catalog.
 */
final class FunctionPermissions {
  /** core's WorkLocation.DEFAULT_FOLDER: where a job without work_location keeps its artefacts. */
  static final String DEFAULT_WORK_FOLDER = "_icecompact";

  private final IcebergCatalog catalog;
  private final String warehouseBucket;
  private final String warehousePrefix;
  private final String workBucket;
  private final String workPrefix;
  private final String leaseTableArn;
  private final List<String> kmsKeyArns;

  FunctionPermissions(
      IcebergCatalog catalog,
      String warehouseBucket,
      String warehousePrefix,
      String workBucket,
      String workPrefix,
      String leaseTableArn,
      List<String> kmsKeyArns) {
    this.catalog = catalog;
    this.warehouseBucket = warehouseBucket;
    this.warehousePrefix = warehousePrefix;
    this.workBucket = workBucket;
    this.workPrefix = workPrefix;
    this.leaseTableArn = leaseTableArn;
    this.kmsKeyArns = List.copyOf(kmsKeyArns);
  }

  /**
   * The warehouse's KMS keys for a function that reads ({@code kms:Decrypt}) or writes ({@code
   * kms:GenerateDataKey}) S3 objects: S3 asks KMS with the caller's own permissions. None without
   * keys.
   */
  private void addKmsKeys(List<PolicyStatement> s, String... actions) {
    if (!kmsKeyArns.isEmpty()) {
      s.add(allow("WarehouseKmsKeys", kmsKeyArns, actions));
    }
  }

  /**
   * Whether the function gets the catalog access policy (the REST/JDBC escape hatch): planner,
   * committer, CareForTable and the sweep's AssessTables.
   */
  static boolean usesCatalog(CompactionFunction function) {
    return function == CompactionFunction.PLAN_REWRITE
        || function == CompactionFunction.COMMIT_SNAPSHOT
        || function == CompactionFunction.CARE_FOR_TABLE
        || function == CompactionFunction.ASSESS_TABLES;
  }

  List<PolicyStatement> statementsOf(CompactionFunction function) {
    List<PolicyStatement> s = new ArrayList<>();
    switch (function) {
      case ACQUIRE_LEASE, RELEASE_LEASE ->
          s.add(
              leaseTable(
                  "LeaseTable",
                  "dynamodb:GetItem",
                  "dynamodb:PutItem",
                  "dynamodb:UpdateItem",
                  "dynamodb:Query"));
      case PLAN_REWRITE -> {
        s.add(warehouseList());
        s.add(warehouseRead());
        s.add(workLocationList());
        // Writes (the plan) go through TableAccessRole with the job's session policy.
        s.add(workLocationRead());
        switch (catalog.type()) {
          case GLUE -> s.add(glue("GlueCatalogRead", "glue:GetDatabase", "glue:GetTable"));
          // DescribeTable: DynamoDbCatalog.initialize checks that its table exists.
          case DYNAMODB ->
              s.add(
                  dynamoDbCatalog(
                      "DynamoDbCatalogRead", "dynamodb:DescribeTable", "dynamodb:GetItem"));
          default -> {}
        }
        addKmsKeys(s, "kms:Decrypt", "kms:GenerateDataKey");
      }
      case REWRITE_GROUP -> {
        // Extends the execution's lease, conditional on its owner and token: it can keep the lease,
        // never take it.
        s.add(leaseTable("LeaseHeartbeat", "dynamodb:GetItem", "dynamodb:UpdateItem"));
        s.add(warehouseList());
        s.add(warehouseRead());
        s.add(workLocationList());
        // Writes (outputs, markers, results) go through TableAccessRole with the table's session
        // policy.
        s.add(workLocationRead());
        addKmsKeys(s, "kms:Decrypt", "kms:GenerateDataKey");
      }
      case RECORD_GROUP_FAILURE -> {
        s.add(workLocationList());
        // WorkLocationList's counterpart for the default work location, and only that: it reads
        // nothing else of
        // the warehouse.
        s.add(
            listBucket(
                "DefaultWorkLocationList",
                warehouseBucket,
                warehousePrefix + "*/" + DEFAULT_WORK_FOLDER + "/"));
        // The failure record is written through TableAccessRole with the job directory's session
        // policy.
        s.add(workLocationRead());
        addKmsKeys(s, "kms:GenerateDataKey");
      }
      case COMMIT_SNAPSHOT -> {
        // The check right before the commit extends the lease: conditional on owner and token,
        // never a take-over.
        s.add(leaseTable("LeaseCheck", "dynamodb:GetItem", "dynamodb:UpdateItem"));
        s.add(warehouseList());
        s.add(warehouseRead());
        s.add(workLocationList());
        // Writes and deletes go through TableAccessRole with the table's session policy.
        s.add(workLocationRead());
        addCatalogCommit(s);
        // CareForTable takes these statements too.
        addKmsKeys(s, "kms:Decrypt", "kms:GenerateDataKey");
      }
      case CARE_FOR_TABLE -> {
        // The committer's statements (it commits: delete cleanup, manifest rewrite), and reading
        // the
        // whole catalog for the shared-files check; its deletes go through TableAccessRole.
        s.addAll(statementsOf(CompactionFunction.COMMIT_SNAPSHOT));
        addCatalogReadForSharedFiles(s);
      }
      case ASSESS_TABLES -> {
        s.add(warehouseList());
        // Metadata files and manifests only: the assessment reads no data file, and writes nothing.
        s.add(allow("MetadataRead", List.of(warehouseObjects("metadata")), "s3:GetObject"));
        switch (catalog.type()) {
          // GlueCatalog.listTables calls GetTables.
          case GLUE ->
              s.add(glue("GlueCatalogList", "glue:GetDatabase", "glue:GetTables", "glue:GetTable"));
          // DynamoDbCatalog.listTables queries its namespace-identifier index.
          case DYNAMODB ->
              s.add(
                  allow(
                      "DynamoDbCatalogList",
                      List.of(
                          dynamoDbCatalogArn(),
                          dynamoDbCatalogArn() + "/index/namespace-identifier"),
                      "dynamodb:DescribeTable",
                      "dynamodb:GetItem",
                      "dynamodb:Query"));
          default -> {}
        }
        addKmsKeys(s, "kms:Decrypt");
      }
      default -> throw new IllegalArgumentException("no permissions defined for " + function);
    }
    return s;
  }

  private PolicyStatement leaseTable(String sid, String... actions) {
    return allow(sid, List.of(leaseTableArn), actions);
  }

  private PolicyStatement warehouseList() {
    return listBucket("WarehouseList", warehouseBucket, warehousePrefix);
  }

  /**
   * TableAccessRole's statements: every S3 write and delete of the stages that assume it, which
   * their own roles no longer hold, with the reads and catalog calls they make under the session.
   * The session policy narrows the writes to one table's folders.
   */
  List<PolicyStatement> tableAccessStatements() {
    List<PolicyStatement> s = new ArrayList<>();
    s.add(warehouseList());
    s.add(warehouseRead());
    // PutObject: the manifests and metadata files of commits. DeleteObject: a failed commit's
    // manifests, the manifests and manifest lists only expired snapshots reached, unreachable
    // metadata files older than 3 days (orphans).
    s.add(
        allow(
            "MetadataWrite",
            List.of(warehouseObjects("metadata")),
            "s3:PutObject",
            "s3:AbortMultipartUpload",
            "s3:DeleteObject"));
    // The output of groups not committed, files only expired snapshots reached, orphans.
    s.add(allow("DataCleanup", List.of(warehouseObjects("data")), "s3:DeleteObject"));
    // The workers' output files (multipart included).
    s.add(
        allow(
            "DataWrite",
            List.of(warehouseObjects("data")),
            "s3:PutObject",
            "s3:AbortMultipartUpload"));
    s.add(workLocationList());
    // Plans, attempt markers, results, failure records, commit intents, care.json.
    s.add(
        allow(
            "WorkLocationReadWrite",
            workLocationObjects(),
            "s3:GetObject",
            "s3:PutObject",
            "s3:AbortMultipartUpload"));
    // Orphan removal deletes finished jobs' work locations older than 3 days.
    s.add(allow("WorkLocationCleanup", workLocationObjects(), "s3:DeleteObject"));
    addCatalogCommit(s);
    addCatalogReadForSharedFiles(s);
    addKmsKeys(s, "kms:Decrypt", "kms:GenerateDataKey");
    return s;
  }

  private void addCatalogCommit(List<PolicyStatement> s) {
    switch (catalog.type()) {
      // GlueTableOperations: GetTable to refresh, UpdateTable (with the version id) to swap the
      // metadata location.
      case GLUE ->
          s.add(glue("GlueCatalogCommit", "glue:GetDatabase", "glue:GetTable", "glue:UpdateTable"));
      // DynamoDbTableOperations commits with a conditional write on the table's item.
      case DYNAMODB ->
          s.add(
              dynamoDbCatalog(
                  "DynamoDbCatalogCommit",
                  "dynamodb:DescribeTable",
                  "dynamodb:GetItem",
                  "dynamodb:PutItem",
                  "dynamodb:UpdateItem"));
      default -> {}
    }
  }

  /**
   * Read only: before expiry or orphan removal deletes a file, the catalog's tables whose folders
   * could overlap are loaded to prove none shares it (docs/fleet.md).
   */
  private void addCatalogReadForSharedFiles(List<PolicyStatement> s) {
    switch (catalog.type()) {
      case GLUE ->
          s.add(
              allow(
                  "GlueCatalogReadForSharedFiles",
                  List.of(glueArn("catalog"), glueArn("database/*"), glueArn("table/*/*")),
                  "glue:GetDatabases",
                  "glue:GetDatabase",
                  "glue:GetTables",
                  "glue:GetTable"));
      case DYNAMODB ->
          s.add(
              allow(
                  "DynamoDbCatalogReadForSharedFiles",
                  List.of(
                      dynamoDbCatalogArn(), dynamoDbCatalogArn() + "/index/namespace-identifier"),
                  "dynamodb:DescribeTable",
                  "dynamodb:GetItem",
                  "dynamodb:Query"));
      default -> {}
    }
  }

  private PolicyStatement warehouseRead() {
    return allow(
        "WarehouseRead",
        List.of(warehouseObjects("metadata"), warehouseObjects("data")),
        "s3:GetObject");
  }

  private PolicyStatement workLocationList() {
    return listBucket("WorkLocationList", workBucket, workPrefix);
  }

  private PolicyStatement workLocationRead() {
    return allow("WorkLocationRead", workLocationObjects(), "s3:GetObject");
  }

  /**
   * The work prefix, and the default work location a job without {@code work_location} uses: {@code
   * <table location>/_icecompact} (core's WorkLocation), within the warehouse prefix as data/ and
   * metadata/ are.
   */
  private List<String> workLocationObjects() {
    return List.of(
        bucketArn(workBucket) + "/" + workPrefix + "*", warehouseObjects(DEFAULT_WORK_FOLDER));
  }

  private PolicyStatement glue(String sid, String... actions) {
    // The catalog, each database, then each database's tables (or only the tables named).
    List<String> resources = new ArrayList<>();
    resources.add(glueArn("catalog"));
    catalog.glueDatabases().forEach(database -> resources.add(glueArn("database/" + database)));
    if (catalog.glueTables().isEmpty()) {
      catalog
          .glueDatabases()
          .forEach(database -> resources.add(glueArn("table/" + database + "/*")));
    } else {
      catalog
          .glueTables()
          .forEach(table -> resources.add(glueArn("table/" + table.replace('.', '/'))));
    }
    return allow(sid, resources, actions);
  }

  private PolicyStatement dynamoDbCatalog(String sid, String... actions) {
    return allow(sid, List.of(dynamoDbCatalogArn()), actions);
  }

  private String dynamoDbCatalogArn() {
    return "arn:"
        + Aws.PARTITION
        + ":dynamodb:"
        + Aws.REGION
        + ":"
        + Aws.ACCOUNT_ID
        + ":table/"
        + catalog.dynamoDbTable();
  }

  /** ListBucket limited to a key prefix, so the function cannot list the rest of the bucket. */
  private static PolicyStatement listBucket(String sid, String bucket, String prefix) {
    return PolicyStatement.Builder.create()
        .sid(sid)
        .effect(Effect.ALLOW)
        .actions(List.of("s3:ListBucket"))
        .resources(List.of(bucketArn(bucket)))
        .conditions(Map.of("StringLike", Map.of("s3:prefix", prefix + "*")))
        .build();
  }

  /**
   * {@code data/}, {@code metadata/} or {@code _icecompact/} objects of every table under the
   * warehouse prefix.
   */
  private String warehouseObjects(String folder) {
    return bucketArn(warehouseBucket) + "/" + warehousePrefix + "*/" + folder + "/*";
  }

  private static String bucketArn(String bucket) {
    return "arn:" + Aws.PARTITION + ":s3:::" + bucket;
  }

  private static String glueArn(String resource) {
    return "arn:" + Aws.PARTITION + ":glue:" + Aws.REGION + ":" + Aws.ACCOUNT_ID + ":" + resource;
  }

  private static PolicyStatement allow(String sid, List<String> resources, String... actions) {
    return PolicyStatement.Builder.create()
        .sid(sid)
        .effect(Effect.ALLOW)
        .actions(List.of(actions))
        .resources(resources)
        .build();
  }
}
