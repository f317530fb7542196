/**
 * Laws every implementation of the success metrics must obey, as fast-check properties over small random
 * experiments. Run against our engine by the server's tests and against any engine by the conformance suite
 * (`--metrics-engine MODULE`). Each law names the rule it protects.
 */
import fc from "fast-check";
import { BASE_MS, HOUR, VARIANTS, dataArb, eventArb, iso, windowArb } from "./arbitraries.ts";
import type { Data, Definition, MetricsEngine, Result } from "./engine.ts";
import { excludedCount, perUser } from "./oracle.ts";

const EPS = 1e-9;
export interface Law {
  name: string;
  property: fc.IPropertyWithHooks<any>;
}

const close = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined ? b === null || b === undefined : b !== null && b !== undefined && Math.abs(a - b) <= EPS * Math.max(1, Math.abs(a), Math.abs(b)));
const sameValues = (a: Result, b: Result) => VARIANTS.every((v) => close(a.variants[v]?.value, b.variants[v]?.value) && (a.variants[v]?.denominator ?? 0) === (b.variants[v]?.denominator ?? 0));

function fail(message: string, detail: unknown): never {
  throw new Error(`${message}: ${JSON.stringify(detail)}`);
}

export function metricLaws(engine: MetricsEngine): Law[] {
  const run = (def: Definition, data: Data) => engine.computeMetric(def, data, { variants: [...VARIANTS] });
  const conv = (data: Data, window_days?: number) => run({ type: "conversion", event: "purchase", window_days }, data);
  const epu = (data: Data, window_days?: number) => run({ type: "events_per_user", event: "purchase", window_days }, data);
  const epad = (data: Data, window_days?: number) => run({ type: "events_per_user_per_active_day", event: "purchase", window_days }, data);
  const ret = (data: Data, threshold: number, window_days: number) => run({ type: "retention", event: "purchase", threshold, window_days }, data);

  return [
    {
      name: "conversion lies in [0, 1], and is null exactly when nobody was exposed",
      property: fc.property(dataArb, windowArb, (data, w) => {
        const r = conv(data, w);
        for (const v of VARIANTS) {
          const x = r.variants[v];
          if (x.denominator === 0 ? x.value !== null : !(x.value! >= 0 && x.value! <= 1)) fail("out of range", { variant: v, x });
        }
      }),
    },
    {
      name: "denominators are the distinct exposed users, users with two variants excluded and counted",
      property: fc.property(dataArb, (data) => {
        const users = perUser(data, "purchase");
        const r = conv(data);
        for (const v of VARIANTS) {
          const want = [...users.values()].filter((u) => u.variant === v).length;
          if (r.variants[v].denominator !== want) fail("denominator", { variant: v, got: r.variants[v].denominator, want });
        }
        if (r.excluded_users !== excludedCount(data)) fail("excluded_users", { got: r.excluded_users, want: excludedCount(data) });
      }),
    },
    {
      name: "conversion is unchanged by duplicating any event or exposure row, or by shuffling the input",
      property: fc.property(dataArb, fc.nat(), fc.nat(), windowArb, (data, i, j, w) => {
        const base = conv(data, w);
        const dupEvents = data.events.length ? { ...data, events: [...data.events, data.events[i % data.events.length]] } : data;
        const dupExposures = data.exposures.length ? { ...data, exposures: [...data.exposures, data.exposures[j % data.exposures.length]] } : data;
        const shuffled = { exposures: [...data.exposures].reverse(), events: [...data.events].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1)) };
        for (const other of [dupEvents, dupExposures, shuffled]) if (!sameValues(base, conv(other, w))) fail("changed", { base, other: conv(other, w) });
      }),
    },
    {
      name: "retention(k) is non-increasing in k, and retention(1) equals conversion over the same window",
      property: fc.property(dataArb, fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 5 }), (data, w, k) => {
        const a = ret(data, k, w);
        const b = ret(data, k + 1, w);
        for (const v of VARIANTS) if (a.variants[v].value !== null && b.variants[v].value! > a.variants[v].value! + EPS) fail("increased", { v, k, a, b });
        if (!sameValues(ret(data, 1, w), conv(data, w))) fail("retention(1) != conversion", { w });
      }),
    },
    {
      name: "conversion <= events per user, and events per user per active day <= events per user",
      property: fc.property(dataArb, windowArb, (data, w) => {
        const c = conv(data, w);
        const e = epu(data, w);
        const d = epad(data, w);
        for (const v of VARIANTS) {
          if (e.variants[v].value === null) continue;
          if (c.variants[v].value! > e.variants[v].value! + EPS) fail("conversion > events per user", { v, c, e });
          if (d.variants[v].value! > e.variants[v].value! + EPS) fail("per active day > per user", { v, d, e });
        }
      }),
    },
    {
      name: "events per user is the mean of per-user counts with zeros; per active day the mean of count / active days",
      property: fc.property(dataArb, windowArb, (data, w) => {
        const users = [...perUser(data, "purchase", w).values()];
        const e = epu(data, w);
        const d = epad(data, w);
        for (const v of VARIANTS) {
          const mine = users.filter((u) => u.variant === v);
          const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);
          if (!close(e.variants[v].value, mean(mine.map((u) => u.count)))) fail("events per user", { v, got: e.variants[v], users: mine });
          if (!close(d.variants[v].value, mean(mine.map((u) => (u.count ? u.count / u.days : 0))))) fail("per active day", { v, got: d.variants[v], users: mine });
        }
      }),
    },
    {
      name: "events of users never exposed change nothing",
      property: fc.property(dataArb, fc.array(eventArb, { minLength: 1, maxLength: 10 }), windowArb, (data, extra, w) => {
        const stranger = { ...data, events: [...data.events, ...extra.map((e) => ({ ...e, user_id: `stranger_${e.user_id}` }))] };
        for (const f of [conv, epu, epad]) if (!sameValues(f(data, w), f(stranger, w))) fail("changed", { f: f.name });
      }),
    },
    {
      name: "adding an exposed user with no events lowers or keeps every metric of its variant",
      property: fc.property(dataArb, fc.constantFrom(...VARIANTS), fc.integer({ min: 0, max: 480 }), windowArb, (data, v, h, w) => {
        const more = { ...data, exposures: [...data.exposures, { user_id: "newcomer", variant: v, exposed_at: iso(BASE_MS + h * HOUR) }] };
        for (const f of [conv, epu, epad]) {
          const before = f(data, w).variants[v];
          const after = f(more, w).variants[v];
          if (after.denominator !== before.denominator + 1) fail("denominator", { before, after });
          if (before.value !== null && after.value! > before.value + EPS) fail("increased", { before, after });
        }
      }),
    },
    {
      name: "moving a counted event before its user's exposure removes it",
      property: fc.property(dataArb, fc.nat(), (data, i) => {
        const users = perUser(data, "purchase");
        const counted = data.events.map((e, n) => [e, n] as const).filter(([e]) => e.event === "purchase" && users.has(e.user_id) && Date.parse(e.timestamp) >= users.get(e.user_id)!.exposedMs);
        if (counted.length === 0) return;
        const [e, n] = counted[i % counted.length];
        const u = users.get(e.user_id)!;
        const moved = { ...data, events: data.events.map((x, k) => (k === n ? { ...x, timestamp: iso(u.exposedMs - HOUR) } : x)) };
        const before = epu(data).variants[u.variant].numerator;
        const after = epu(moved).variants[u.variant].numerator;
        if (after !== before - 1) fail("not removed", { before, after, event: e });
      }),
    },
    {
      name: "nobody exposed gives null for every metric, never 0 or NaN",
      property: fc.property(fc.array(eventArb, { maxLength: 20 }), fc.integer({ min: 1, max: 5 }), (events, k) => {
        const data = { exposures: [], events };
        for (const r of [conv(data), epu(data), epad(data), ret(data, k, 7)]) {
          for (const v of VARIANTS) if (r.variants[v].value !== null || r.variants[v].denominator !== 0) fail("not null", r.variants[v]);
        }
      }),
    },
  ];
}
