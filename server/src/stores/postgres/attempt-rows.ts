/**
 * The rows of dispatcher.ts: attempts and events as PostgreSQL holds them (server/migrations), the delivery record
 * an attempt row answers as, and the two statements that make the queue: a new attempt, and the fair claim.
 */
import { iso } from "../../clock.ts";
import { INTERVIEW_COMPLETED } from "../../webhooks/payload.ts";
import type { WebhookDelivery } from "../../webhooks/types.ts";
import type { StoredEvent } from "../journal.ts";

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
}

/** An `events` row: the journal's stored event with its tenant, headers as JSON text. */
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
 * Due attempts this process may claim, fairly: each ranked within its project, then within its tenant, minus what
 * every process has on the wire for that project and tenant; slots go round the tenants first (rank 1 of every
 * tenant, then rank 2...). Rows another process is finishing are skipped, not waited for. $1 now, $2 the cap per
 * project, $3 per tenant, $4 this process's free slots.
 */
export const CLAIM_DUE = `WITH fly AS (SELECT tenant, project_id FROM attempts WHERE status = 'in_flight'),
             ft AS (SELECT tenant, COUNT(*) AS n FROM fly GROUP BY tenant),
             fp AS (SELECT project_id, COUNT(*) AS n FROM fly GROUP BY project_id),
             due AS (SELECT id, tenant, project_id, scheduled_ms, ord,
                       ROW_NUMBER() OVER (PARTITION BY project_id ORDER BY scheduled_ms, ord) AS rp
                     FROM attempts WHERE status = 'pending' AND scheduled_ms <= $1),
             okp AS (SELECT d.* FROM due d LEFT JOIN fp ON fp.project_id = d.project_id WHERE d.rp + COALESCE(fp.n, 0) <= $2),
             rt AS (SELECT okp.*, ROW_NUMBER() OVER (PARTITION BY tenant ORDER BY rp, scheduled_ms, ord) AS rtn FROM okp),
             okt AS (SELECT rt.* FROM rt LEFT JOIN ft ON ft.tenant = rt.tenant WHERE rt.rtn + COALESCE(ft.n, 0) <= $3)
             SELECT a.id FROM attempts a JOIN okt ON okt.id = a.id
             ORDER BY okt.rtn, okt.scheduled_ms, okt.ord LIMIT $4 FOR UPDATE OF a SKIP LOCKED`;
