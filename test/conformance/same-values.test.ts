// The covering phase's whole-response comparison (judge/same.ts): member order aside, and a timestamp member equal to
// another writing of the same instant (the seed fixes ISO 8601 in UTC, not `Z` over `+00:00`; the form is judged apart).
import { describe, expect, it } from "vitest";
import { firstDifference, same, sameInstant } from "../../conformance/src/judge/same.ts";

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
