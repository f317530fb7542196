/** The web target: the same client core with a DOM host (an iframe), for React apps in a browser. */
export { createInterviewClient, type InterviewClient } from "./core/client.ts";
export { inviteCodeOf } from "./core/links.ts";
export type * from "./core/types.ts";
export { useInterviews } from "./react/useInterviews.ts";
export { InterviewHost, type InterviewHostProps } from "./react/InterviewHost.tsx";
export { parseMessage, type HostCloseEvent, type InterviewMessage } from "./react/protocol.ts";
