package dev.projections.config;

import java.util.List;

/** Thrown at deployment when settings are invalid; the message names every bad key and its value. */
public final class InvalidSettingsException extends RuntimeException {

    private final List<String> problems;

    public InvalidSettingsException(List<String> problems) {
        super("Invalid projection settings: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
