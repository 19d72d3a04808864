package dev.projections.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.Principal;
import java.security.spec.AlgorithmParameterSpec;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.logging.Logger;
import org.wildfly.security.auth.SupportLevel;
import org.wildfly.security.auth.server.RealmIdentity;
import org.wildfly.security.auth.server.SecurityRealm;
import org.wildfly.security.authz.AuthorizationIdentity;
import org.wildfly.security.authz.MapAttributes;
import org.wildfly.security.credential.Credential;
import org.wildfly.security.evidence.Evidence;
import org.wildfly.security.evidence.PasswordGuessEvidence;
import java.util.Locale;

/**
 * The console's two users (docs/contract.md §12, §13): {@code admin} with role {@code projection-admin} and {@code viewer}
 * with role {@code projection-viewer}. Their passwords are read once, when the server starts, from the system
 * property {@code projection.console.admin-password} / {@code projection.console.viewer-password}, else the
 * environment variable {@code PROJECTION_ADMIN_PASSWORD} / {@code PROJECTION_VIEWER_PASSWORD}; nothing is baked
 * in at build time. A user without a password cannot log in (a warning at start says which variable to set).
 * <p>
 * An Elytron custom realm, so an operator who wants LDAP or a database instead points the {@code projections}
 * application security domain at another Elytron security domain; the application does not change.
 */
public final class ConsoleUsersRealm implements SecurityRealm {

    public static final String ADMIN_ROLE = "projection-admin";
    public static final String VIEWER_ROLE = "projection-viewer";

    private static final Logger LOG = Logger.getLogger(ConsoleUsersRealm.class.getName());

    /** A user the realm knows: its role and its password, or {@code null} when none was given at start. */
    record User(String role, byte[] password) {
    }

    private final Map<String, User> users;

    public ConsoleUsersRealm() {
        this(ConsoleUsersRealm::configured);
    }

    ConsoleUsersRealm(Function<String, String> settings) {
        this.users = Map.of(
                "admin", user("admin", ADMIN_ROLE, settings),
                "viewer", user("viewer", VIEWER_ROLE, settings));
    }

    private static User user(String name, String role, Function<String, String> settings) {
        String key = "projection.console." + name + "-password";
        String variable = "PROJECTION_" + name.toUpperCase(Locale.ROOT) + "_PASSWORD";
        String password = settings.apply(key);
        if (password == null) {
            password = settings.apply(variable);
        }
        if (password == null || password.isEmpty()) {
            LOG.warning("PRJ503: Projections console: user '" + name + "' has no password and cannot log in; set "
                    + variable + " (or -D" + key + ") before starting the server");
            return new User(role, null);
        }
        return new User(role, password.getBytes(StandardCharsets.UTF_8));
    }

    /** System property by its dotted name, environment variable by its upper-case name. */
    private static String configured(String name) {
        return name.contains(".") ? System.getProperty(name) : System.getenv(name);
    }

    @Override
    public RealmIdentity getRealmIdentity(Principal principal) {
        String name = principal == null ? null : principal.getName();
        User user = name == null ? null : users.get(name);
        return user == null ? RealmIdentity.NON_EXISTENT : new Identity(principal, user);
    }

    @Override
    public SupportLevel getCredentialAcquireSupport(Class<? extends Credential> credentialType, String algorithmName,
                                                    AlgorithmParameterSpec parameterSpec) {
        return SupportLevel.UNSUPPORTED;
    }

    @Override
    public SupportLevel getEvidenceVerifySupport(Class<? extends Evidence> evidenceType, String algorithmName) {
        return PasswordGuessEvidence.class.isAssignableFrom(evidenceType) ? SupportLevel.POSSIBLY_SUPPORTED
                : SupportLevel.UNSUPPORTED;
    }

    /** Whether {@code guess} is {@code user}'s password, in time independent of where they differ. */
    static boolean matches(User user, char[] guess) {
        if (user.password() == null || guess == null) {
            return false;
        }
        byte[] given = new String(guess).getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, user.password());
    }

    private static final class Identity implements RealmIdentity {
        private final Principal principal;
        private final User user;

        Identity(Principal principal, User user) {
            this.principal = principal;
            this.user = user;
        }

        @Override
        public Principal getRealmIdentityPrincipal() {
            return principal;
        }

        @Override
        public SupportLevel getCredentialAcquireSupport(Class<? extends Credential> credentialType,
                                                        String algorithmName, AlgorithmParameterSpec parameterSpec) {
            return SupportLevel.UNSUPPORTED;
        }

        @Override
        public <C extends Credential> C getCredential(Class<C> credentialType) {
            return null;
        }

        @Override
        public SupportLevel getEvidenceVerifySupport(Class<? extends Evidence> evidenceType, String algorithmName) {
            return PasswordGuessEvidence.class.isAssignableFrom(evidenceType) && user.password() != null
                    ? SupportLevel.SUPPORTED : SupportLevel.UNSUPPORTED;
        }

        @Override
        public boolean verifyEvidence(Evidence evidence) {
            return evidence instanceof PasswordGuessEvidence guess && matches(user, guess.getGuess());
        }

        @Override
        public boolean exists() {
            return true;
        }

        @Override
        public AuthorizationIdentity getAuthorizationIdentity() {
            // read by the domain's role decoder (groups-to-roles reads the attribute "groups")
            return AuthorizationIdentity.basicIdentity(new MapAttributes(Map.of("groups", Set.of(user.role()))));
        }
    }
}
