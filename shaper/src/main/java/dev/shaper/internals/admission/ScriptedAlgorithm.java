package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;

/** What every algorithm has in the same form: its name, its Redis key prefix and its script, read once. */
abstract class ScriptedAlgorithm implements AdmissionAlgorithm {

    private final String configName;
    private final String keyPrefix;
    private final RedisScript script;

    /** @param scriptResource the script's class-path name, e.g. {@code dev/shaper/token-bucket.lua} */
    ScriptedAlgorithm(String configName, String keyPrefix, String scriptResource) {
        this.configName = configName;
        this.keyPrefix = keyPrefix;
        this.script = RedisScript.load(scriptResource);
    }

    @Override
    public final String configName() {
        return configName;
    }

    @Override
    public final String keyPrefix() {
        return keyPrefix;
    }

    @Override
    public final RedisScript script() {
        return script;
    }

    @Override
    public final String toString() {
        return configName;
    }
}
