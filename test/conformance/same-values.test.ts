// The covering phase's whole-response comparison (judge/same.ts): member order aside, and a timestamp member equal to
// another writing of the same instant (the seed fixes ISO 8601 in UTC, not `Z` over `+00:00`; the form is judged apart).
import { describe, expect, it } from "vitest";
import { firstDifference, same, sameInstant } from "../../conformance/src/judge/same.ts";
import { tellsMore } from "../../conformance/src/judge/tells-more.ts";

describe("whole-response comparison", () => {
  it("takes two writings of one instant as the same timestamp, and only in a timestamp member", () => {
    expect(sameInstant("2026-12-01T02:55:22.586Z", "2026-12-01T02:55:22.586+00:00")).toBe(true);
    expect(sameInstant("2026-12-01T02:55:22.586Z", "2026-12-01T02:55:22.587Z")).toBe(false);
    expect(sameInstant("2026-12-01T02:55:22.586Z", "yesterday")).toBe(false);
    expect(same({ id: "a", created_at: "2026-12-01T02:55:22.586+00:00" }, { created_at: "2026-12-01T02:55:22.586Z", id: "a" })).toBe(true);
    expect(firstDifference({ data: [{ updated_at: "2026-12-01T00:00:00.000+00:00" }] }, { data: [{ updated_at: "2026-12-01T00:00:00.000Z" }] })).toBe("");
    // Anywhere else a value is its bytes: a reference_id that reads like an instant is still compared as written.
    expect(same({ reference_id: "2026-12-01T00:00:00.000+00:00" }, { reference_id: "2026-12-01T00:00:00.000Z" })).toBe(false);
    expect(firstDifference({ created_at: "2026-12-01T00:00:00.001Z" }, { created_at: "2026-12-01T00:00:00.000Z" })).toContain("/created_at: got");
  });
});

// The isolation check's 404 comparison (checks/isolation.ts): another project's id must tell nothing that a
// never-existing id's 404 does not; what two never-existing ids' bodies differ in (a request id) is noise.

describe("a 404 that tells more than a never-existing id's", () => {
  const none = '{"status":404,"message":"There is no release with this id"}';
  it("holds bodies that agree, and bodies that differ only where two never-existing ids differ too", () => {
    expect(tellsMore(none, none, none)).toBe("");
    expect(tellsMore('{"error":{"message":"x","request_id":"a"}}', '{"error":{"message":"x","request_id":"b"}}', '{"error":{"message":"x","request_id":"c"}}')).toBe("");
    expect(tellsMore("Not Found", "Not Found", "Not Found")).toBe("");
  });
  it("names a message, a member or a text that only another project's id gets", () => {
    expect(tellsMore('{"status":404,"message":"This release belongs to another project"}', none, none)).toContain("/message is");
    expect(tellsMore('{"error":{"message":"x","owner":"p2","request_id":"a"}}', '{"error":{"message":"x","request_id":"b"}}', '{"error":{"message":"x","request_id":"c"}}')).toContain("/error/owner");
    expect(tellsMore("Forbidden: other project", "Not Found", "Not Found")).toContain("its body");
  });
});
