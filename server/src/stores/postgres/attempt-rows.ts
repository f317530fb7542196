/**
 * The rows of deliveries.ts: attempts and events as PostgreSQL holds them (server/migrations), the delivery record
 * an attempt row answers as, and the two statements that make the queue: a new attempt, and the fair claim.
 */
import { iso } from "../../clock.ts";
import { INTERVIEW_COMPLETED } from "../../webhooks/payload.ts";
import type { WebhookDelivery } from "../../webhooks/types.ts";
import type { StoredEvent } from "../backend.ts";

export interface AttemptRow {
  id: string;
  tenant: string;
  project_id: string;
  event_id: string;
  interview_id: string;
  attempt: number;
  trigger: WebhookDelivery["trigger"];
  url: string;
  status: WebhookDelivery["status"];
  response_status: number | null;
  error: string | null;
  scheduled_ms: string;
  sent_ms: string | null;
  finished_ms: string | null;
  /** The process that claimed it, and until when (its lease). */
  owner: string | null;
  lease_ms: string | null;
}

/** An `events` row: the backend's stored event with its tenant, headers as JSON text. */
export type EventRow = Omit<StoredEvent, "headers"> & { tenant: string; headers: string };

const ms = (v: string | null) => (v === null ? null : iso(Number(v)));

export function recordOf(r: AttemptRow): WebhookDelivery {
  return {
    id: r.id,
    object: "webhook_delivery",
    event_id: r.event_id,
    event: INTERVIEW_COMPLETED,
    interview_id: r.interview_id,
    attempt: r.attempt,
    trigger: r.trigger,
    url: r.url,
    status: r.status,
    response_status: r.response_status,
    error: r.error,
    scheduled_at: iso(Number(r.scheduled_ms)),
    sent_at: ms(r.sent_ms),
    finished_at: ms(r.finished_ms),
  };
}

export const INSERT_ATTEMPT = `INSERT INTO attempts (id, tenant, project_id, event_id, interview_id, attempt, trigger, url, status, scheduled_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9)`;

/**
 * The tenants with due attempts, read once; a tenant's first due attempt adds its row to delivery_tenants, which
 * claims lock. $1 now.
 */
export const DUE_TENANTS = `WITH due AS (SELECT DISTINCT tenant FROM attempts WHERE status = 'pending' AND scheduled_ms <= $1),
  added AS (INSERT INTO delivery_tenants (tenant) SELECT tenant FROM due ON CONFLICT (tenant) DO NOTHING)
  SELECT tenant FROM due`;

/**
 * Of the due tenants ($1), the rows locked for this claim, with when each was last served (`served`, a turn number);
 * a tenant another process is claiming for is skipped, not waited for (that process claims for it; its attempts left
 * due make this one look again soon).
 */
export const CLAIM_TENANTS = "SELECT tenant, served FROM delivery_tenants WHERE tenant = ANY($1::text[]) FOR UPDATE SKIP LOCKED";

/** When each of the projects ($1) was last served (none yet: 0); written under their tenants' row locks. */
export const PROJECT_TURNS = "SELECT project_id, served FROM delivery_projects WHERE project_id = ANY($1::text[])";

/** The turn numbers of this claim: the tenants ($1, $2) and projects ($3, $4) it served, each at its last slot's. */
export const SERVED = `WITH t AS (UPDATE delivery_tenants d SET served = v.s FROM unnest($1::text[], $2::bigint[]) AS v(t, s) WHERE d.tenant = v.t)
  INSERT INTO delivery_projects (project_id, served) SELECT * FROM unnest($3::text[], $4::bigint[])
  ON CONFLICT (project_id) DO UPDATE SET served = excluded.served`;

/**
 * The due attempts of the claimed tenants ($3): of each project, its oldest due ones, up to the cap per project (the
 * line the fair queue takes them from, oldest first); rows locked otherwise (a cancellation) are skipped. Which of
 * them go now is webhooks/fair-queue.ts's rule, the one the dispatcher of one process applies. $1 now, $2 the cap per
 * project.
 */
export const DUE_CANDIDATES = `SELECT a.id, a.tenant, a.project_id FROM attempts a
  JOIN (SELECT id, ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY scheduled_ms, ord) AS rp
        FROM attempts WHERE status = 'pending' AND scheduled_ms <= $1 AND tenant = ANY($3::text[])) AS due ON due.id = a.id
  WHERE due.rp <= $2 ORDER BY a.scheduled_ms, a.ord FOR UPDATE OF a SKIP LOCKED`;

/** What every process has on the wire for the claimed tenants ($1), per tenant and project (the caps count them all). */
export const ON_THE_WIRE = "SELECT tenant, project_id, COUNT(*)::int AS n FROM attempts WHERE status = 'in_flight' AND tenant = ANY($1::text[]) GROUP BY tenant, project_id";
