package io.icecompact.care;

import static org.assertj.core.api.Assertions.assertThat;

import io.icecompact.core.policy.CareStep;
import io.icecompact.core.table.TableAccess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The order steps run in, and how a failing step and a refusal before a step (a lost lease) are
 * reported. The table is an empty one in an in-memory catalog, whose FileIO cannot list: orphan
 * removal refuses there, which is the failing step here.
 */
class TableCareTest {
  private TableAccess access;

  @BeforeEach
  void emptyTable() {
    access = new TableAccess(Map.of("catalog-impl", InMemoryCatalog.class.getName()));
    ((SupportsNamespaces) access.catalog()).createNamespace(Namespace.of("db"));
    access
        .catalog()
        .createTable(
            TableIdentifier.of("db", "t"),
            new Schema(Types.NestedField.optional(1, "id", Types.LongType.get())),
            PartitionSpec.unpartitioned(),
            Map.of("format-version", "2"));
  }

  @Test
  void stepsRunInTheFixedOrderAndAFailingStepDoesNotStopTheNext() {
    List<String> progress = new ArrayList<>();

    List<TableCare.Outcome> outcomes =
        new TableCare(access, "db.t", null, () -> {})
            .run(
                List.of(
                    CareStep.REMOVE_ORPHANS,
                    CareStep.EXPIRE_SNAPSHOTS,
                    CareStep.DELETE_CLEANUP,
                    CareStep.REWRITE_MANIFESTS),
                progress::add);

    assertThat(outcomes)
        .extracting(TableCare.Outcome::step)
        .containsExactly(
            "delete-cleanup", "rewrite-manifests", "expire-snapshots", "remove-orphans");
    assertThat(outcomes.subList(0, 3))
        .allSatisfy(
            o -> {
              assertThat(o.status()).as(o.step()).isEqualTo(TableCare.Status.DONE);
              assertThat(o.report()).isNotNull();
              assertThat(o.error()).isNull();
            });
    assertThat(outcomes.get(1).summary())
        .isEqualTo("data manifests 0 -> 0: the table has no snapshot");
    TableCare.Outcome orphans = outcomes.get(3);
    assertThat(orphans.status())
        .as("refused before deleting anything, counted as not done")
        .isEqualTo(TableCare.Status.REFUSED);
    assertThat(orphans.failed()).isTrue();
    assertThat(orphans.error()).startsWith("CareRefusedException: ").contains("cannot list files");
    assertThat(orphans.summary())
        .startsWith("refused: Refusing orphan removal: the table's FileIO")
        .endsWith("cannot list files (it does not implement SupportsPrefixOperations)");
    assertThat(progress)
        .hasSize(4)
        .last()
        .asString()
        .startsWith("db.t: remove-orphans refused: Refusing orphan removal");
  }

  @Test
  void whenTheCheckBeforeAStepThrowsThatStepAndTheRestAreNotRun() {
    AtomicInteger checks = new AtomicInteger();
    Runnable leaseCheck =
        () -> {
          if (checks.incrementAndGet() == 2) {
            throw new IllegalStateException("lease on db.t lost: held by another execution");
          }
        };

    List<TableCare.Outcome> outcomes =
        new TableCare(access, "db.t", null, leaseCheck)
            .run(
                List.of(
                    CareStep.EXPIRE_SNAPSHOTS, CareStep.REWRITE_MANIFESTS, CareStep.DELETE_CLEANUP),
                line -> {});

    assertThat(checks).hasValue(2);
    assertThat(outcomes)
        .extracting(TableCare.Outcome::status)
        .containsExactly(TableCare.Status.DONE, TableCare.Status.NOT_RUN, TableCare.Status.NOT_RUN);
    assertThat(outcomes.subList(1, 3))
        .allSatisfy(
            o -> {
              assertThat(o.report()).isNull();
              assertThat(o.summary())
                  .isEqualTo(
                      "not run: IllegalStateException: lease on db.t lost: held by another execution");
              assertThat(o.failed()).isTrue();
            });
  }
}
