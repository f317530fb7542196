// The delivery core's cases (../delivery-core-cases.ts) over PostgreSQL's attempt queue: the same rules, to the
// millisecond on a manual clock, with the attempts as rows claimed FOR UPDATE SKIP LOCKED. A database per case.
import { afterAll, beforeAll } from "vitest";
import type { Projects } from "../../src/stores/projects.ts";
import { PgBackend } from "../../src/stores/postgres/backend.ts";
import { PgDeliveries } from "../../src/stores/postgres/deliveries.ts";
import { deliveryCoreCases } from "../delivery-core-cases.ts";
import { startPostgres, type Postgres } from "./postgres.ts";

let db: Postgres;
let n = 0;

beforeAll(async () => {
  db = await startPostgres();
}, 60_000);

afterAll(() => db?.stop());

deliveryCoreCases("PostgreSQL's queue", async ({ caps, attemptsKept, eventsKept, projects, cut }) => {
  const backend = await PgBackend.open(db.database(`core_${++n}`), { initialMeta: {} });
  if (cut) {
    // What a process killed mid-attempt leaves: its event, and its attempt in flight with a lease that has run out.
    const e = cut.event;
    await backend.pool.query("INSERT INTO events (id, tenant, project_id, interview_id, url, secret, version, body, headers) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)", [
      e.id, cut.tenant, e.project_id, e.interview_id, e.url, e.secret, e.version, e.body, JSON.stringify(e.headers),
    ]);
    const r = cut.record;
    await backend.pool.query(
      "INSERT INTO attempts (id, tenant, project_id, event_id, interview_id, attempt, trigger, url, status, scheduled_ms, sent_ms, lease_ms, owner) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'in_flight', $9, $9, $10, 'a process gone')",
      [r.id, cut.tenant, e.project_id, e.id, r.interview_id, r.attempt, r.trigger, r.url, Date.parse(r.scheduled_at), Date.parse(r.scheduled_at) + 6_000],
    );
  }
  // The core reads a row's project by id: these projects stand for the ones a store keeps.
  const byId = { byId: async (id: string) => projects.get(id) } as unknown as Projects;
  const queue = new PgDeliveries({ backend, projects: byId, caps, timeoutMs: 2_000, eventsKeptPerTenant: eventsKept, attemptsKeptPerProject: attemptsKept });
  return { queue, backend, close: async () => backend.close() };
});
