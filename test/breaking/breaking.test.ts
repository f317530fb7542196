// The breaking-change check: it tells breaking from compatible changes of the contract, allows breaking ones
// only with a major version bump, and the working contract passes it against git's previous version.
import { describe, expect, it } from "vitest";
import { loadOpenApi } from "../../lib/openapi-ajv.ts";
import { baseline, checkBreaking } from "../../scripts/breaking/check.ts";

const doc = loadOpenApi();
const edit = (f: (d: any) => void) => {
  const d = structuredClone(doc);
  f(d);
  return d;
};

describe("breaking-change check", () => {
  it("finds nothing between a document and itself", () => {
    expect(checkBreaking(doc, doc)).toMatchObject({ breaking: [], ok: true });
  });

  it.each([
    ["removing a path", (d: any) => delete d.paths["/v1/releases"]],
    ["removing a response field", (d: any) => {
      const s = d.components.schemas.StudySummary;
      delete s.properties.interview_link;
      s.required = s.required.filter((x: string) => x !== "interview_link");
    }],
    ["adding a required request field", (d: any) => {
      const s = d.components.schemas.WebhookInput;
      s.properties.secret_hint = { type: "string" };
      s.required.push("secret_hint");
    }],
    ["narrowing a parameter's range", (d: any) => void (d.components.parameters["PaginationParams.limit"].schema.maximum = 50)],
  ])("flags %s as breaking", (_name, change) => {
    const r = checkBreaking(doc, edit(change));
    expect(r.breaking.length).toBeGreaterThan(0);
    expect(r.ok).toBe(false);
  });

  it("accepts an added optional response field", () => {
    const r = checkBreaking(doc, edit((d) => void (d.components.schemas.ChatSummary.properties.pinned = { type: "boolean" })));
    expect(r.breaking).toEqual([]);
    expect(r.other.length).toBeGreaterThan(0);
    expect(r.ok).toBe(true);
  });

  it("allows a breaking change with a major version bump", () => {
    const r = checkBreaking(doc, edit((d) => {
      delete d.paths["/v1/experiments"];
      d.info.version = `${Number.parseInt(String(d.info.version).split(".")[0], 10) + 1}.0.0`;
    }));
    expect(r.breaking.length).toBeGreaterThan(0);
    expect(r.majorBumped).toBe(true);
    expect(r.ok).toBe(true);
  });

  it("the working contract has no unversioned breaking change against git's previous version", () => {
    const base = baseline();
    if (base.doc === null) return; // the first commit of the contract has nothing to compare with
    const r = checkBreaking(base.doc, doc);
    expect(r.breaking.map((c) => `${c.action} ${c.path}`), `compared with ${base.ref}`).toEqual(r.majorBumped ? r.breaking.map((c) => `${c.action} ${c.path}`) : []);
  });
});
