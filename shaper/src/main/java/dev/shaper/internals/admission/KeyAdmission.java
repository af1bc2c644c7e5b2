package dev.shaper.internals.admission;

/**
 * What admission keeps for one admission key in the caller's per-key state, so that a record's decision needs
 * no lookup in maps shared by all stream threads. Opaque to the caller: create one per key with
 * {@code new KeyAdmission()}, keep it beside the key's other state, and pass it with each of the key's records
 * to {@link AdmissionController#admit(byte[], AdmissionPolicy, long, KeyAdmission)}. Losing it costs a lookup,
 * never a decision. Used by one stream thread at a time, like the state it sits beside.
 */
public final class KeyAdmission {

    /**
     * The batched mode's mirror of the key's shared state, once a record of the key was admitted in that mode;
     * replaced when a sync has forgotten it.
     */
    LimitsMirror mirror;

    public KeyAdmission() {
    }
}
