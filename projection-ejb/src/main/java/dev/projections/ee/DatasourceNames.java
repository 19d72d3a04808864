package dev.projections.ee;

import java.util.List;
import javax.naming.Context;
import javax.naming.InitialContext;
import javax.naming.NameClassPair;
import javax.naming.NamingEnumeration;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * The JNDI name a datasource object is bound under, for messages about a persistence unit's datasource. WildFly hands
 * Hibernate the unit's {@code DataSource} object, not its {@code jta-data-source} text, and its JNDI lookups return
 * that very object (checked on WildFly 39): so the name is found by identity among the names of the contexts
 * datasources are bound in on WildFly and Payara/GlassFish, then the default datasource.
 */
final class DatasourceNames {

    /** Contexts listed one level deep: WildFly's datasources and top level, Payara's and GlassFish's {@code jdbc/}. */
    private static final List<String> CONTEXTS = List.of("java:jboss/datasources", "java:/", "jdbc", "java:global/jdbc",
            "java:app/jdbc", "java:module/jdbc", "java:comp/env/jdbc");
    private static final String DEFAULT_DATASOURCE = "java:comp/DefaultDataSource";

    private DatasourceNames() {
    }

    /** {@code dataSource}'s JNDI name, or {@code null} when none of the contexts binds it (or JNDI is unavailable). */
    static String of(DataSource dataSource) {
        if (dataSource == null) {
            return null;
        }
        Context jndi;
        try {
            jndi = new InitialContext();
        } catch (NamingException e) {
            return null;
        }
        for (String context : CONTEXTS) {
            String prefix = context.endsWith("/") ? context : context + "/";
            try {
                NamingEnumeration<NameClassPair> names = jndi.list(context);
                while (names.hasMore()) {
                    String name = prefix + names.next().getName();
                    if (bound(jndi, name) == dataSource) {
                        return name;
                    }
                }
            } catch (NamingException | RuntimeException notThere) {
                // a context this server does not have, or cannot list
            }
        }
        return bound(jndi, DEFAULT_DATASOURCE) == dataSource ? DEFAULT_DATASOURCE : null;
    }

    private static Object bound(Context jndi, String name) {
        try {
            return jndi.lookup(name);
        } catch (NamingException | RuntimeException e) {
            return null;
        }
    }
}
