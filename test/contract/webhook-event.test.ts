// The interview.completed webhook lives in the OpenAPI 3.1 `webhooks` section with its headers and payload.
import { describe, expect, it } from "vitest";
import { createContractAjv, describeErrors } from "../../lib/openapi-ajv.ts";

const contract = createContractAjv();
const hook = contract.doc.webhooks["interview.completed"].post;
const validate = contract.validator("#/webhooks/interview.completed/post/requestBody/content/application~1json/schema");

// Shaped exactly as the seed's Events > Body table.
const seedPayload = {
  event: "interview.completed",
  timestamp: "2026-03-02T09:15:29.001Z",
  data: {
    interview_id: "b3e2c1d0-5f4a-4b3c-8d2e-1a0f9e8d7c6b",
    study_id: "4f1c2b7e-8a3d-4c59-9e21-6b0d7a3f5c11",
    study_name: "Onboarding friction, Q1",
    session_id: "b3e2c1d0-5f4a-4b3c-8d2e-1a0f9e8d7c6b",
    experiment_id: "4f1c2b7e-8a3d-4c59-9e21-6b0d7a3f5c11",
    experiment_name: "Onboarding friction, Q1",
    interview_link: "https://interviews.example.com/s/onboarding-q1",
    status: "completed",
    started_at: "2026-03-02T09:02:11.000Z",
    completed_at: null,
    duration_secs: null,
    quality_score: null,
    language: null,
    reference_id: null,
    respondent_email: null,
    respondent_id: null,
  },
};

describe("interview.completed webhook", () => {
  it("is in `webhooks`, not in `paths`", () => {
    expect(Object.keys(contract.doc.webhooks)).toEqual(["interview.completed"]);
    expect(Object.keys(contract.doc.paths).some((p) => p.includes("webhooks/interview"))).toBe(false);
    expect(JSON.stringify(contract.doc)).not.toContain("x-webhook\"");
  });

  it("documents the event and signature headers", () => {
    const headers = Object.fromEntries(hook.parameters.filter((p: any) => p.in === "header").map((p: any) => [p.name, p]));
    expect(headers["X-Webhook-Event"].schema.enum).toEqual(["interview.completed"]);
    expect(headers["X-Webhook-Signature"].schema.pattern).toBe("^sha256=[0-9a-f]{64}$");
    expect(headers["X-Webhook-Event"].required && headers["X-Webhook-Signature"].required).toBe(true);
  });

  it("accepts the seed's payload shape", () => {
    expect(validate(seedPayload), describeErrors(validate.errors)).toBe(true);
  });

  it("rejects a payload missing interview_id", () => {
    const { interview_id: _omit, ...data } = seedPayload.data;
    expect(validate({ ...seedPayload, data })).toBe(false);
    expect(describeErrors(validate.errors)).toContain("interview_id");
  });

  it("rejects a status other than completed", () => {
    expect(validate({ ...seedPayload, data: { ...seedPayload.data, status: "started" } })).toBe(false);
  });

  it("marks the aliases deprecated", () => {
    const props = contract.doc.components.schemas.InterviewCompletedData.properties;
    for (const alias of ["session_id", "experiment_id", "experiment_name"]) expect(props[alias].deprecated).toBe(true);
    for (const field of ["interview_id", "study_id", "study_name"]) expect(props[field].deprecated).toBeUndefined();
  });
});
