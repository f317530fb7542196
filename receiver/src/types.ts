/** Types of the `interview.completed` webhook, straight from the contract. */
import type { components } from "../../generated/api.d.ts";

export type InterviewCompletedEvent = components["schemas"]["InterviewCompletedEvent"];
export type InterviewCompletedData = components["schemas"]["InterviewCompletedData"];

/** Why a delivery was rejected. */
export type VerifyFailureReason =
  | "missing_signature"
  | "malformed_signature"
  | "no_secrets"
  | "empty_secret"
  | "signature_mismatch";

export type VerifyResult = { ok: true; secretIndex: number } | { ok: false; reason: VerifyFailureReason };
