/**
 * The projects callers authenticate as: the fixtures' (the contract's, in every process) and the ones created through
 * `POST /_sim/projects`. Memory and SQLite keep the created ones in the process (stores/memory/projects.ts); several
 * processes on one PostgreSQL keep them in its `projects` table (stores/postgres/projects.ts), so a project created
 * through one process authenticates on every other at once.
 */
import type { Project } from "../model/project.ts";

export interface CreatedProject {
  project: Project;
  /** The keys, shown once, in the creation's answer. */
  apiKey: string;
  publicKey: string;
}

export interface Projects {
  /** The project whose secret API key (`kind` "secret") or public SDK key ("public") is `key`; undefined for none. */
  byKey(kind: "secret" | "public", key: string): Project | undefined | Promise<Project | undefined>;
  /** A project by its id (the claims of due timers and attempts name theirs); undefined for none. */
  byId(id: string): Project | undefined | Promise<Project | undefined>;
  /**
   * A new empty project of `tenant` with fresh keys, in the change in progress; a 409 when the organisation already
   * created `cap` projects.
   */
  create(name: string, tenant: string, cap: number, createdAt: string): Promise<CreatedProject>;
}

/** The 409 of an organisation past its cap of created projects. */
export const projectsCapMessage = (cap: number) =>
  `This organisation already created ${cap} projects on this sandbox (--max-projects); use one of them, or start the sandbox with a fresh data dir`;
