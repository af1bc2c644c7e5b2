package dev.shaper.internals.store;

/**
 * The refusal of stored state this build cannot read: a format version it does not know, or bytes that do not fit
 * the version they name. The message says what was found, which versions this build reads, and what to do. Not a
 * reset: that would throw away the queued records an upgrade must keep; the state was written by another version
 * of the shaper, which can still release them (docs/upgrading.md).
 */
final class UnreadableFormat {

    private static final String WHAT_TO_DO = "; it was written by another version of the shaper: start the version"
            + " that wrote it again and drain its queues before upgrading (docs/upgrading.md, \"How to upgrade"
            + " today\", step 3)";

    private UnreadableFormat() {
    }

    /**
     * @param what     the stored thing, as an operator would look for it ("schedule store entry ...")
     * @param stored   its bytes, whose first byte names the version
     * @param readable the versions this build reads, for the message ("1 and 2")
     */
    static IllegalStateException version(String what, byte[] stored, String readable) {
        String found = stored.length == 0 ? "no format version (it is empty)" : "format version " + stored[0];
        return new IllegalStateException(what + " has " + found + ", but this build reads " + readable + WHAT_TO_DO);
    }

    /** Bytes of a known version that do not have its layout. */
    static IllegalStateException layout(String what, String problem) {
        return new IllegalStateException(what + " " + problem + WHAT_TO_DO);
    }
}
