/**
 * The seed's prescribed errors of the messages endpoint (Errors 4 and 5), judged on one answer: an invalid `limit` or a
 * non-UUID `starting_after` is 400 `Invalid parameters` with one `details` entry per offending field; a UUID that is
 * not a visible message of the chat is 400 `No such message: <id>`. Used by the chats check and by the proxy.
 */
import { errorDetails, errorMessage, issueNames } from "../http.ts";
import { rules, seed } from "../rules.ts";
import type { Verdict } from "./truncation.ts";

export const messageErrorRules = rules("chats", {
  "invalid-parameters": seed("Errors 4", "an invalid limit and a non-UUID starting_after on messages answer 400 `Invalid parameters` with one details entry per offending field", ["errors.invalid-parameters", "endpoints.messages-validation"]),
  "no-such-message": seed("Errors 5", "a UUID starting_after that is not a visible message of the chat answers 400 `No such message: <id>`", ["errors.no-such-message", "endpoints.messages-unknown-cursor"]),
});
const r = messageErrorRules;

/** `offending`: the fields that were invalid, each of which must be named once in `details`. */
export function invalidParametersVerdicts(status: number, body: unknown, offending: string[], what: string): Verdict[] {
  const details = errorDetails(body) ?? [];
  const named = (field: string) => details.filter((d) => issueNames(d, field)).length;
  return [
    [r["invalid-parameters"], status === 400 && errorMessage(body) === "Invalid parameters", `${what}: expected 400 "Invalid parameters", got ${status} ${JSON.stringify(errorMessage(body))}`],
    [r["invalid-parameters"], details.length === offending.length && offending.every((f) => named(f) === 1), `details must list one issue per offending field (${offending.join(", ")}), got ${JSON.stringify(details).slice(0, 300)}`],
  ];
}

export function noSuchMessageVerdicts(status: number, body: unknown, id: string, what: string): Verdict[] {
  return [[r["no-such-message"], status === 400 && errorMessage(body) === `No such message: ${id}`, `${what}: expected 400 "No such message: ${id}", got ${status} ${JSON.stringify(errorMessage(body))}`]];
}
