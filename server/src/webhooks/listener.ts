/**
 * The listener side of the sandbox (`api-sandbox listen`): a signing secret per project that listeners sign their
 * forwards with, so the user's verification code runs unchanged whether or not a webhook is configured. Created on
 * first use and written to the backend, so it stays the same across listener restarts, and across sandbox restarts
 * with a data dir.
 */
import { randomBytes } from "node:crypto";
import type { ChangeLog } from "../stores/backend.ts";
import type { Project } from "../model/project.ts";

/** A fresh listener secret. */
export const newListenerSecret = () => `whsec_${randomBytes(24).toString("hex")}`;

/** The project's listener secret as a store of one process keeps it (PostgreSQL's: stores/postgres/listeners.ts). */
export function listenerSecret(project: Project, backend: ChangeLog): string {
  if (project.listenerSecret) return project.listenerSecret;
  const secret = newListenerSecret();
  backend.append({ kind: "listener.secret", project_id: project.id, secret });
  project.listenerSecret = secret;
  return secret;
}
