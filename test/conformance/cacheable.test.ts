// The caching headers rule (response.cacheable, contract.ts): what a browser's cache or a shared cache may do with an
// answer, read as RFC 9111 reads it. Only answers a cache would serve unchanged after the resource changed, or give
// to another key, are problems; revalidated and private answers of the studies are not.
import { describe, expect, it } from "vitest";
import { cacheProblem } from "../../conformance/src/contract.ts";

const reply = (headers: Record<string, string>, method = "GET", status = 200) => ({ method, status, headers: new Headers(headers) });
const judge = (headers: Record<string, string>, op = "getInterview") => cacheProblem(reply(headers), op);

describe("response.cacheable", () => {
  it("holds answers no cache serves again without asking", () => {
    expect(judge({})).toBe("");
    expect(judge({ "cache-control": "no-store" })).toBe("");
    expect(judge({ "cache-control": "no-cache" })).toBe("");
    expect(judge({ "cache-control": "private, no-cache, max-age=600" })).toBe("");
    expect(judge({ "cache-control": "max-age=0, private, must-revalidate" })).toBe("");
    // Stale at once: a shared cache that keeps it asks the service again, with the next request's key.
    expect(judge({ "cache-control": "public, max-age=0" })).toBe("");
    expect(judge({ expires: "Thu, 01 Jan 1970 00:00:00 GMT" })).toBe("");
    expect(judge({ expires: "0" })).toBe("");
    expect(judge({ etag: '"abc"' })).toBe("");
  });

  it("fails an answer kept fresh that changes: max-age, an Expires ahead, or a Last-Modified alone", () => {
    expect(judge({ "cache-control": "private, max-age=60" })).toContain("keeps this answer fresh");
    expect(judge({ expires: new Date(Date.now() + 3_600_000).toUTCString() })).toContain("Expires");
    expect(judge({ "last-modified": new Date(Date.now() - 86_400_000).toUTCString() })).toContain("a tenth of its age");
    // An explicit max-age=0 wins over the Expires and the Last-Modified beside it.
    expect(judge({ "cache-control": "max-age=0", expires: new Date(Date.now() + 3_600_000).toUTCString(), "last-modified": "Mon, 01 Jan 2024 00:00:00 GMT" })).toBe("");
  });

  it("fails an answer a shared cache may give to another key, on every operation, unless it varies on Authorization", () => {
    for (const op of ["getInterview", "listStudies"]) {
      expect(judge({ "cache-control": "public, max-age=300" }, op)).toContain("another key");
      expect(judge({ "cache-control": "max-age=0, s-maxage=600" }, op)).toContain("another key");
      expect(judge({ "cache-control": "public", expires: new Date(Date.now() + 3_600_000).toUTCString() }, op)).toContain("another key");
    }
    expect(judge({ "cache-control": "public, max-age=300", vary: "Accept-Encoding, Authorization" }, "listStudies")).toBe("");
    expect(judge({ "cache-control": "public, max-age=300", vary: "*" }, "listStudies")).toBe("");
  });

  it("lets the studies and the participant config be kept fresh, as the seed lets callers cache them", () => {
    for (const op of ["listStudies", "getStudy", "getParticipantConfig"]) expect(judge({ "cache-control": "private, max-age=300" }, op)).toBe("");
    expect(judge({ "cache-control": "private, max-age=300" }, "listChatMessages")).not.toBe("");
  });

  it("judges successful GETs only", () => {
    expect(cacheProblem(reply({ "cache-control": "public, max-age=300" }, "PUT"), "putWebhook")).toBe("");
    expect(cacheProblem(reply({ "cache-control": "public, max-age=300" }, "GET", 404), "getInterview")).toBe("");
  });
});
