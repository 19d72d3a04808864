package dev.projections.it.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.projections.it.support.Browser;
import dev.projections.it.support.ConsoleUsers;
import dev.projections.it.support.Deployments;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What the console sends besides its pages, seen over plain HTTP with cookies handled by hand: the session cookie's
 * attributes, tracking by cookie only, and the headers against framing and sniffing.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class ConsoleHeadersIT {

    private static final Pattern SESSION = Pattern.compile("JSESSIONID=([^;]+)");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER).build();

    @Deployment(testable = false)
    static EnterpriseArchive deployment() {
        return Deployments.ear(Map.of("projection.auto-refresh", "false"));
    }

    @Test
    void theLoginPageAndTheConsoleForbidFramingAndSniffingAndLoadNothingFromElsewhere() throws Exception {
        HttpResponse<String> login = get("", null);
        assertThat(login.body()).contains("j_security_check");
        String session = sessionOf(login);
        HttpResponse<String> page = get("", logIn(session));
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).doesNotContain("j_security_check");

        for (HttpResponse<String> response : new HttpResponse[] {login, page}) {
            assertThat(response.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(response.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy ->
                    assertThat(policy).contains("frame-ancestors 'none'").contains("default-src 'self'"));
        }
    }

    @Test
    void theSessionCookieIsHttpOnlyAndSameSiteStrict() throws Exception {
        String cookie = get("", null).headers().allValues("Set-Cookie").stream()
                .filter(value -> value.startsWith("JSESSIONID=")).findFirst().orElseThrow();
        assertThat(cookie).containsIgnoringCase("HttpOnly").containsIgnoringCase("SameSite=Strict");
    }

    @Test
    void aSessionIdInTheUrlIsIgnoredAndTheIdChangesAtLogin() throws Exception {
        String beforeLogin = sessionOf(get("", null));
        String session = logIn(beforeLogin);
        assertThat(session).as("the session id after login").isNotEqualTo(beforeLogin);
        HttpResponse<String> byCookie = get("", session);
        assertThat(byCookie.statusCode()).isEqualTo(200);
        assertThat(byCookie.body()).as("the cookie carries the session").doesNotContain("j_security_check");

        HttpResponse<String> byUrl = get("index.xhtml;jsessionid=" + session, null);
        assertThat(byUrl.body()).as("the same id in the URL, without the cookie").contains("j_security_check");
        assertThat(byUrl.body()).doesNotContain("jsessionid=" + session);
    }

    /** Logs in as the viewer with the session of the login page; returns the session id after login. */
    private String logIn(String session) throws Exception {
        String form = "j_username=" + URLEncoder.encode(ConsoleUsers.VIEWER, StandardCharsets.UTF_8)
                + "&j_password=" + URLEncoder.encode(ConsoleUsers.VIEWER_PASSWORD, StandardCharsets.UTF_8);
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(Browser.CONSOLE + "j_security_check"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Cookie", "JSESSIONID=" + session)
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("login").isEqualTo(302);
        return response.headers().allValues("Set-Cookie").stream().map(SESSION::matcher).filter(Matcher::find)
                .map(m -> m.group(1)).findFirst().orElse(session);
    }

    private HttpResponse<String> get(String path, String session) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(Browser.CONSOLE + path));
        if (session != null) {
            request.header("Cookie", "JSESSIONID=" + session);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String sessionOf(HttpResponse<String> response) {
        return response.headers().allValues("Set-Cookie").stream().map(SESSION::matcher).filter(Matcher::find)
                .map(m -> m.group(1)).findFirst().orElseThrow(() -> new AssertionError("no session cookie"));
    }
}
