package dev.shaper.testsupport;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/**
 * Logback's loggers for tests that read what is logged. In the parallel integration tests a class may start while
 * another one is binding SLF4J: meanwhile SLF4J hands out stand-ins that cannot take an appender, so this waits for
 * the binding to be done.
 */
public final class Logs {

    private Logs() {
    }

    /** The root logger, once SLF4J is bound to Logback. */
    public static Logger root() {
        Await.until("SLF4J bound to Logback", Duration.ofSeconds(10),
                () -> LoggerFactory.getILoggerFactory() instanceof LoggerContext);
        return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }
}
