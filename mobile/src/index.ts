/** The interview client core and its React binding (the web reference of the React Native component). */
export { createInterviewClient, type InterviewClient } from "./core/client.ts";
export { inviteCodeOf } from "./core/links.ts";
export type { TrackClient } from "./core/track-proxy.ts";
export type * from "./core/types.ts";
export { useInterviews } from "./react/useInterviews.ts";
export { InterviewHost, type InterviewHostProps } from "./react/InterviewHost.tsx";
export { parseMessage, type InterviewMessage } from "./react/protocol.ts";
