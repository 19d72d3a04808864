package dev.projections.it.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A server with the engine off ({@code projection.enabled=false}) stops cleanly: the engine it never built is not
 * built at shutdown either. It was, by the sweep timer's stop, touching beans the container was already destroying
 * (the server logged {@code WFLYEE0006}, or the engine warned that its last trends could not be written through a
 * transaction bean already destroyed). Its own server, stopped by SIGTERM as an operator stops one.
 */
class DisabledEngineStopIT {

    @Test
    void aServerWithTheEngineDisabledStopsWithoutBuildingIt() throws Exception {
        String url = FaultSetup.freshDatabase("disabled_engine_stop");
        Path probe = FaultSetup.probeDir("disabled-engine-stop-probe");
        Map<String, String> properties = new HashMap<>(FaultSetup.serverProperties(url, probe, 0));
        properties.put("projection.enabled", "false");
        try (ServerProcess server = new ServerProcess("disabled-stop", 500, FaultSetup.ear(), properties)) {
            server.start();
            server.stop(Duration.ofSeconds(60));

            String log = Files.readString(server.log());
            assertThat(log).as("the server stopped gracefully").contains("WFLYSRV0220", "WFLYSRV0050");
            String shutdown = log.substring(log.indexOf("WFLYSRV0220"));
            assertThat(shutdown).as("no component failed to stop").doesNotContain("WFLYEE0006");
            // built at shutdown, the engine wrote its last trends through beans already gone, and warned
            assertThat(shutdown.lines().filter(line -> line.contains("[dev.projections"))
                    .filter(line -> line.contains(" WARN") || line.contains(" ERROR")))
                    .as("what the product logged while the server stopped").isEmpty();
        }
    }
}
