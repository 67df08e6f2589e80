package dev.shove.internal;

/** What a consumer engine needs from the runtime that owns it. */
interface EngineContext {
    BrokerServices services();

    Continuations continuations();

    /** Declares a topic replies go to, once. */
    void declareReplyTopic(dev.shove.Topic<?> topic);

    /** An internal failure of shove's own machinery: counted as a crash in the supervisor's outcome. */
    void crashed(Throwable error);
}
