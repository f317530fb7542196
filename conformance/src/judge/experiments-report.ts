/**
 * The deprecated report's counts in the seed's terms ("project-level usage and per-experiment interview stats"): read
 * through a states module's `readExperiments` when it has one, else through our contract's shape. A body of another
 * shape with no reader yields nothing, and its counts go unjudged.
 */
import type { ExperimentReading, ExperimentsReading } from "../states/types.ts";

// Our contract requires every count: one missing or not a number reads null, and is judged (never left unjudged).
const num = (v: unknown): number | null => (typeof v === "number" ? v : null);

/** Our contract's `experiments_report`: usage's three counts, and each entry of `data` with its stats. */
export function contractReading(body: unknown): ExperimentsReading | undefined {
  const b = body as { object?: unknown; usage?: Record<string, unknown>; data?: unknown } | null;
  if (b?.object !== "experiments_report" || !Array.isArray(b.data)) return undefined;
  return {
    ...(b.usage !== null && typeof b.usage === "object" ? { usage: { total: num(b.usage.interviews_total), this_month: num(b.usage.interviews_this_month), this_week: num(b.usage.interviews_this_week) } } : {}),
    experiments: b.data.map((e: any): ExperimentReading => ({
      id: e?.id,
      study: { name: e?.name, interview_link: e?.interview_link, accepting_responses: e?.accepting_responses, limits: e?.limits },
      interviews: { total: num(e?.interviews?.total), started: num(e?.interviews?.started), processing: num(e?.interviews?.processing), completed: num(e?.interviews?.completed) },
      quality: { insightful: num(e?.quality?.insightful), successful: num(e?.quality?.successful), unsuccessful: num(e?.quality?.unsuccessful) },
    })),
  };
}

/** Of a reading's members, those it reports (a count left undefined is not reported, and not judged). */
export function reported<T extends Record<string, unknown>>(counts: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(counts ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Where a reading's counts differ from the prediction: each reported count that is not the predicted one, as
 * `path: got N, predicted M`, and each the reading reports as absent (null) whatever the prediction; empty when they
 * agree. A prediction left undefined is not judged.
 */
export function countDifferences(got: Record<string, unknown> | undefined, want: Record<string, number | undefined>, path: string): string[] {
  const seen = reported(got);
  const absent = Object.keys(seen).filter((k) => seen[k] === null).map((k) => `${path}.${k}: absent (the reading maps it to null)`);
  return [
    ...absent,
    ...Object.entries(want)
      .filter(([k, v]) => v !== undefined && k in seen && seen[k] !== null && seen[k] !== v)
      .map(([k, v]) => `${path}.${k}: got ${JSON.stringify(seen[k])}, predicted ${v}`),
  ];
}

/** The study's retrieval cut to the fields a reading shows as on it (`reported(entry.study)`): what they must equal. */
export function asOnStudy(shown: Record<string, unknown>, study: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.keys(shown).map((k) => [k, (study as Record<string, unknown> | null)?.[k]]));
}
