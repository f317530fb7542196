/**
 * What the tables of several processes on one PostgreSQL start with: the fixtures' studies, interviews, chats,
 * messages and releases, written in batches by the first start of their seed (later starts find them, as they have changed since),
 * and every change an older version of the sandbox kept in its change log (of studies, interviews, chats, prompt
 * events, created projects, webhooks, listener secrets and forwards), moved into their tables in their order and
 * dropped from the log, which nothing writes any more. Processes starting together do it one at a time; the second finds nothing to do.
 */
import type { StoredChat, StoredInterview, StoredMessage, StoredRelease, StoredStudy } from "../../../../fixtures/types.ts";
import { chatRows, insertChats, insertRows } from "./chats.ts";
import type { Op } from "../backend.ts";
import { digest } from "../../http/auth.ts";
import { FORWARDS_KEPT } from "../../model/project.ts";
import { SET_WEBHOOK } from "./webhook-settings.ts";
import type { PgBackend } from "./backend.ts";

/** The advisory lock the seeding holds: processes starting together seed one at a time. */
const SEED_LOCK = 7_724_120_003;

const MOVED = [
  "study.planted", "chat.planted", "prompt.recorded", "interview.created", "interview.changed", "interview.abandoned",
  "project.created", "webhook.set", "webhook.deleted", "listener.secret", "forward.recorded",
];

export interface Fixtures {
  /** The generator's seed: what tells one dataset from another (the default fixtures, or generated ones). */
  seed: number;
  studies: readonly StoredStudy[];
  interviews: readonly StoredInterview[];
  chats: readonly StoredChat[];
  messages: readonly StoredMessage[];
  releases: readonly StoredRelease[];
}

export async function seedFixtures(backend: PgBackend, fixtures: Fixtures): Promise<void> {
  await backend.write(async () => {
    await backend.query("SELECT pg_advisory_xact_lock($1)", [SEED_LOCK]);
    // Fixtures of this seed written by an earlier start: nothing to write again (a million generated rows would cost
    // minutes, and a generated dataset's ids differ at each generation: the database keeps the first start's).
    const signature = String(fixtures.seed);
    // Each set is written under its own mark: the releases have one since they have a table, so a database whose
    // other fixtures an older version wrote gets them at its next start.
    const once = async (mark: string, write: () => Promise<void>) => {
      const { rows: written } = await backend.query<{ value: string }>("SELECT value FROM meta WHERE key = $1", [mark]);
      if (written[0]?.value === signature) return;
      await write();
      await backend.query("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [mark, signature]);
    };
    const docs = (table: "studies" | "interviews" | "releases", rows: readonly object[]) =>
      insertRows(backend, `INSERT INTO ${table} (project_id, id, doc) SELECT x->>'project_id', x->>'id', x FROM jsonb_array_elements($1::jsonb) AS x ON CONFLICT DO NOTHING`, rows, true);
    await once("fixtures_in_tables", async () => {
      await docs("studies", fixtures.studies);
      await docs("interviews", fixtures.interviews);
      await insertChats(backend, chatRows(fixtures.chats, fixtures.messages), true);
    });
    await once("fixture_releases_in_tables", () => docs("releases", fixtures.releases));
    const { rows } = await backend.query<{ seq: string; op: string }>("SELECT seq, op FROM ops WHERE op::jsonb->>'kind' = ANY($1::text[]) ORDER BY seq", [MOVED]);
    for (const r of rows) {
      const op = JSON.parse(r.op) as Op;
      if (op.kind === "study.planted") {
        await backend.query("INSERT INTO studies (project_id, id, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [op.study.project_id, op.study.id, JSON.stringify(op.study)]);
      } else if (op.kind === "prompt.recorded") {
        await backend.query("INSERT INTO prompt_events (project_id, event_id, phase, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [op.project_id, op.event_id, op.phase, op.received_at]);
      } else if (op.kind === "chat.planted") {
        await insertChats(backend, chatRows([op.chat], op.messages), true);
      } else if (op.kind === "interview.created") {
        await backend.query("INSERT INTO interviews (project_id, id, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [op.interview.project_id, op.interview.id, JSON.stringify(op.interview)]);
      } else if (op.kind === "interview.changed") {
        await backend.query("UPDATE interviews SET doc = doc || $3::jsonb WHERE project_id = $1 AND id = $2", [op.project_id, op.id, JSON.stringify(op.change)]);
      } else if (op.kind === "interview.abandoned") {
        await backend.query("UPDATE interviews SET abandoned = true WHERE project_id = $1 AND id = $2", [op.project_id, op.id]);
      } else await moveProjectChange(backend, op);
    }
    // The last FORWARDS_KEPT of each project, as the process that wrote them kept.
    if (rows.length > 0) await backend.query(
      "DELETE FROM forwards f WHERE seq <= (SELECT seq FROM forwards g WHERE g.project_id = f.project_id ORDER BY seq DESC OFFSET $1 LIMIT 1)",
      [FORWARDS_KEPT],
    );
    if (rows.length > 0) await backend.query("DELETE FROM ops WHERE seq = ANY($1::bigint[])", [rows.map((r) => r.seq)]);
  });
}

/**
 * A change of a created project, its webhook, listener secret or forwards from an older version's log. A webhook's
 * version goes on as the process that wrote it counted: one per change, or the version a compacted change kept.
 */
async function moveProjectChange(backend: PgBackend, op: Op): Promise<void> {
  if (op.kind === "project.created") {
    const p = op.project;
    const { rowCount } = await backend.query(
      "INSERT INTO projects (id, name, tenant, api_key_sha256, public_key_sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
      [p.id, p.name, p.tenant, digest(p.api_key), digest(p.public_key), p.created_at],
    );
    if (rowCount === 1) {
      await backend.query("INSERT INTO tenant_projects (tenant, n, cap) VALUES ($1, 1, 1) ON CONFLICT (tenant) DO UPDATE SET n = tenant_projects.n + 1, cap = GREATEST(tenant_projects.cap, tenant_projects.n + 1)", [p.tenant]);
    }
  } else if (op.kind === "webhook.set") {
    await backend.query(SET_WEBHOOK, [op.project_id, op.url, JSON.stringify(op.events), op.secret, op.version ?? null]);
  } else if (op.kind === "webhook.deleted") {
    await backend.query(
      `INSERT INTO webhooks (project_id, version) VALUES ($1, COALESCE($2::int, 1))
       ON CONFLICT (project_id) DO UPDATE SET url = NULL, events = NULL, secret = NULL, version = COALESCE($2::int, webhooks.version + 1)`,
      [op.project_id, op.version ?? null],
    );
  } else if (op.kind === "listener.secret") {
    await backend.query("INSERT INTO listener_secrets (project_id, secret) VALUES ($1, $2) ON CONFLICT (project_id) DO UPDATE SET secret = excluded.secret", [op.project_id, op.secret]);
  } else if (op.kind === "forward.recorded") {
    await backend.query("INSERT INTO forwards (project_id, id, doc) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [op.project_id, op.forward.id, JSON.stringify(op.forward)]);
  }
}
