/**
 * The sandbox's durable state (`--data-dir DIR`): one SQLite database, DIR/sandbox.sqlite, through
 * node-sqlite3-wasm (SQLite compiled to WebAssembly with a Node file-system VFS: nothing to compile at install).
 *
 * Why SQLite, in WAL mode with an exclusive lock: every write is a committed transaction before the call returns,
 * so a `kill -9` at any moment loses at most a write not yet acknowledged, and the next open rolls the WAL forward
 * (SQLite's own recovery), never a hand-written format to repair. Writes are synchronous, so a handler has its
 * change on disk before it answers. A lock file naming the owner's pid keeps a second process off the directory
 * (two writers are the one way to corrupt it); a lock left by a killed process is taken over.
 *
 * What is kept (see backend.ts for the shapes):
 * - `ops`: every change to the store (projects, webhooks, planted data, interview transitions, faults), replayed in
 *   order over the fixtures at the next start, and compacted as it grows (compaction.ts), so a start replays about
 *   as many changes as the state holds, not the whole history;
 * - `events`, `attempts`: webhook events with their exact bytes, and every delivery attempt (pending ones resume);
 * - `stream`: the delivery stream's events, for `Last-Event-ID` resumption;
 * - `meta`: the fixtures' time shift, secrets and the stream's epoch.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import sqlite from "node-sqlite3-wasm";
import { compact, compactionDue } from "../compaction.ts";
import type { ChangeLog, DeliveryLog, Backend, NotReady, Op, StoredAttempt, StoredEvent, StoredStreamEvent } from "../backend.ts";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS ops (seq INTEGER PRIMARY KEY AUTOINCREMENT, op TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, ord INTEGER NOT NULL, project_id TEXT NOT NULL, event TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS attempts (id TEXT PRIMARY KEY, ord INTEGER NOT NULL, project_id TEXT NOT NULL, attempt TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stream (project_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (project_id, seq));
`;

export class DataDirLocked extends Error {}

/** Takes DIR/sandbox.lock for this process; a lock whose process is gone (a `kill -9`) is taken over. */
function lock(dir: string): () => void {
  const file = join(dir, "sandbox.lock");
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = Number(readFileSync(file, "utf8").trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new DataDirLocked(`${dir} is in use by another sandbox (process ${owner}); stop it or choose another --data-dir`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new DataDirLocked(`Could not lock ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class SqliteBackend implements Backend, ChangeLog, DeliveryLog {
  readonly kind = "sqlite";
  readonly shared = false;
  readonly dir: string;
  /** Changes appended since the last compaction, and how many that compaction left. */
  private sinceCompaction = 0;
  private keptByCompaction = 0;
  private readonly db: sqlite.Database;
  private readonly unlock: () => void;
  private ord = 0;
  private readonly put: {
    op: sqlite.Statement;
    event: sqlite.Statement;
    attempt: sqlite.Statement;
    stream: sqlite.Statement;
  };

  constructor(dir: string) {
    this.dir = dir;
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    this.unlock = lock(dir);
    try {
      const file = join(dir, "sandbox.sqlite");
      // The WebAssembly VFS locks with a directory beside the file; a process killed with -9 leaves it behind. This
      // process holds sandbox.lock, so no other sandbox can be using the file: the leftover is stale.
      rmSync(`${file}.lock`, { recursive: true, force: true });
      this.db = new sqlite.Database(file);
      // The WAL needs shared memory across processes unless the lock is exclusive; one process owns the file anyway.
      this.db.all("PRAGMA locking_mode=EXCLUSIVE");
      this.db.all("PRAGMA journal_mode=WAL");
      // NORMAL in WAL mode: a committed write survives the process being killed (it is in the OS's hands); only a
      // power cut may lose the last transactions, never corrupt the file.
      this.db.all("PRAGMA synchronous=NORMAL");
      this.db.exec(SCHEMA);
      const row = this.db.get("SELECT MAX(m) AS m FROM (SELECT MAX(ord) AS m FROM events UNION ALL SELECT MAX(ord) FROM attempts)") as { m: number | null } | null;
      this.ord = Number(row?.m ?? 0);
      // A data dir written before compaction existed (or by a process killed before its compaction) is compacted
      // once here, so this start and the next replay what the state holds.
      this.sinceCompaction = Number((this.db.get("SELECT COUNT(*) AS n FROM ops") as { n: number }).n);
      this.put = {
        op: this.db.prepare("INSERT INTO ops (op) VALUES (?)"),
        event: this.db.prepare("INSERT OR REPLACE INTO events (id, ord, project_id, event) VALUES (?, ?, ?, ?)"),
        attempt: this.db.prepare("INSERT INTO attempts (id, ord, project_id, attempt) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET attempt = excluded.attempt"),
        stream: this.db.prepare("INSERT OR REPLACE INTO stream (project_id, seq, event) VALUES (?, ?, ?)"),
      };
    } catch (err) {
      this.unlock();
      throw err;
    }
  }

  get durable(): boolean {
    return true;
  }


  write<T>(fn: () => T): T {
    return fn();
  }

  /** Each statement is written as it is made (see `atomically`): nothing waits for a later commit. */
  afterCommit(fn: () => void): void {
    fn();
  }

  ready(): Promise<NotReady | null> {
    return Promise.resolve(this.db.isOpen ? null : { reason: "the data dir's database is closed" });
  }


  append(op: Op): void {
    this.put.op.run([JSON.stringify(op)]);
    this.sinceCompaction++;
    // In the caller's transaction when there is one: a compaction is all or nothing with the change that asked for it.
    if (compactionDue(this.sinceCompaction, this.keptByCompaction)) this.atomically(() => this.compact());
  }

  /** Folds the log (compaction.ts) in one transaction; returns how many changes it left. */
  compact(): number {
    const rows = (this.db.all("SELECT seq, op FROM ops ORDER BY seq") as Array<{ seq: number; op: string }>).map((r) => ({ seq: Number(r.seq), op: JSON.parse(r.op) as Op }));
    const plan = compact(rows);
    const rewrite = this.db.prepare("UPDATE ops SET op = ? WHERE seq = ?");
    const drop = this.db.prepare("DELETE FROM ops WHERE seq = ?");
    try {
      this.atomically(() => {
        for (const r of plan.rewrite) rewrite.run([JSON.stringify(r.op), r.seq]);
        for (const seq of plan.drop) drop.run([seq]);
      });
    } finally {
      rewrite.finalize();
      drop.finalize();
    }
    this.sinceCompaction = 0;
    this.keptByCompaction = plan.kept;
    return plan.kept;
  }

  ops(): Op[] {
    if (compactionDue(this.sinceCompaction, this.keptByCompaction)) this.compact();
    return (this.db.all("SELECT op FROM ops ORDER BY seq") as Array<{ op: string }>).map((r) => JSON.parse(r.op) as Op);
  }

  getMeta(key: string): string | undefined {
    const row = this.db.get("SELECT value FROM meta WHERE key = ?", [key]) as { value: string } | null;
    return row?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value]);
  }

  putEvent(e: StoredEvent): void {
    this.put.event.run([e.id, ++this.ord, e.project_id, JSON.stringify(e)]);
  }

  dropEvent(id: string): void {
    this.db.run("DELETE FROM events WHERE id = ?", [id]);
  }

  events(): StoredEvent[] {
    return (this.db.all("SELECT event FROM events ORDER BY ord") as Array<{ event: string }>).map((r) => JSON.parse(r.event) as StoredEvent);
  }

  putAttempt(a: StoredAttempt): void {
    this.put.attempt.run([a.record.id, ++this.ord, a.project_id, JSON.stringify(a)]);
  }

  dropAttempt(id: string): void {
    this.db.run("DELETE FROM attempts WHERE id = ?", [id]);
  }

  attempts(): StoredAttempt[] {
    return (this.db.all("SELECT attempt FROM attempts ORDER BY ord") as Array<{ attempt: string }>).map((r) => JSON.parse(r.attempt) as StoredAttempt);
  }

  putStreamEvent(s: StoredStreamEvent): void {
    this.put.stream.run([s.project_id, s.event.seq, JSON.stringify(s.event)]);
  }

  dropStreamEvents(projectId: string, throughSeq: number): void {
    this.db.run("DELETE FROM stream WHERE project_id = ? AND seq <= ?", [projectId, throughSeq]);
  }

  streamEvents(): StoredStreamEvent[] {
    const rows = this.db.all("SELECT project_id, event FROM stream ORDER BY project_id, seq") as Array<{ project_id: string; event: string }>;
    return rows.map((r) => ({ project_id: r.project_id, event: JSON.parse(r.event) }));
  }

  /** Several writes as one transaction: all of them survive a kill, or none. */
  atomically<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.db.exec("COMMIT");
      return out;
    } catch (err) {
      this.db.exec("ROLLBACK");
      throw err;
    }
  }

  /** `PRAGMA integrity_check` (tests and the start-up check). */
  integrity(): string {
    const row = this.db.get("PRAGMA integrity_check") as Record<string, string> | null;
    return row ? Object.values(row)[0] : "no answer";
  }

  close(): void {
    if (!this.db.isOpen) return;
    for (const s of Object.values(this.put)) s.finalize();
    // A checkpoint folds the WAL into the database file, so a clean stop leaves one file.
    this.db.all("PRAGMA wal_checkpoint(TRUNCATE)");
    this.db.close();
    this.unlock();
  }
}
