package dev.projections.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Databases in use have run the changelog's change sets and Liquibase refuses to start when one of them changed: the
 * checksums a fresh PostgreSQL or H2 database records are the ones the released change sets had. A change for
 * another database is a new change set (the MariaDB variants), never an edit of these.
 */
class ChangelogChecksumTest {

    private static final Map<String, String> H2 = ordered(
            "001-projection-pending", "9:318db93ca621ea372088b1fadcbab602",
            "002-projection-instance", "9:a1bc8374dae888bb7ea605f6b974d3b1",
            "003-projection-control", "9:463d685cf94bc6fc758d1ae5c1590978",
            "004-projection-rebuild", "9:0ba871c16110076b551e5f776e1f5cf3",
            "005-projection-pending-tenant-priority-idx", "9:56d1b479ba1263d4910babedd2570686",
            "006-projection-audit", "9:dbc6999e43bda37fc09a61180bd0d471",
            "007-projection-pending-tenant-due-idx", "9:bc2ac046c273b0ff3e233d0371d26cc6",
            "009-projection-pending-parking", "9:4007ee633a45d3820aed9d11f47a36a3",
            "010-projection-control-suspension", "9:c1522bb97d7da0090d062a9500f89782",
            "011-projection-pending-entity-idx", "9:04a5c22b6541d4d4ce993ce88aa6cab8",
            "012-projection-rebuild-partitions", "9:b594e8365995328fff1d2361bbae7197",
            "013-projection-trend", "9:fe826a4ccf4b92d4c9f3f080d0b7c967",
            "014-projection-audit-filter-idx", "9:f8c9047fb2d878e8992a7047a050494c",
            "015-projection-pending-rebuild-run", "9:5b3b0d3653d9e44ad5722c58900bc2d5",
            "016-projection-trend-lag", "9:59c82aebc10a5699abbe9d8b7a20e6e6",
            "017-projection-pending-traceparent", "9:0fafe0892d83aa4ea42e2e4720346d88",
            "018-projection-rebuild-finished-idx", "9:1e712f4d863f6d7976b908498e61b97b",
            "019-projection-pending-first-marked-by", "9:e66ecf21ee5870fcfa4173f41ea0c54d",
            "020-projection-node-processing", "9:16181dbfa3c03589f1146dfbd5378bcf",
            "021-projection-rebuild-verification", "9:18b9d5d281c88f144c7585e1e33cfa23",
            "022-projection-drift", "9:58388974ac8b7bbf59e5e7fb9678c9de",
            "022-projection-rebuild-partition-walks", "9:f1ca3546ef451a44e6a1e2ae6934778f");

    private static final Map<String, String> POSTGRESQL = ordered(
            "001-projection-pending", "9:318db93ca621ea372088b1fadcbab602",
            "001-projection-pending-failing-idx", "9:3162a06345a2dbeb36c055d2c5f06a11",
            "002-projection-instance", "9:a1bc8374dae888bb7ea605f6b974d3b1",
            "003-projection-control", "9:463d685cf94bc6fc758d1ae5c1590978",
            "004-projection-rebuild", "9:0ba871c16110076b551e5f776e1f5cf3",
            "005-projection-pending-tenant-priority-idx", "9:56d1b479ba1263d4910babedd2570686",
            "006-projection-audit", "9:dbc6999e43bda37fc09a61180bd0d471",
            "007-projection-pending-tenant-due-idx", "9:bc2ac046c273b0ff3e233d0371d26cc6",
            "008-projection-pending-lean-writes", "9:fc72dcbc66ad01562a996246375c18ac",
            "009-projection-pending-parking", "9:4007ee633a45d3820aed9d11f47a36a3",
            "009-projection-pending-parked-idx", "9:2c008a08c8c4095f4a1fd009fd04e2a7",
            "010-projection-control-suspension", "9:c1522bb97d7da0090d062a9500f89782",
            "011-projection-pending-entity-idx", "9:04a5c22b6541d4d4ce993ce88aa6cab8",
            "012-projection-rebuild-partitions", "9:b594e8365995328fff1d2361bbae7197",
            "013-projection-trend", "9:fe826a4ccf4b92d4c9f3f080d0b7c967",
            "014-projection-audit-filter-idx", "9:f8c9047fb2d878e8992a7047a050494c",
            "015-projection-pending-rebuild-run", "9:5b3b0d3653d9e44ad5722c58900bc2d5",
            "016-projection-trend-lag", "9:59c82aebc10a5699abbe9d8b7a20e6e6",
            "017-projection-pending-traceparent", "9:0fafe0892d83aa4ea42e2e4720346d88",
            "018-projection-rebuild-finished-idx", "9:1e712f4d863f6d7976b908498e61b97b",
            "019-projection-pending-first-marked-by", "9:e66ecf21ee5870fcfa4173f41ea0c54d",
            "020-projection-node-processing", "9:16181dbfa3c03589f1146dfbd5378bcf",
            "021-projection-rebuild-verification", "9:18b9d5d281c88f144c7585e1e33cfa23",
            "022-projection-drift", "9:58388974ac8b7bbf59e5e7fb9678c9de",
            "022-projection-rebuild-partition-walks", "9:f1ca3546ef451a44e6a1e2ae6934778f");

    @Test
    void h2RecordsTheChecksumsOfTheReleasedChangeSets() throws Exception {
        String url = LiquibaseSchema.freshH2("checksums");
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            assertThat(checksums(connection)).containsExactlyEntriesOf(H2);
        }
    }

    @Test
    void postgresqlRecordsTheChecksumsOfTheReleasedChangeSets() throws Exception {
        String url = LiquibaseSchema.freshPostgresSchema("changelog_checksums");
        TestDatabase database = TestDatabase.get();
        try (Connection connection = DriverManager.getConnection(url, database.user(), database.password())) {
            assertThat(checksums(connection)).containsExactlyEntriesOf(POSTGRESQL);
        }
    }

    private static Map<String, String> checksums(Connection connection) throws SQLException {
        Map<String, String> sums = new LinkedHashMap<>();
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT ID, MD5SUM FROM DATABASECHANGELOG ORDER BY ORDEREXECUTED")) {
            while (rows.next()) {
                sums.put(rows.getString(1), rows.getString(2));
            }
        }
        return sums;
    }

    private static Map<String, String> ordered(String... idsAndSums) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < idsAndSums.length; i += 2) {
            map.put(idsAndSums[i], idsAndSums[i + 1]);
        }
        return map;
    }
}
