package dev.shaper.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/**
 * The logging of a command that answers on standard output ({@code rules}, {@code topics}): every log line goes to
 * standard error, so that {@code rules list > rules.txt} holds the answer only, and the Kafka clients' retries
 * (a WARN per reconnect while a broker is away) are not logged, since the command says itself what failed.
 */
public final class CommandLineLogging {

    /** The console appender of the shaper's {@code logback.xml}. */
    private static final String CONSOLE = "CONSOLE";

    private CommandLineLogging() {
    }

    /** Switches this JVM's logging to a command's: to standard error, the Kafka clients at ERROR. */
    public static void forCommand() {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return; // another binding (a test's): left as it is
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Appender<?> appender = root.getAppender(CONSOLE);
        if (appender instanceof ConsoleAppender<?> console) {
            console.stop();
            console.setTarget("System.err");
            console.start();
        }
        context.getLogger("org.apache.kafka").setLevel(Level.ERROR);
    }
}
