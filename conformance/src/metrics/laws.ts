/**
 * Laws every implementation of the success metrics must obey, as fast-check properties over small random
 * experiments (timestamps in several zone offsets). Run against our engines by the server's tests and against any
 * engine by the conformance suite (`--metrics-engine MODULE`); an engine may answer with a promise (a database).
 * Each law names the rule it protects.
 */
import fc from "fast-check";
import { asOfArb, BASE_MS, HOUR, VARIANTS, dataArb, eventArb, iso, windowArb } from "./arbitraries.ts";
import type { Data, Definition, MetricsEngine, Result } from "./engine.ts";
import { excludedCount, perUser } from "./oracle.ts";

const EPS = 1e-9;
/** After every generated timestamp: every window has ended, so no user is immature unless a law says otherwise. */
export const LATE_AS_OF = iso(BASE_MS + 60 * 24 * HOUR);

export interface Law {
  name: string;
  property: fc.IAsyncPropertyWithHooks<any>;
}

const close = (a: number | null | undefined, b: number | null | undefined) => (a === null || a === undefined ? b === null || b === undefined : b !== null && b !== undefined && Math.abs(a - b) <= EPS * Math.max(1, Math.abs(a), Math.abs(b)));
const sameValues = (a: Result, b: Result) => VARIANTS.every((v) => close(a.variants[v]?.value, b.variants[v]?.value) && (a.variants[v]?.denominator ?? 0) === (b.variants[v]?.denominator ?? 0));
const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);

function fail(message: string, detail: unknown): never {
  throw new Error(`${message}: ${JSON.stringify(detail)}`);
}

export function metricLaws(engine: MetricsEngine): Law[] {
  const run = async (def: Definition, data: Data, as_of = LATE_AS_OF): Promise<Result> => engine.computeMetric(def, data, { variants: [...VARIANTS], as_of });
  const conv = (data: Data, window_days?: number) => run({ type: "conversion", event: "purchase", window_days }, data);
  const epu = (data: Data, window_days?: number) => run({ type: "events_per_user", event: "purchase", window_days }, data);
  const epad = (data: Data, window_days?: number) => run({ type: "events_per_user_per_active_day", event: "purchase", window_days }, data);
  const ret = (data: Data, threshold: number, window_days: number) => run({ type: "retention", event: "purchase", threshold, window_days }, data);

  return [
    {
      name: "conversion lies in [0, 1], and is null exactly when nobody was exposed",
      property: fc.asyncProperty(dataArb, windowArb, async (data, w) => {
        const r = await conv(data, w);
        for (const v of VARIANTS) {
          const x = r.variants[v];
          if (x.denominator === 0 ? x.value !== null : !(x.value! >= 0 && x.value! <= 1)) fail("out of range", { variant: v, x });
        }
      }),
    },
    {
      name: "denominators are the distinct exposed users, users with two variants excluded and counted",
      property: fc.asyncProperty(dataArb, async (data) => {
        const users = perUser(data, "purchase");
        const r = await conv(data);
        for (const v of VARIANTS) {
          const want = [...users.values()].filter((u) => u.variant === v).length;
          if (r.variants[v].denominator !== want) fail("denominator", { variant: v, got: r.variants[v].denominator, want });
        }
        if (r.excluded_users !== excludedCount(data)) fail("excluded_users", { got: r.excluded_users, want: excludedCount(data) });
      }),
    },
    {
      name: "conversion is unchanged by duplicating any event or exposure row, or by shuffling the input",
      property: fc.asyncProperty(dataArb, fc.nat(), fc.nat(), windowArb, async (data, i, j, w) => {
        const base = await conv(data, w);
        const dupEvents = data.events.length ? { ...data, events: [...data.events, data.events[i % data.events.length]] } : data;
        const dupExposures = data.exposures.length ? { ...data, exposures: [...data.exposures, data.exposures[j % data.exposures.length]] } : data;
        const shuffled = { exposures: [...data.exposures].reverse(), events: [...data.events].sort((a, b) => (a.timestamp < b.timestamp ? 1 : -1)) };
        for (const other of [dupEvents, dupExposures, shuffled]) {
          const r = await conv(other, w);
          if (!sameValues(base, r)) fail("changed", { base, other: r });
        }
      }),
    },
    {
      name: "retention(k) is non-increasing in k, and retention(1) equals conversion over the same window",
      property: fc.asyncProperty(dataArb, fc.integer({ min: 1, max: 14 }), fc.integer({ min: 1, max: 5 }), async (data, w, k) => {
        const a = await ret(data, k, w);
        const b = await ret(data, k + 1, w);
        for (const v of VARIANTS) if (a.variants[v].value !== null && b.variants[v].value! > a.variants[v].value! + EPS) fail("increased", { v, k, a, b });
        if (!sameValues(await ret(data, 1, w), await conv(data, w))) fail("retention(1) != conversion", { w });
      }),
    },
    {
      name: "conversion <= events per user, and events per user per active day <= events per user",
      property: fc.asyncProperty(dataArb, windowArb, async (data, w) => {
        const [c, e, d] = [await conv(data, w), await epu(data, w), await epad(data, w)];
        for (const v of VARIANTS) {
          if (e.variants[v].value === null) continue;
          if (c.variants[v].value! > e.variants[v].value! + EPS) fail("conversion > events per user", { v, c, e });
          if (d.variants[v].value! > e.variants[v].value! + EPS) fail("per active day > per user", { v, d, e });
        }
      }),
    },
    {
      name: "events per user is the mean of per-user counts with zeros; per active day the mean of count / active UTC days",
      property: fc.asyncProperty(dataArb, windowArb, async (data, w) => {
        const users = [...perUser(data, "purchase", w).values()];
        const [e, d] = [await epu(data, w), await epad(data, w)];
        for (const v of VARIANTS) {
          const mine = users.filter((u) => u.variant === v);
          if (!close(e.variants[v].value, mean(mine.map((u) => u.count)))) fail("events per user", { v, got: e.variants[v], users: mine });
          if (!close(d.variants[v].value, mean(mine.map((u) => (u.count ? u.count / u.days : 0))))) fail("per active day", { v, got: d.variants[v], users: mine });
        }
      }),
    },
    {
      name: "with active_day any_event, active days are UTC dates with any event of the user, so intensity never exceeds the metric-event definition",
      property: fc.asyncProperty(dataArb, windowArb, async (data, w) => {
        const any = await run({ type: "events_per_user_per_active_day", event: "purchase", window_days: w, active_day: "any_event" }, data);
        const own = await run({ type: "events_per_user_per_active_day", event: "purchase", window_days: w, active_day: "metric_event" }, data);
        const users = [...perUser(data, "purchase", { windowDays: w, anyEventDays: true }).values()];
        for (const v of VARIANTS) {
          const mine = users.filter((u) => u.variant === v);
          if (!close(any.variants[v].value, mean(mine.map((u) => (u.count ? u.count / u.days : 0))))) fail("any-event days", { v, got: any.variants[v], users: mine });
          if (any.variants[v].value !== null && any.variants[v].value! > own.variants[v].value! + EPS) fail("any-event intensity above metric-event", { v, any: any.variants[v], own: own.variants[v] });
        }
      }),
    },
    {
      name: "as of a time, users whose window has not ended are excluded and counted, and later exposures and events do not exist",
      property: fc.asyncProperty(dataArb, fc.integer({ min: 1, max: 14 }), asOfArb, async (data, w, asOfMs) => {
        const r = await run({ type: "conversion", event: "purchase", window_days: w }, data, iso(asOfMs));
        const mature = perUser(data, "purchase", { windowDays: w, asOfMs });
        const exposed = perUser(data, "purchase", { asOfMs });
        for (const v of VARIANTS) {
          const mine = [...mature.values()].filter((u) => u.variant === v);
          if (r.variants[v].denominator !== mine.length) fail("denominator counts immature users", { v, got: r.variants[v], want: mine.length });
          if (!close(r.variants[v].value, mean(mine.map((u) => (u.count > 0 ? 1 : 0))))) fail("conversion as of", { v, got: r.variants[v], users: mine });
        }
        if (r.immature_users !== undefined && r.immature_users !== exposed.size - mature.size) fail("immature_users", { got: r.immature_users, want: exposed.size - mature.size });
        if (r.excluded_users !== excludedCount(data, asOfMs)) fail("excluded_users as of", { got: r.excluded_users, want: excludedCount(data, asOfMs) });
      }),
    },
    {
      name: "events of users never exposed change nothing",
      property: fc.asyncProperty(dataArb, fc.array(eventArb, { minLength: 1, maxLength: 10 }), windowArb, async (data, extra, w) => {
        const stranger = { ...data, events: [...data.events, ...extra.map((e) => ({ ...e, user_id: `stranger_${e.user_id}` }))] };
        for (const f of [conv, epu, epad]) if (!sameValues(await f(data, w), await f(stranger, w))) fail("changed", { f: f.name });
      }),
    },
    {
      name: "adding an exposed user with no events lowers or keeps every metric of its variant",
      property: fc.asyncProperty(dataArb, fc.constantFrom(...VARIANTS), fc.integer({ min: 0, max: 480 }), windowArb, async (data, v, h, w) => {
        const more = { ...data, exposures: [...data.exposures, { user_id: "newcomer", variant: v, exposed_at: iso(BASE_MS + h * HOUR) }] };
        for (const f of [conv, epu, epad]) {
          const before = (await f(data, w)).variants[v];
          const after = (await f(more, w)).variants[v];
          if (after.denominator !== before.denominator + 1) fail("denominator", { before, after });
          if (before.value !== null && after.value! > before.value + EPS) fail("increased", { before, after });
        }
      }),
    },
    {
      name: "moving a counted event before its user's exposure removes it",
      property: fc.asyncProperty(dataArb, fc.nat(), async (data, i) => {
        const users = perUser(data, "purchase");
        const counted = data.events.map((e, n) => [e, n] as const).filter(([e]) => e.event === "purchase" && users.has(e.user_id) && Date.parse(e.timestamp) >= users.get(e.user_id)!.exposedMs);
        if (counted.length === 0) return;
        const [e, n] = counted[i % counted.length];
        const u = users.get(e.user_id)!;
        const moved = { ...data, events: data.events.map((x, k) => (k === n ? { ...x, timestamp: iso(u.exposedMs - HOUR) } : x)) };
        const before = (await epu(data)).variants[u.variant].numerator;
        const after = (await epu(moved)).variants[u.variant].numerator;
        if (after !== before - 1) fail("not removed", { before, after, event: e });
      }),
    },
    {
      name: "nobody exposed gives null for every metric, never 0 or NaN",
      property: fc.asyncProperty(fc.array(eventArb, { maxLength: 20 }), fc.integer({ min: 1, max: 5 }), async (events, k) => {
        const data = { exposures: [], events };
        for (const r of [await conv(data), await epu(data), await epad(data), await ret(data, k, 7)]) {
          for (const v of VARIANTS) if (r.variants[v].value !== null || r.variants[v].denominator !== 0) fail("not null", r.variants[v]);
        }
      }),
    },
  ];
}
