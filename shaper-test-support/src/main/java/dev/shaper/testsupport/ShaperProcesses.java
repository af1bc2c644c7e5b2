package dev.shaper.testsupport;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The shaper processes a test starts, closed after each test (killed if they still run), so that none outlives the
 * test that failed. Register it with {@code @RegisterExtension final ShaperProcesses processes = new
 * ShaperProcesses();} and {@link #add} each process as it starts.
 */
public final class ShaperProcesses implements AfterEachCallback, Iterable<ShaperProcess> {

    private final List<ShaperProcess> started = new ArrayList<>();

    /** Keeps {@code process} to close after the test, and returns it. */
    public ShaperProcess add(ShaperProcess process) {
        started.add(process);
        return process;
    }

    /** The {@code index}-th process started, from 0. */
    public ShaperProcess get(int index) {
        return started.get(index);
    }

    /** How many processes the test started. */
    public int size() {
        return started.size();
    }

    /** The processes started so far, in the order they started. */
    public List<ShaperProcess> list() {
        return List.copyOf(started);
    }

    @Override
    public Iterator<ShaperProcess> iterator() {
        return List.copyOf(started).iterator();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        started.forEach(ShaperProcess::close);
        started.clear();
    }

    @Override
    public String toString() {
        return started.toString();
    }
}
