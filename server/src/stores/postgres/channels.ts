/** The NOTIFY channels the sandbox's processes share: named once, so whoever listens and whoever notifies agree. */

/** A project's delivery stream has new events (the payload names the project). */
export const STREAM_CHANNEL = "sandbox_stream";

/** A notification on a channel, over a `VALUES` list so a group commit sends its changes' in one statement (batched.ts). */
export const NOTIFY = "SELECT pg_notify(v.channel, '') FROM (VALUES ($1::text)) AS v(channel)";
/** The same with a payload. */
export const NOTIFY_WITH_PAYLOAD = "SELECT pg_notify(v.channel, v.payload) FROM (VALUES ($1::text, $2::text)) AS v(channel, payload)";
