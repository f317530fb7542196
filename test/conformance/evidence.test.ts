// Capability detection's judgement, answer by answer: what a missing route looks like beside a probe, and whether a
// probe's answer differs from it. No server: the answers are the ones servers unlike ours give (ours, the foreign
// implementation's, a seed-only one's), so a change to the rules shows here first.
import { describe, expect, it } from "vitest";
import { decide, decideField, Fingerprint, normalize, shape, sibling, type Answer } from "../../conformance/src/states/evidence.ts";

const json = (status: number, body: unknown): Answer => ({ status, type: "application/json", text: JSON.stringify(body) });
const text = (status: number, body: string): Answer => ({ status, type: "text/plain", text: body });
const fingerprint = (path: string, answer: (segment: string) => Answer) => new Fingerprint(["zz-1", "zz-2"].map((seg) => ({ answer: answer(seg), path: sibling(path, seg) })));

const COMPLETE = "/_sim/interviews/00000000-0000-4000-8000-000000000000/complete";
const ID = "00000000-0000-4000-8000-000000000000";

describe("capability evidence", () => {
  it("sets aside the path's own words, ids, instants and numbers", () => {
    expect(normalize(`No such route: POST /api/_sim/interviews/${ID}/zz-1 at 2026-11-27T10:00:00.000Z (42)`, ["zz-1"])).toBe("No such route: POST /api/_sim/interviews/<uuid>/\u0000 at <instant> (<n>)");
    expect(shape(JSON.stringify({ error: { message: "x", details: [{ field: "a" }] } }))).toBe("{error:{details:[{field:string}],message:string}}");
    expect(shape("Not Found")).toBe("text");
  });

  it("a 404 naming the interview, beside routes that answer a plain Not Found, is the operation (a seed-only server)", () => {
    const fp = fingerprint(COMPLETE, () => json(404, { message: "Not found" }));
    expect(decide("POST complete", json(404, { message: `No such interview: ${ID}` }), COMPLETE, fp, ID).offered).toBe(true);
  });

  it("a 404 for an id that does not exist, the same as the missing routes', is left to a use with a real id (a framework's default 404 is both), whatever the route's words", () => {
    const ours = fingerprint(COMPLETE, (seg) => json(404, { error: { type: "not_found_error", message: `No such route: POST /api/_sim/interviews/${ID}/${seg}` } }));
    const a = decide("POST complete", json(404, { error: { type: "not_found_error", message: `No such route: POST /api/_sim/interviews/${ID}/complete` } }), COMPLETE, ours, ID);
    expect(a.offered).toBe("unknown");
    expect(a.how).toMatch(/settled at first use, with a real id$/);
    const fastapi = fingerprint(COMPLETE, () => json(404, { detail: "Not Found" }));
    expect(decide("POST complete", json(404, { detail: "Not Found" }), COMPLETE, fastapi, ID).offered).toBe("unknown");
    // Without an id asked for, an answer like the missing routes' is the operation's absence.
    const foreign = fingerprint("/_sim/faults", () => json(404, "Not Found"));
    expect(decide("PUT faults", json(404, "Not Found"), "/_sim/faults", foreign).offered).toBe(false);
  });

  it("a validation answer (400 or 422) unlike the missing routes' is the operation", () => {
    const fp = fingerprint("/_sim/studies", () => text(404, "Not Found"));
    expect(decide("POST studies", json(422, { status: 422, message: "name is required" }), "/_sim/studies", fp, undefined, true).offered).toBe(true);
    expect(decide("POST studies", json(400, { error: { message: "Invalid parameters" } }), "/_sim/studies", fp, undefined, true).offered).toBe(true);
  });

  it("a 405 or 501 is absence; a 404 to a creation is absence even when it reads unlike the missing routes", () => {
    const fp = fingerprint("/_sim/studies", (seg) => json(404, { error: `no route ${seg}` }));
    expect(decide("POST studies", json(405, { message: "not allowed" }), "/_sim/studies", fp).offered).toBe(false);
    expect(decide("POST studies", json(501, {}), "/_sim/studies", fp).offered).toBe(false);
    expect(decide("POST studies", json(404, { error: { message: "No such route" } }), "/_sim/studies", fp, undefined, true).offered).toBe(false);
  });

  it("cannot tell from missing routes whose answers vary in the probe's shape, or from a 5xx: first use settles it", () => {
    let n = 0;
    const varying = fingerprint(COMPLETE, () => json(404, { error: "not found", request: `req-${"abc"[n++]}` }));
    expect(varying.stable).toBe(false);
    expect(decide("POST complete", json(404, { error: "not found", request: "req-x" }), COMPLETE, varying, ID).offered).toBe("unknown");
    expect(decide("POST complete", json(503, {}), COMPLETE, fingerprint(COMPLETE, () => json(404, {})), ID).offered).toBe("unknown");
  });

  it("a field is taken when the answer does not change with it, refused when only it brings a validation answer or is named", () => {
    const named = (field: string) => (a: Answer) => a.text.includes(field);
    const study404 = json(404, { message: `No such study: ${ID}` });
    expect(decideField("hold", study404, study404, named("hold")).offered).toBe(true);
    expect(decideField("hold", study404, json(422, { status: 422, message: "unknown field: hold" }), named("hold")).offered).toBe(false);
    expect(decideField("hold", study404, json(400, { error: { message: "Invalid parameters" } }), named("hold")).offered).toBe(false);
    const visibility = json(422, { message: "visibility must be visible, internal, evaluation or release" });
    expect(decideField("hidden", visibility, visibility, named("hidden")).offered).toBe(true);
    expect(decideField("hidden", visibility, json(422, { message: "visibility must be ...; hidden is not a field" }), named("hidden")).offered).toBe(false);
    expect(decideField("hidden", visibility, json(422, { message: "something else" }), named("hidden")).offered).toBe("unknown");
  });
});
