/**
 * Where `api-sandbox listen` keeps the last event it forwarded, per sandbox URL and key, so a listener restarted
 * after a crash resumes after it: `$API_SANDBOX_CONFIG_DIR`, else `$XDG_CONFIG_HOME/api-sandbox`, else
 * `~/.config/api-sandbox` (`%APPDATA%\api-sandbox` on Windows), file `listen-state.json`. The key itself is never
 * written: entries are named by a hash of it. Written to a temporary file and renamed, so a crash never leaves half.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

export function defaultStateFile(): string {
  const env = process.env;
  const base = env.API_SANDBOX_CONFIG_DIR
    ?? (env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "api-sandbox") : process.platform === "win32" && env.APPDATA ? join(env.APPDATA, "api-sandbox") : join(homedir(), ".config", "api-sandbox"));
  return join(base, "listen-state.json");
}

const entryOf = (baseUrl: string, apiKey: string) => `${baseUrl} ${createHash("sha256").update(apiKey).digest("hex").slice(0, 16)}`;

function readAll(file: string): Record<string, { last_event_id: string; at: string }> {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8"));
    return parsed && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

export function readLastEventId(file: string | undefined, baseUrl: string, apiKey: string): string | undefined {
  return readAll(file ?? defaultStateFile())[entryOf(baseUrl, apiKey)]?.last_event_id;
}

export function saveLastEventId(file: string | undefined, baseUrl: string, apiKey: string, id: string): void {
  const path = file ?? defaultStateFile();
  try {
    const all = readAll(path);
    all[entryOf(baseUrl, apiKey)] = { last_event_id: id, at: new Date().toISOString() };
    mkdirSync(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2));
    renameSync(tmp, path);
  } catch (err) {
    // A read-only home must not stop forwarding: the listener just cannot resume after its own restart.
    console.warn(`warning: cannot write ${path} (${(err as Error).message}); a restarted listener will not resume`);
  }
}
