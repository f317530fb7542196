/**
 * Every assertion of the suite names a rule, and every rule names its source:
 * - `seed`: the service description states it (`cite` names the section), so any implementation must follow it;
 * - `contract`: a choice our contract pins where the seed is silent or open (error envelope, tie order, ...).
 * `--level seed` enforces seed rules only and reports contract differences as warnings; `--level contract`
 * (the default) enforces both. The README's rules table is generated from these definitions.
 */
export type Level = "seed" | "contract";

export interface Rule {
  /** `check.name` plus a short key, e.g. `pagination.each-once`. */
  id: string;
  level: Level;
  /** Seed section the rule comes from (seed rules), or what the contract pins (contract rules). */
  source: string;
  /** What must hold, in one sentence. */
  text: string;
  /** Seed rules: the ids of the seed statements they enforce (seed/statements.ts); contract rules cite none. */
  cites: string[];
}

/** Declares a check's rules, keyed by their short name; ids are `<check>.<key>`. */
export function rules<K extends string>(check: string, defs: Record<K, Omit<Rule, "id">>): Record<K, Rule> {
  const out = {} as Record<K, Rule>;
  for (const key of Object.keys(defs) as K[]) out[key] = { id: `${check}.${key}`, ...defs[key] };
  return out;
}

/** The rules a run exercised, failed and warned about, by level, summed over its results. */
export function levelTotals(results: Array<{ levels: Record<Level, { checked: number; failed: number }>; warnings: Array<{ level: Level }> }>): Record<Level, { checked: number; failed: number; warned: number }> {
  const levels = { seed: { checked: 0, failed: 0, warned: 0 }, contract: { checked: 0, failed: 0, warned: 0 } };
  for (const r of results) {
    for (const l of ["seed", "contract"] as const) {
      levels[l].checked += r.levels[l].checked;
      levels[l].failed += r.levels[l].failed;
    }
    for (const w of r.warnings) levels[w.level].warned++;
  }
  return levels;
}

export const seed = (source: string, text: string, cites: string[]): Omit<Rule, "id"> => ({ level: "seed", source: `seed: ${source}`, text, cites });
export const contract = (source: string, text: string): Omit<Rule, "id"> => ({ level: "contract", source: `contract: ${source}`, text, cites: [] });
