/**
 * Projects when several processes share one PostgreSQL: the fixtures' from the store (the contract's, the same in
 * every process), the created ones rows of `projects`, found by their key's SHA-256 or their id. A created project
 * never changes (its name, organisation and keys are fixed at creation, and nothing deletes it), so what a process has
 * read of one it may keep: at most CACHED of them, the oldest read dropped first. Nothing else of a project is held
 * here: its webhook, listener secret and forwards are rows read per request (webhook-settings.ts, listeners.ts).
 */
import pg from "pg";
import { conflict } from "../../http/errors.ts";
import { digest } from "../../http/auth.ts";
import { Project } from "../../model/project.ts";
import type { Store } from "../../model/store.ts";
import { newKeys } from "../memory/projects.ts";
import { projectsCapMessage, type CreatedProject, type Projects } from "../projects.ts";
import type { PgBackend } from "./backend.ts";

const CACHED = 10_000;
type Row = { id: string; name: string; tenant: string };

export class PgProjects implements Projects {
  /** Created projects read, by id and by "secret:"/"public:" and the key's digest in hex. */
  private readonly byIdCache = new Map<string, Project>();
  private readonly byDigestCache = new Map<string, Project>();

  constructor(
    private readonly backend: PgBackend,
    private readonly store: Store,
  ) {}

  private keep(project: Project, digestKey?: string): Project {
    for (const [map, key] of [[this.byIdCache, project.id], [this.byDigestCache, digestKey]] as const) {
      if (key === undefined) continue;
      map.set(key, project);
      if (map.size > CACHED) map.delete(map.keys().next().value!);
    }
    return project;
  }

  /** One object per project (its keys are not needed: the digests found it). */
  private project(r: Row): Project {
    return this.byIdCache.get(r.id) ?? new Project({ id: r.id, name: r.name, api_key: "", public_key: "" }, r.tenant);
  }

  async byKey(kind: "secret" | "public", key: string): Promise<Project | undefined> {
    const fixture = (kind === "public" ? this.store.publicKeys : this.store.apiKeys).find(key);
    if (fixture) return fixture;
    const hash = digest(key);
    const cacheKey = `${kind}:${hash.toString("hex")}`;
    const cached = this.byDigestCache.get(cacheKey);
    if (cached) return cached;
    const column = kind === "public" ? "public_key_sha256" : "api_key_sha256";
    const { rows } = await this.backend.query<Row>(`SELECT id, name, tenant FROM projects WHERE ${column} = $1`, [hash]);
    return rows[0] ? this.keep(this.project(rows[0]), cacheKey) : undefined;
  }

  async byId(id: string): Promise<Project | undefined> {
    const known = this.store.projects.get(id) ?? this.byIdCache.get(id);
    if (known) return known;
    const { rows } = await this.backend.query<Row>("SELECT id, name, tenant FROM projects WHERE id = $1", [id]);
    return rows[0] ? this.keep(this.project(rows[0])) : undefined;
  }

  async create(name: string, tenant: string, cap: number, createdAt: string): Promise<CreatedProject> {
    const { apiKey, publicKey, id } = newKeys();
    // The organisation's count and the project's row go with the COMMIT; past the cap, the row's own constraint refuses
    // the change (the 409).
    await this.backend.atCommit(
      "INSERT INTO tenant_projects (tenant, n, cap) VALUES ($1, 1, $2) ON CONFLICT (tenant) DO UPDATE SET n = tenant_projects.n + 1, cap = $2",
      [tenant, cap],
      async (err) => (err instanceof pg.DatabaseError && err.code === "23514" && err.constraint === "tenant_projects_within_cap" ? conflict(projectsCapMessage(cap)) : null),
    );
    await this.backend.atCommit(
      "INSERT INTO projects (id, name, tenant, api_key_sha256, public_key_sha256, created_at) VALUES ($1, $2, $3, decode($4, 'hex'), decode($5, 'hex'), $6)",
      [id, name, tenant, digest(apiKey).toString("hex"), digest(publicKey).toString("hex"), createdAt],
    );
    return { project: new Project({ id, name, api_key: "", public_key: "" }, tenant), apiKey, publicKey };
  }
}
