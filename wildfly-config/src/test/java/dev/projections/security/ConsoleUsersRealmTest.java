package dev.projections.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.Principal;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.wildfly.security.auth.principal.NamePrincipal;
import org.wildfly.security.auth.server.RealmIdentity;
import org.wildfly.security.evidence.PasswordGuessEvidence;

class ConsoleUsersRealmTest {

    private static boolean login(ConsoleUsersRealm realm, String user, String password) throws Exception {
        RealmIdentity identity = realm.getRealmIdentity(new NamePrincipal(user));
        return identity.exists() && identity.verifyEvidence(new PasswordGuessEvidence(password.toCharArray()));
    }

    @Test
    void environmentVariablesGiveThePasswords() throws Exception {
        ConsoleUsersRealm realm = new ConsoleUsersRealm(Map.of(
                "PROJECTION_ADMIN_PASSWORD", "a-secret", "PROJECTION_VIEWER_PASSWORD", "v-secret")::get);
        assertTrue(login(realm, "admin", "a-secret"));
        assertTrue(login(realm, "viewer", "v-secret"));
        assertFalse(login(realm, "admin", "v-secret"));
        assertFalse(login(realm, "admin", "a-secre"));
    }

    @Test
    void aSystemPropertyWinsOverTheEnvironment() throws Exception {
        ConsoleUsersRealm realm = new ConsoleUsersRealm(Map.of("projection.console.admin-password", "from-property",
                "PROJECTION_ADMIN_PASSWORD", "from-env")::get);
        assertTrue(login(realm, "admin", "from-property"));
        assertFalse(login(realm, "admin", "from-env"));
    }

    @Test
    void aUserWithoutPasswordCannotLogInEvenWithAnEmptyOne() throws Exception {
        ConsoleUsersRealm realm = new ConsoleUsersRealm(Map.of("PROJECTION_ADMIN_PASSWORD", "")::get);
        assertFalse(login(realm, "admin", ""));
        assertFalse(login(realm, "viewer", ""));
    }

    @Test
    void unknownUsersDoNotExist() throws Exception {
        ConsoleUsersRealm realm = new ConsoleUsersRealm(Map.of("PROJECTION_ADMIN_PASSWORD", "x")::get);
        assertFalse(realm.getRealmIdentity(new NamePrincipal("root")).exists());
        assertFalse(realm.getRealmIdentity((Principal) null).exists());
    }

    @Test
    void eachUserCarriesItsRoleAsGroup() throws Exception {
        ConsoleUsersRealm realm = new ConsoleUsersRealm(Map.of("PROJECTION_ADMIN_PASSWORD", "x")::get);
        assertEquals(java.util.List.of("projection-admin"), java.util.List.copyOf(realm.getRealmIdentity(
                new NamePrincipal("admin")).getAuthorizationIdentity().getAttributes().get("groups")));
        assertEquals(java.util.List.of("projection-viewer"), java.util.List.copyOf(realm.getRealmIdentity(
                new NamePrincipal("viewer")).getAuthorizationIdentity().getAttributes().get("groups")));
    }
}
