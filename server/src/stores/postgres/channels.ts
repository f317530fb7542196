/** The NOTIFY channels the sandbox's processes share: named once, so whoever listens and whoever notifies agree. */

/** A project's delivery stream has new events (the payload names the project). */
export const STREAM_CHANNEL = "sandbox_stream";
