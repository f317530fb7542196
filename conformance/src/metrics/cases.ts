/**
 * Hand-computed cases, one or more per edge rule of the metrics. The arithmetic is in each case's `why`.
 * Engine-agnostic: expected values use only `value`, `numerator`, `denominator` and `excluded_users`.
 */
import type { Data, Definition } from "./engine.ts";

export interface MetricCase {
  name: string;
  why: string;
  definition: Definition;
  data: Data;
  /** Analysis time (`as_of`); cases written without one run as of LONG_AFTER, when every window has ended. */
  options?: { as_of: string };
  expected?: { variants: Record<string, { value: number | null; numerator: number; denominator: number }>; excluded_users: number; immature_users?: number };
  /** For invalid input: the field path the error message must name. */
  errorField?: string;
}

const x = (user_id: string, variant: string, exposed_at: string) => ({ user_id, variant, exposed_at });
const e = (user_id: string, timestamp: string, event = "purchase") => ({ user_id, event, timestamp });
const D = "2026-01-05T";

/**
 * A time after every case's data and window. Given explicitly, because engines differ in their default (the wall
 * clock, or the data's last timestamp), and the seed leaves the analysis time open.
 */
export const LONG_AFTER = "2027-01-01T00:00:00Z";

const written: MetricCase[] = [
  {
    name: "conversion is zero-filled over every exposed user and ignores volume",
    why: "a fires 10 times, b never: 1 converted / 2 exposed = 0.5",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [x("a", "control", `${D}00:00:00Z`), x("b", "control", `${D}00:00:00Z`)], events: Array.from({ length: 10 }, (_, i) => e("a", `${D}0${i}:00:00Z`)) },
    expected: { variants: { control: { value: 0.5, numerator: 1, denominator: 2 } }, excluded_users: 0 },
  },
  {
    name: "events per user is a mean over everyone exposed",
    why: "a: 4 events, b: 0, c: 2 -> 6 / 3 = 2",
    definition: { type: "events_per_user", event: "purchase" },
    data: {
      exposures: [x("a", "t", `${D}00:00:00Z`), x("b", "t", `${D}00:00:00Z`), x("c", "t", `${D}00:00:00Z`)],
      events: [e("a", `${D}01:00:00Z`), e("a", `${D}02:00:00Z`), e("a", `${D}03:00:00Z`), e("a", `${D}04:00:00Z`), e("c", `${D}05:00:00Z`), e("c", `${D}06:00:00Z`)],
    },
    expected: { variants: { t: { value: 2, numerator: 6, denominator: 3 } }, excluded_users: 0 },
  },
  {
    name: "the earliest exposure counts; repeated rows are one exposure",
    why: "a exposed at 10:00 and again at 00:00 (same variant): window starts 00:00, the 05:00 event counts; 1 user",
    definition: { type: "events_per_user", event: "purchase" },
    data: { exposures: [x("a", "c", `${D}10:00:00Z`), x("a", "c", `${D}00:00:00Z`), x("a", "c", `${D}10:00:00Z`)], events: [e("a", `${D}05:00:00Z`)] },
    expected: { variants: { c: { value: 1, numerator: 1, denominator: 1 } }, excluded_users: 0 },
  },
  {
    name: "a user exposed to two variants is excluded from both and counted",
    why: "a in control and treatment -> excluded; b in control converts: control 1/1, treatment empty -> null",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [x("a", "control", `${D}00:00:00Z`), x("a", "treatment", `${D}01:00:00Z`), x("b", "control", `${D}00:00:00Z`)], events: [e("a", `${D}02:00:00Z`), e("b", `${D}02:00:00Z`)] },
    expected: { variants: { control: { value: 1, numerator: 1, denominator: 1 } }, excluded_users: 1 },
  },
  {
    name: "events before exposure and of other names do not count",
    why: "a exposed 12:00; purchase at 11:59 (before) and page_view at 13:00 (other name) -> 0 / 1",
    definition: { type: "events_per_user", event: "purchase" },
    data: { exposures: [x("a", "c", `${D}12:00:00Z`)], events: [e("a", `${D}11:59:59.999Z`), e("a", `${D}13:00:00Z`, "page_view")] },
    expected: { variants: { c: { value: 0, numerator: 0, denominator: 1 } }, excluded_users: 0 },
  },
  {
    name: "an event exactly at exposure counts",
    why: "start of the window is inclusive",
    definition: { type: "conversion", event: "purchase", window_days: 1 },
    data: { exposures: [x("a", "c", `${D}12:00:00Z`)], events: [e("a", `${D}12:00:00Z`)] },
    expected: { variants: { c: { value: 1, numerator: 1, denominator: 1 } }, excluded_users: 0 },
  },
  {
    name: "the window ends exclusive, one millisecond matters",
    why: "exposed 2026-01-05 12:00, window 2 days -> events < 2026-01-07 12:00 count: 11:59:59.999 yes, 12:00 no",
    definition: { type: "events_per_user", event: "purchase", window_days: 2 },
    data: { exposures: [x("a", "c", `${D}12:00:00Z`)], events: [e("a", "2026-01-07T11:59:59.999Z"), e("a", "2026-01-07T12:00:00.000Z")] },
    expected: { variants: { c: { value: 1, numerator: 1, denominator: 1 } }, excluded_users: 0 },
  },
  {
    name: "windows start at each user's own exposure",
    why: "window 1 day: a exposed day 1 fires day 1 (counts); b exposed day 3 fires day 2 (before) and day 3 (counts) -> 2 / 2",
    definition: { type: "events_per_user", event: "purchase", window_days: 1 },
    data: {
      exposures: [x("a", "c", "2026-01-01T00:00:00Z"), x("b", "c", "2026-01-03T00:00:00Z")],
      events: [e("a", "2026-01-01T05:00:00Z"), e("b", "2026-01-02T05:00:00Z"), e("b", "2026-01-03T05:00:00Z")],
    },
    expected: { variants: { c: { value: 1, numerator: 2, denominator: 2 } }, excluded_users: 0 },
  },
  {
    name: "events per user per active day divides each user's events by the days they were active",
    why: "a: 3 events on Jan 5 and 1 on Jan 6 -> 4 events / 2 days = 2; b: none -> 0; (2 + 0) / 2 exposed = 1",
    definition: { type: "events_per_user_per_active_day", event: "purchase" },
    data: {
      exposures: [x("a", "c", `${D}00:00:00Z`), x("b", "c", `${D}00:00:00Z`)],
      events: [e("a", `${D}10:00:00Z`), e("a", `${D}11:00:00Z`), e("a", `${D}12:00:00Z`), e("a", "2026-01-06T10:00:00Z")],
    },
    expected: { variants: { c: { value: 1, numerator: 2, denominator: 2 } }, excluded_users: 0 },
  },
  {
    name: "active days are UTC calendar dates",
    why: "a: 23:30 and 23:59 on Jan 5, 00:01 on Jan 6 (UTC) -> 3 events / 2 days = 1.5; b: none -> 0; mean 0.75",
    definition: { type: "events_per_user_per_active_day", event: "purchase" },
    data: {
      exposures: [x("a", "c", `${D}00:00:00Z`), x("b", "c", `${D}00:00:00Z`)],
      events: [e("a", `${D}23:30:00Z`), e("a", `${D}23:59:00Z`), e("a", "2026-01-06T00:01:00Z")],
    },
    expected: { variants: { c: { value: 0.75, numerator: 1.5, denominator: 2 } }, excluded_users: 0 },
  },
  {
    name: "active days use UTC even when timestamps carry an offset",
    why: "2026-01-05T23:30-02:00 is 2026-01-06T01:30Z: both events are on Jan 6 UTC -> 2 / 1 day = 2",
    definition: { type: "events_per_user_per_active_day", event: "purchase" },
    data: { exposures: [x("a", "c", `${D}00:00:00Z`)], events: [e("a", `${D}23:30:00-02:00`), e("a", "2026-01-06T05:00:00Z")] },
    expected: { variants: { c: { value: 2, numerator: 2, denominator: 1 } }, excluded_users: 0 },
  },
  {
    name: "retention counts users with at least threshold events inside the window",
    why: "threshold 2, window 7 days: a has 2 inside (retained), b 1 inside + 1 on day 8 (not), c none -> 1 / 3",
    definition: { type: "retention", event: "purchase", threshold: 2, window_days: 7 },
    data: {
      exposures: [x("a", "c", "2026-01-01T00:00:00Z"), x("b", "c", "2026-01-01T00:00:00Z"), x("c", "c", "2026-01-01T00:00:00Z")],
      events: [e("a", "2026-01-02T00:00:00Z"), e("a", "2026-01-07T23:00:00Z"), e("b", "2026-01-02T00:00:00Z"), e("b", "2026-01-08T00:00:00Z")],
    },
    expected: { variants: { c: { value: 1 / 3, numerator: 1, denominator: 3 } }, excluded_users: 0 },
  },
  {
    name: "as of a time, a user whose window is still open is excluded and counted, not a zero",
    why: "window 7 days, as of Jan 10: a and b exposed Jan 1 (mature; a converted), c exposed Jan 8 (window ends Jan 15: immature) -> 1 / 2, 1 immature",
    definition: { type: "conversion", event: "purchase", window_days: 7 },
    options: { as_of: "2026-01-10T00:00:00Z" },
    data: {
      exposures: [x("a", "c", "2026-01-01T00:00:00Z"), x("b", "c", "2026-01-01T00:00:00Z"), x("c", "c", "2026-01-08T00:00:00Z")],
      events: [e("a", "2026-01-02T00:00:00Z"), e("c", "2026-01-08T01:00:00Z")],
    },
    expected: { variants: { c: { value: 0.5, numerator: 1, denominator: 2 } }, excluded_users: 0, immature_users: 1 },
  },
  {
    name: "as of a time, events and exposures at or after it do not exist yet",
    why: "as of Jan 5 12:00: a's events at 11:59 (counts) and 12:00 (not yet); b exposed at 12:00 (not yet exposed) -> 1 / 1",
    definition: { type: "events_per_user", event: "purchase" },
    options: { as_of: `${D}12:00:00Z` },
    data: { exposures: [x("a", "c", `${D}00:00:00Z`), x("b", "c", `${D}12:00:00Z`)], events: [e("a", `${D}11:59:00Z`), e("a", `${D}12:00:00Z`)] },
    expected: { variants: { c: { value: 1, numerator: 1, denominator: 1 } }, excluded_users: 0, immature_users: 0 },
  },
  {
    name: "active days can count any event of the user (active_day any_event)",
    why: "a: purchase on Jan 5, page_view on Jan 6 (UTC): any_event -> 1 purchase / 2 active days = 0.5 (metric_event would give 1)",
    definition: { type: "events_per_user_per_active_day", event: "purchase", active_day: "any_event" },
    data: { exposures: [x("a", "c", `${D}00:00:00Z`)], events: [e("a", `${D}10:00:00Z`), e("a", "2026-01-06T10:00:00+05:00", "page_view")] },
    expected: { variants: { c: { value: 0.5, numerator: 0.5, denominator: 1 } }, excluded_users: 0 },
  },
  { name: "unknown active-day definition", why: "named field", definition: { type: "events_per_user_per_active_day", event: "purchase", active_day: "weekdays" } as unknown as Definition, data: { exposures: [], events: [] }, errorField: "definition.active_day" },
  {
    name: "nobody exposed gives null",
    why: "no exposures: the denominator is 0, the value is null, never 0 or NaN",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [], events: [e("a", `${D}00:00:00Z`)] },
    expected: { variants: {}, excluded_users: 0 },
  },
  { name: "unknown metric type", why: "named field", definition: { type: "revenue", event: "purchase" } as unknown as Definition, data: { exposures: [], events: [] }, errorField: "definition.type" },
  { name: "retention threshold below 1", why: "named field", definition: { type: "retention", event: "purchase", threshold: 0, window_days: 7 }, data: { exposures: [], events: [] }, errorField: "definition.threshold" },
  { name: "missing event name", why: "named field", definition: { type: "conversion", event: "" }, data: { exposures: [], events: [] }, errorField: "definition.event" },
  { name: "negative window", why: "named field", definition: { type: "conversion", event: "purchase", window_days: -1 }, data: { exposures: [], events: [] }, errorField: "definition.window_days" },
  {
    name: "unparseable event timestamp", why: "named by index",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [x("a", "c", `${D}00:00:00Z`)], events: [e("a", `${D}01:00:00Z`), e("a", "yesterday")] },
    errorField: "events[1].timestamp",
  },
  {
    name: "timestamp without a zone", why: "would be read in local time: refused",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [x("a", "c", "2026-01-05T00:00:00")], events: [] },
    errorField: "exposures[0].exposed_at",
  },
  {
    name: "missing user id", why: "named by index",
    definition: { type: "conversion", event: "purchase" },
    data: { exposures: [{ variant: "c", exposed_at: `${D}00:00:00Z` } as never], events: [] },
    errorField: "exposures[0].user_id",
  },
];

export const metricCases: MetricCase[] = written.map((c) => (c.options || c.errorField ? c : { ...c, options: { as_of: LONG_AFTER } }));
