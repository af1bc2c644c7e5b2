package dev.shaper.testsupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * What the whole JVM logs while a test runs, for the test to read: an appender on the root logger from
 * {@link #start()} to {@link #close()}. In the parallel integration tests other classes log beside it, so
 * {@link #lines} keeps the lines about the test's own loopback servers (or naming none).
 */
public final class CapturedLog implements AutoCloseable {

    private final Logger root;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private CapturedLog(Logger root) {
        this.root = root;
    }

    /** Captures from now on. */
    public static CapturedLog start() {
        CapturedLog log = new CapturedLog(Logs.root());
        log.appender.start();
        log.root.addAppender(log.appender);
        return log;
    }

    /** Everything logged so far. */
    public List<ILoggingEvent> events() {
        synchronized (appender) { // AppenderBase.doAppend holds this lock while appending
            return new ArrayList<>(appender.list);
        }
    }

    /** The messages logged so far. */
    public List<String> messages() {
        return events().stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** Forgets what was logged so far. */
    public void clear() {
        synchronized (appender) {
            appender.list.clear();
        }
    }

    /**
     * The messages of {@code logger} at {@code level} that contain {@code fragment} and name no loopback server
     * ({@code 127.0.0.1:<port>}) but those on {@code ownPorts}.
     */
    public List<String> lines(Class<?> logger, Level level, String fragment, Collection<Integer> ownPorts) {
        return events().stream()
                .filter(e -> e.getLoggerName().equals(logger.getName()) && e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .filter(message -> message.contains(fragment)
                        && ownPorts.containsAll(RedisServer.portsNamedIn(message)))
                .toList();
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
