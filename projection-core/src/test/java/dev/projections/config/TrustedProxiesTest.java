package dev.projections.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whose address a login through a reverse proxy counts against (docs/contract.md §12, "Logins"). */
class TrustedProxiesTest {

    private final TrustedProxies proxies = TrustedProxies.parse("10.0.0.0/8, 192.0.2.7, fd00::/8");

    @Test
    void aLoginFromATrustedProxyCountsAgainstTheClientItForwards() {
        assertThat(proxies.client("10.1.2.3", List.of("203.0.113.5"))).isEqualTo("203.0.113.5");
        assertThat(proxies.client("192.0.2.7", List.of("2001:db8::5"))).isEqualTo("2001:db8::5");
        assertThat(proxies.client("fd00::1", List.of("203.0.113.5"))).isEqualTo("203.0.113.5");
    }

    @Test
    void aForwardedHeaderFromAnAddressThatIsNoTrustedProxyIsIgnored() {
        assertThat(proxies.client("198.51.100.9", List.of("203.0.113.5"))).isEqualTo("198.51.100.9");
        assertThat(proxies.client("192.0.2.8", List.of("203.0.113.5"))).as("next to a proxy is not one")
                .isEqualTo("192.0.2.8");
        assertThat(TrustedProxies.NONE.client("10.1.2.3", List.of("203.0.113.5"))).as("none trusted by default")
                .isEqualTo("10.1.2.3");
    }

    @Test
    void aClientCannotChooseItsAddressBySendingAHeaderThroughTheProxy() {
        // the client sent "X-Forwarded-For: 198.51.100.1"; the proxy appended the address it saw
        assertThat(proxies.client("10.1.2.3", List.of("198.51.100.1, 203.0.113.5"))).isEqualTo("203.0.113.5");
        // or added a header of its own after the client's
        assertThat(proxies.client("10.1.2.3", List.of("198.51.100.1", "203.0.113.5"))).isEqualTo("203.0.113.5");
    }

    @Test
    void aChainOfTrustedProxiesIsWalkedToTheFirstAddressThatIsNotOne() {
        assertThat(proxies.client("10.1.2.3", List.of("203.0.113.5, 10.9.9.9, 192.0.2.7"))).isEqualTo("203.0.113.5");
        assertThat(proxies.client("10.1.2.3", List.of("10.4.4.4, 10.9.9.9"))).as("every hop a proxy: the first")
                .isEqualTo("10.4.4.4");
    }

    @Test
    void portsAreDroppedAndAnEntryThatIsNoAddressEndsTheWalkAtTheProxyThatWroteIt() {
        assertThat(proxies.client("10.1.2.3", List.of("203.0.113.5:51234"))).isEqualTo("203.0.113.5");
        assertThat(proxies.client("10.1.2.3", List.of("[2001:db8::5]:443"))).isEqualTo("2001:db8::5");
        assertThat(proxies.client("10.1.2.3", List.of("unknown"))).isEqualTo("10.1.2.3");
        assertThat(proxies.client("10.1.2.3", List.of(".:"))).as("no host name lookup, no address").isEqualTo("10.1.2.3");
        assertThat(proxies.client("10.1.2.3", List.of("203.0.113.5, unknown, 10.9.9.9"))).isEqualTo("10.9.9.9");
        assertThat(proxies.client("10.1.2.3", List.of())).as("no header").isEqualTo("10.1.2.3");
    }

    @Test
    void aBadEntryFailsTheDeploymentNamingTheKeyAndTheEntry() {
        assertThatThrownBy(() -> Settings.load(SettingSource.standard(new java.util.Properties(), Map.of(),
                properties(Settings.TRUSTED_PROXIES, "10.0.0.0/8, proxy.example.com"))))
                .hasMessageContaining(Settings.TRUSTED_PROXIES).hasMessageContaining("\"proxy.example.com\"");
        assertThatThrownBy(() -> TrustedProxies.parse("10.0.0.0/33")).hasMessageContaining("10.0.0.0/33");
        assertThatThrownBy(() -> TrustedProxies.parse("300.1.1.1")).hasMessageContaining("300.1.1.1");
        assertThat(Settings.load(SettingSource.standard(new java.util.Properties(), Map.of(),
                properties(Settings.TRUSTED_PROXIES, " 10.0.0.0/8 , ::1 "))).trustedProxies().trusts("::1")).isTrue();
        assertThat(Settings.defaults().trustedProxies().isEmpty()).isTrue();
    }

    private static java.util.Properties properties(String key, String value) {
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty(key, value);
        return properties;
    }
}
