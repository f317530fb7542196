/**
 * Loading the embedded fixtures. Timestamps are shifted by (now - anchor) so the sandbox's data always
 * looks recent and usage windows (this week, this month) hold the interviews the generator placed there.
 */
import { readFileSync } from "node:fs";
import { assetPath } from "../../../lib/assets.ts";
import type { FixtureDataset } from "../../../fixtures/types.ts";

export const DEFAULT_DATASET_PATH = assetPath("fixtures/data/default.json");

export function readDataset(path: string = DEFAULT_DATASET_PATH): FixtureDataset {
  return JSON.parse(readFileSync(path, "utf8")) as FixtureDataset;
}

const TIMESTAMP_FIELDS = new Set([
  "created_at", "updated_at", "started_at", "completed_at", "merged_at", "last_analysis_at",
]);

function shiftTs(value: string | null, deltaMs: number): string | null {
  return value === null ? null : new Date(Date.parse(value) + deltaMs).toISOString();
}

/** Shifts every timestamp field of every record in place by `deltaMs` (a no-op for 0). */
export function shiftDataset(ds: FixtureDataset, deltaMs: number): FixtureDataset {
  if (deltaMs === 0) return ds;
  const shiftRecord = (r: Record<string, unknown>) => {
    for (const key in r) if (TIMESTAMP_FIELDS.has(key)) r[key] = shiftTs(r[key] as string | null, deltaMs);
  };
  for (const list of [ds.studies, ds.interviews, ds.releases, ds.chats, ds.messages] as Array<Array<Record<string, unknown>>>) {
    for (const r of list) shiftRecord(r);
  }
  ds.anchor = new Date(Date.parse(ds.anchor) + deltaMs).toISOString();
  return ds;
}
