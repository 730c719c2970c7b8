package io.icecompact.infra.cdk;

import static io.icecompact.infra.cdk.CfnMaps.map;
import static io.icecompact.infra.cdk.CfnMaps.props;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import software.amazon.awscdk.services.iam.ManagedPolicy;

/**
 * The catalog decides the catalog permissions of the planner, the committer, CareForTable and the
 * sweep's AssessTables, and nothing else: for each catalog type, their catalog actions are
 * docs/deploy.md's table, the access policy reaches them only, and the workers and lease functions
 * stay as they are.
 */
class CatalogPermissionsTest {
  static final String ACCESS_POLICY = "arn:aws:iam::123456789012:policy/catalog-access";

  static final Map<IcebergCatalog.Type, IcebergCatalog> CATALOGS =
      Map.of(
          IcebergCatalog.Type.GLUE, IcebergCatalog.glue("analytics"),
          IcebergCatalog.Type.DYNAMODB, IcebergCatalog.dynamoDb("iceberg"),
          IcebergCatalog.Type.REST,
              IcebergCatalog.rest(Map.of("uri", "https://catalog.example.com")),
          IcebergCatalog.Type.JDBC,
              IcebergCatalog.jdbc(Map.of("uri", "jdbc:postgresql://db.example.com/iceberg")));

  /**
   * Catalog actions of planner, committer (CareForTable's are the same: it commits too) and
   * AssessTables per catalog type (docs/deploy.md, "Catalogs and permissions").
   */
  static final Map<IcebergCatalog.Type, List<Set<String>>> CATALOG_ACTIONS =
      Map.of(
          IcebergCatalog.Type.GLUE,
              List.of(
                  Set.of("glue:GetDatabase", "glue:GetTable"),
                  Set.of("glue:GetDatabase", "glue:GetTable", "glue:UpdateTable"),
                  Set.of("glue:GetDatabase", "glue:GetTables", "glue:GetTable")),
          IcebergCatalog.Type.DYNAMODB,
              List.of(
                  Set.of("dynamodb:DescribeTable", "dynamodb:GetItem"),
                  Set.of(
                      "dynamodb:DescribeTable",
                      "dynamodb:GetItem",
                      "dynamodb:PutItem",
                      "dynamodb:UpdateItem"),
                  Set.of("dynamodb:DescribeTable", "dynamodb:GetItem", "dynamodb:Query")),
          IcebergCatalog.Type.REST, List.of(Set.of(), Set.of(), Set.of()),
          IcebergCatalog.Type.JDBC, List.of(Set.of(), Set.of(), Set.of()));

  static final Set<CompactionFunction> CATALOG_USERS =
      Set.of(
          CompactionFunction.PLAN_REWRITE,
          CompactionFunction.COMMIT_SNAPSHOT,
          CompactionFunction.CARE_FOR_TABLE,
          CompactionFunction.ASSESS_TABLES);

  static final Map<IcebergCatalog.Type, Map<String, Object>> RESOURCES =
      new EnumMap<>(IcebergCatalog.Type.class);

  @BeforeAll
  static void synthesize() {
    CATALOGS.forEach(
        (type, catalog) ->
            RESOURCES.put(
                type,
                SynthesizedCompaction.of(
                        (stack, props) ->
                            props
                                .catalog(catalog)
                                .catalogAccessPolicy(
                                    ManagedPolicy.fromManagedPolicyArn(
                                        stack, "CatalogAccess", ACCESS_POLICY)))
                    .resolved()
                    .resources()));
  }

  @ParameterizedTest
  @EnumSource(IcebergCatalog.Type.class)
  void plannerCommitterCareAndAssessTablesGetTheCatalogActionsOfTheirCatalogOnly(
      IcebergCatalog.Type type) {
    Map<String, Object> resources = RESOURCES.get(type);
    assertThat(catalogActions(resources, CompactionFunction.PLAN_REWRITE))
        .isEqualTo(CATALOG_ACTIONS.get(type).get(0));
    // The committer's lease check is a DynamoDB GetItem on the lease table, not a catalog action.
    Set<String> committer = catalogActions(resources, CompactionFunction.COMMIT_SNAPSHOT);
    assertThat(committer).isEqualTo(CATALOG_ACTIONS.get(type).get(1));
    // CareForTable commits as the committer, and reads the whole catalog to prove no other table
    // shares the
    // files expiry or orphan removal would delete (issue 24)
    Set<String> care = new TreeSet<>(CATALOG_ACTIONS.get(type).get(1));
    care.addAll(CATALOG_ACTIONS.get(type).get(2));
    if (type == IcebergCatalog.Type.GLUE) {
      care.add("glue:GetDatabases");
    }
    assertThat(catalogActions(resources, CompactionFunction.CARE_FOR_TABLE)).isEqualTo(care);
    assertThat(catalogActions(resources, CompactionFunction.ASSESS_TABLES))
        .isEqualTo(CATALOG_ACTIONS.get(type).get(2));
  }

  @ParameterizedTest
  @EnumSource(IcebergCatalog.Type.class)
  void theAccessPolicyReachesThePlannerTheCommitterCareAndAssessTablesOnly(
      IcebergCatalog.Type type) {
    for (CompactionFunction f : CompactionFunction.values()) {
      List<Object> managed = CfnMaps.list(role(RESOURCES.get(type), f).get("ManagedPolicyArns"));
      assertThat(managed.contains(ACCESS_POLICY)).as(f.name()).isEqualTo(CATALOG_USERS.contains(f));
    }
  }

  @ParameterizedTest
  @EnumSource(IcebergCatalog.Type.class)
  void theOtherFunctionsDoNotDependOnTheCatalog(IcebergCatalog.Type type) {
    for (CompactionFunction f : CompactionFunction.values()) {
      if (!CATALOG_USERS.contains(f)) {
        assertThat(IcebergCompactionTest.statementActionsOf(role(RESOURCES.get(type), f)))
            .as(f.name())
            .isEqualTo(IcebergCompactionTest.GLUE_ACTIONS.get(f));
      }
    }
    // the worker reaches DynamoDB for its execution's lease only (LeaseHeartbeat), never for the
    // catalog
    assertThat(
            CfnMaps.statements(
                    role(RESOURCES.get(type), CompactionFunction.REWRITE_GROUP).get("Policies"))
                .stream()
                .filter(s -> !"LeaseHeartbeat".equals(s.get("Sid")))
                .toList()
                .toString())
        .doesNotContain("glue:", "dynamodb:", "LeaseTable");
  }

  @ParameterizedTest
  @EnumSource(
      value = IcebergCatalog.Type.class,
      names = {"GLUE", "DYNAMODB"})
  void catalogGrantsNameTheDatabaseOrTheCatalogTable(IcebergCatalog.Type type) {
    String prefix =
        type == IcebergCatalog.Type.GLUE
            ? "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:"
            : "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:";
    Set<String> expected =
        type == IcebergCatalog.Type.GLUE
            ? Set.of(
                prefix + "catalog", prefix + "database/analytics", prefix + "table/analytics/*")
            : Set.of(prefix + "table/iceberg");
    for (CompactionFunction f :
        List.of(
            CompactionFunction.PLAN_REWRITE,
            CompactionFunction.COMMIT_SNAPSHOT,
            CompactionFunction.CARE_FOR_TABLE)) {
      Set<String> resources = new TreeSet<>();
      CfnMaps.statements(role(RESOURCES.get(type), f).get("Policies")).stream()
          .filter(s -> s.get("Sid").toString().matches("(Glue|DynamoDb)Catalog.*"))
          .filter(
              s ->
                  !s.get("Sid")
                      .toString()
                      .endsWith("ReadForSharedFiles")) // the whole catalog: below
          .forEach(s -> resources.addAll(CfnMaps.strings(s.get("Resource"))));
      assertThat(resources).as(f.name()).isEqualTo(expected);
    }
    // AssessTables lists tables: Glue's GetTables needs no more resources; DynamoDbCatalog queries
    // its index.
    Set<String> assess = new TreeSet<>();
    CfnMaps.statements(role(RESOURCES.get(type), CompactionFunction.ASSESS_TABLES).get("Policies"))
        .stream()
        .filter(s -> s.get("Sid").toString().matches("(Glue|DynamoDb)Catalog.*"))
        .forEach(s -> assess.addAll(CfnMaps.strings(s.get("Resource"))));
    Set<String> expectedAssess = new TreeSet<>(expected);
    if (type == IcebergCatalog.Type.DYNAMODB) {
      expectedAssess.add(prefix + "table/iceberg/index/namespace-identifier");
    }
    assertThat(assess).isEqualTo(expectedAssess);
    // CareForTable reads every table of the catalog, read only, before it deletes a file
    Set<String> careRead = new TreeSet<>();
    CfnMaps.statements(role(RESOURCES.get(type), CompactionFunction.CARE_FOR_TABLE).get("Policies"))
        .stream()
        .filter(s -> s.get("Sid").toString().endsWith("ReadForSharedFiles"))
        .forEach(s -> careRead.addAll(CfnMaps.strings(s.get("Resource"))));
    assertThat(careRead)
        .isEqualTo(
            type == IcebergCatalog.Type.GLUE
                ? Set.of(prefix + "catalog", prefix + "database/*", prefix + "table/*/*")
                : Set.of(
                    prefix + "table/iceberg", prefix + "table/iceberg/index/namespace-identifier"));
  }

  /**
   * Several databases (the CDK only; the SAM template takes one), or only named tables: the grants
   * say so.
   */
  @org.junit.jupiter.api.Test
  void glueGrantsNameEachDatabaseAndOnlyTheTablesWhenNarrowed() {
    String glue = "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:";
    IcebergCatalog two = IcebergCatalog.glue(List.of("analytics", "sales"));
    assertThat(glueResources(two))
        .isEqualTo(
            Set.of(
                glue + "catalog",
                glue + "database/analytics",
                glue + "database/sales",
                glue + "table/analytics/*",
                glue + "table/sales/*"));
    assertThat(glueResources(two.onlyTables(List.of("analytics.orders", "sales.refunds"))))
        .isEqualTo(
            Set.of(
                glue + "catalog",
                glue + "database/analytics",
                glue + "database/sales",
                glue + "table/analytics/orders",
                glue + "table/sales/refunds"));
  }

  /**
   * The functions' ALLOWED_TABLES follow the grants: the databases' tables, the named tables, or
   * any table.
   */
  @org.junit.jupiter.api.Test
  void allowedTablesFollowTheGlueGrants() {
    IcebergCatalog two = IcebergCatalog.glue(List.of("analytics", "sales"));
    assertThat(two.allowedTables()).isEqualTo("analytics.*,sales.*");
    assertThat(two.onlyTables(List.of("analytics.orders", "sales.refunds")).allowedTables())
        .isEqualTo("analytics.orders,sales.refunds");
    assertThat(IcebergCatalog.glue("*").allowedTables()).isEqualTo("*.*");
    assertThat(IcebergCatalog.dynamoDb("iceberg").allowedTables()).isEmpty();
  }

  private static Set<String> glueResources(IcebergCatalog catalog) {
    Map<String, Object> resources =
        SynthesizedCompaction.of((stack, props) -> props.catalog(catalog)).resolved().resources();
    Set<String> out = new TreeSet<>();
    CfnMaps.statements(role(resources, CompactionFunction.COMMIT_SNAPSHOT).get("Policies")).stream()
        .filter(s -> s.get("Sid").toString().startsWith("Glue"))
        .forEach(s -> out.addAll(CfnMaps.strings(s.get("Resource"))));
    return out;
  }

  private static Set<String> catalogActions(Map<String, Object> resources, CompactionFunction f) {
    Set<String> out = new TreeSet<>();
    CfnMaps.statements(role(resources, f).get("Policies")).stream()
        .filter(s -> !"LeaseCheck".equals(s.get("Sid")))
        .forEach(
            s ->
                CfnMaps.strings(s.get("Action")).stream()
                    .filter(a -> a.startsWith("glue:") || a.startsWith("dynamodb:"))
                    .forEach(out::add));
    return out;
  }

  private static Map<String, Object> role(Map<String, Object> resources, CompactionFunction f) {
    return props(map(resources.get(f.step() + "FunctionRole")));
  }
}
