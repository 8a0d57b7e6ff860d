package io.jtick.hdb;

import io.jtick.boot.PgPort;
import io.jtick.core.hdb.write.EncodingPolicy;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.shaded.org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The real hdb-service with its cold tier on a real S3-compatible server (s3proxy in this JVM,
 * filesystem backend, loopback): a day moved to the bucket by {@code POST /api/tiering/run} answers
 * over REST and the PostgreSQL port exactly as before the move; with the store stopped, REST answers
 * 503 naming the partition and the store, and pgJDBC gets SQLSTATE 58030 on a connection that stays
 * usable; with the store back, both answer again.
 */
class HdbColdTierIT {
    private static final LocalDate DAY = LocalDate.of(2026, 11, 20);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String ACCESS = "jtick-access";
    private static final String SECRET = "jtick-secret-key";
    private static final String BUCKET = "jtick-cold";
    private static final String VWAP = "{\"table\":\"trade\",\"fromDate\":\"2026-11-20\",\"toDate\":\"2026-11-20\",\"select\":{\"n\":"
        + "{\"count\":\"*\"},\"vwap\":{\"wavg\":[\"size\",\"price\"]}},\"by\":\"sym\"}";
    private static final String SQL = "SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade"
        + " WHERE date = '2026-11-20' GROUP BY sym ORDER BY sym";

    @TempDir
    static Path bucketDir;
    @TempDir
    static Path root;

    private static BlobStoreContext blobs;
    private static S3Proxy s3;
    private static int s3Port;

    @BeforeAll
    static void startStore() throws Exception {
        final Properties p = new Properties();
        p.setProperty("jclouds.filesystem.basedir", bucketDir.toString());
        blobs = ContextBuilder.newBuilder("filesystem").credentials("identity", "credential").overrides(p).build(BlobStoreContext.class);
        blobs.getBlobStore().createContainerInLocation(null, BUCKET);
        startS3();
    }

    /** Starts s3proxy: on a free port the first time, on the same one again after a stop. */
    private static void startS3() throws Exception {
        s3 = S3Proxy.builder().blobStore(blobs.getBlobStore()).endpoint(URI.create("http://127.0.0.1:" + s3Port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS, SECRET).build();
        s3.start();
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!AbstractLifeCycle.STARTED.equals(s3.getState())) {
            assertThat(System.nanoTime()).as("s3proxy started").isLessThan(deadline);
            Thread.onSpinWait();
        }
        s3Port = s3.getPort();
    }

    @AfterAll
    static void stopStore() throws Exception {
        s3.stop();
        blobs.close();
    }

    private static JsonNode rows(final HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body()).get("rows");
    }

    private static List<String> sql(final Connection c) throws SQLException {
        final List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(SQL)) {
            while (rs.next()) {
                out.add(rs.getString(1) + "," + rs.getDouble(2) + "," + rs.getLong(3));
            }
        }
        return out;
    }

    @Test
    void shouldMoveADayColdAnswerAsBeforeOverRestAndPgFailClearlyWhileTheStoreIsDownAndAnswerOnceItIsBack() throws Exception {
        HdbTestData.writeDay(root, DAY, "trade", 6_000, 15, 5, EncodingPolicy.PLAIN);
        HdbTestData.writeDay(root, DAY, "quote", 1_500, 15, 6, EncodingPolicy.PLAIN);
        try (ConfigurableApplicationContext ctx = new SpringApplicationBuilder(HdbApplication.class).run("--server.port=0",
            "--server.address=127.0.0.1", "--tick.hdb.root=" + root, "--tick.hdb.pg-port=0", "--tick.hdb.kdb-port=-1",
            "--tick.hdb.tiering.enabled=false",
            "--tick.hdb.tiers[0].name=hot", "--tick.hdb.tiers[0].max-age-days=1", "--tick.hdb.tiers[0].encoding=none",
            "--tick.hdb.tiers[1].name=cold", "--tick.hdb.tiers[1].encoding=parquet/zstd", "--tick.hdb.tiers[1].object-store=true",
            "--tick.hdb.object-store.enabled=true", "--tick.hdb.object-store.endpoint=http://127.0.0.1:" + s3Port,
            "--tick.hdb.object-store.bucket=" + BUCKET, "--tick.hdb.object-store.prefix=it",
            "--tick.hdb.object-store.access-key=" + ACCESS, "--tick.hdb.object-store.secret-key=" + SECRET,
            // no cache, of fetched bytes (memory or disk) nor of decoded Parquet pages: every query reads the store, so a stopped
            // store fails the next one
            "--tick.hdb.object-store.cache-size=0", "--tick.hdb.object-store.disk-cache-size=0", "--tick.hdb.decoded-block-cache=0",
            "--tick.hdb.object-store.read-timeout=1s",
            "--tick.hdb.object-store.request-timeout=2s", "--tick.hdb.object-store.call-timeout=3s",
            "--tick.hdb.object-store.max-attempts=1")) {
            final int port = Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
            final int pg = ctx.getBean(PgPort.class).port();
            try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + pg + "/jtick?sslmode=disable", "jtick",
                "")) {
                final JsonNode before = rows(HdbTestData.call(port, "POST", "/api/query", VWAP, Map.of()));
                final List<String> beforeSql = sql(c);
                assertThat(before).hasSize(15);
                assertThat(beforeSql).hasSize(15);

                final HttpResponse<String> tiered = HdbTestData.call(port, "POST", "/api/tiering/run?today=2026-12-31", null, Map.of());
                assertThat(tiered.statusCode()).as(tiered.body()).isEqualTo(200);
                final JsonNode report = JSON.readTree(tiered.body());
                assertThat(report.get("failed")).as(tiered.body()).isEmpty();
                assertThat(report.get("moved")).hasSize(2);
                assertThat(report.get("moved").get(0).get("tier").asString()).isEqualTo("cold");
                assertThat(Files.exists(root.resolve(DAY.toString()))).as("local copy deleted").isFalse();
                assertThat(Files.exists(bucketDir.resolve(BUCKET + "/it/trade/date=2026-11-20/trade.parquet"))).isTrue();
                final JsonNode parts = JSON.readTree(HdbTestData.call(port, "GET", "/api/partitions", null, Map.of()).body());
                assertThat(parts.get(0).get("tables").get(0).get("format").asString()).startsWith("s3:parquet");

                assertThat(rows(HdbTestData.call(port, "POST", "/api/query", VWAP, Map.of()))).isEqualTo(before);
                assertThat(sql(c)).isEqualTo(beforeSql);

                s3.stop();
                final HttpResponse<String> down = HdbTestData.call(port, "POST", "/api/query", VWAP, Map.of());
                assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
                final JsonNode err = JSON.readTree(down.body());
                assertThat(err.get("date").asString()).isEqualTo("2026-11-20");
                assertThat(err.get("table").asString()).isEqualTo("trade");
                assertThat(err.get("store").asString()).isEqualTo("s3://" + BUCKET + "/it/ at http://127.0.0.1:" + s3Port);
                assertThat(err.get("reason").asString()).isEqualTo("unreachable");
                assertThat(err.get("error").asString()).contains("date=2026-11-20", "table=trade", "s3://" + BUCKET);
                assertThatThrownBy(() -> sql(c)).isInstanceOfSatisfying(SQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("58030");
                    assertThat(e.getMessage()).contains("date=2026-11-20", "table=trade", "s3://" + BUCKET);
                });
                final String metrics = HdbTestData.call(port, "GET", "/actuator/prometheus", null, Map.of()).body();
                assertThat(metrics).containsPattern("tick_hdb_cold_errors_total\\{[^}]*reason=\"unreachable\"[^}]*} [1-9]");

                startS3();
                assertThat(rows(HdbTestData.call(port, "POST", "/api/query", VWAP, Map.of()))).isEqualTo(before);
                assertThat(sql(c)).as("the same connection answers again").isEqualTo(beforeSql);
            }
        }
    }
}
