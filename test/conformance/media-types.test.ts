// A media type's name is case-insensitive (RFC 9110, 8.3.1): an implementation answering `Application/JSON` sends JSON,
// and one answering `application/json-patch+json` does not. The suite's four readers of a Content-Type (a response's
// body, a delivery's headers, the covering phase's client headers, the proxy's request bodies) ask one function.
import { describe, expect, it } from "vitest";
import { Contract } from "../../conformance/src/contract.ts";
import { isEventStreamType, isJsonType, type Reply } from "../../conformance/src/http.ts";
import { judgeAttempt } from "../../conformance/src/judge/attempts.ts";
import type { Delivery } from "../../conformance/src/receiver.ts";

const contract = new Contract();
const studies = { object: "list", data: [], has_more: false, next_cursor: null };
const reply = (type: string): Reply => ({ status: 200, headers: new Headers({ "content-type": type }), text: JSON.stringify(studies), body: studies, curl: "", method: "GET", path: "/v1/studies" });
const jsonProblems = (type: string) => contract.judge(reply(type)).filter((p) => p.rule === "response.json");

describe("Content-Type", () => {
  it("is JSON whatever the case of its name and with parameters, and is not JSON when it names another type", () => {
    for (const type of ["application/json", "Application/JSON", "application/json; charset=utf-8", "APPLICATION/JSON;charset=UTF-8", "application/json ; charset=utf-8"]) {
      expect(isJsonType(type), type).toBe(true);
      expect(jsonProblems(type), type).toEqual([]);
    }
    for (const type of ["application/json-patch+json", "application/jsonx", "text/json", "application/problem+json", "text/plain; x=application/json", ""]) {
      expect(isJsonType(type), type).toBe(false);
      expect(jsonProblems(type).length, type).toBe(1);
    }
    expect(isJsonType(null)).toBe(false);
    expect(isJsonType(undefined)).toBe(false);
    expect([isEventStreamType("Text/Event-Stream; charset=utf-8"), isEventStreamType("text/event-streams")]).toEqual([true, false]);
  });

  it("of a delivery is judged alike: Application/JSON passes, another type fails the headers rule", () => {
    const failed: string[] = [];
    const ctx = { contract, expect: (rule: { id: string }, ok: boolean, message: string) => void (ok || failed.push(`${rule.id}: ${message}`)) };
    const delivery = (type: string): Delivery => ({ at: 0, startedAt: 0, path: "/hook", method: "POST", headers: { "content-type": type, "x-webhook-event": "interview.completed" }, raw: Buffer.from("{}"), lagMs: 0 }) as unknown as Delivery;
    judgeAttempt(ctx as never, null, delivery("Application/JSON; charset=UTF-8"), "attempt 1");
    expect(failed.filter((f) => f.includes("Content-Type"))).toEqual([]);
    judgeAttempt(ctx as never, null, delivery("application/json-patch+json"), "attempt 2");
    expect(failed.filter((f) => f.includes("Content-Type"))).toEqual([expect.stringMatching(/^webhooks\.headers: attempt 2: Content-Type is "application\/json-patch\+json", not application\/json$/)]);
  });
});
