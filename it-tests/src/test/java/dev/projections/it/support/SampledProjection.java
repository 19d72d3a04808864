package dev.projections.it.support;

import dev.projections.Projection;
import dev.projections.Verifiable;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A verifiable test projection of 50 ids ({@code k-00} … {@code k-49}) whose write model and read model are maps in
 * memory, the same in every tenant: a test changes a read-model row behind the engine's back ({@link #damage}), and
 * a refresh writes the source's value again.
 */
@ApplicationScoped
public class SampledProjection implements Projection, Verifiable {

    public static final String NAME = "sampled";
    public static final List<String> IDS = IntStream.range(0, 50).mapToObj(i -> String.format("k-%02d", i)).toList();

    private final Map<String, String> source = new ConcurrentHashMap<>();
    private final Map<String, String> readModel = new ConcurrentHashMap<>();

    public SampledProjection() {
        IDS.forEach(id -> {
            source.put(id, "v-" + id);
            readModel.put(id, "v-" + id);
        });
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Changes {@code id}'s read-model row without a mark, as a hand edit would. */
    public void damage(String id) {
        readModel.put(id, "damaged");
    }

    public boolean isDamaged(String id) {
        return !Objects.equals(readModel.get(id), source.get(id));
    }

    @Override
    public void refresh(String id) {
        readModel.put(id, source.get(id));
    }

    @Override
    public List<String> ids(String after, int limit) {
        return IDS.stream().filter(id -> after == null || id.compareTo(after) > 0).limit(limit).toList();
    }

    @Override
    public Set<String> drifted(List<String> ids) {
        return ids.stream().filter(this::isDamaged).collect(Collectors.toSet());
    }
}
