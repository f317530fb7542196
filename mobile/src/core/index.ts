/**
 * The headless interview client core: no React, no React Native, no web-only globals, so it runs on Hermes, in
 * Node and in browsers. `@service/interviews-react-native` wraps it with the platform's link opener and the host.
 */
export { createInterviewClient, type InterviewClient } from "./client.ts";
export { inviteCodeOf } from "./links.ts";
export type { TrackClient } from "./track-proxy.ts";
export type * from "./types.ts";
