package dev.projections.console;

/**
 * A line of the projection page: one setting, its value and where it came from (getters: Jakarta EL 5 does not read
 * record components).
 */
public final class SettingLine {
    private final String key;
    private final String value;
    private final String origin;

    SettingLine(String key, String value, String origin) {
        this.key = key;
        this.value = value;
        this.origin = origin;
    }

    public String getKey() {
        return key;
    }

    public String getValue() {
        return value;
    }

    /** Where the value came from: a system property, the environment, a file, the projection's code, default. */
    public String getOrigin() {
        return origin;
    }
}
