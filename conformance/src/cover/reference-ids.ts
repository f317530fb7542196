/**
 * Every class of string a reference id may be, every run: ASCII, beyond the BMP, combining marks, case twins, a `%`
 * followed by two hex digits beside the text it would decode to (and the same encoded twice), `+` beside a space, `&`,
 * `=`, `#`, `/`, `?`, spaces at the ends beside the trimmed twin, and long twins (255 characters, differing in the last
 * alone, beside their first 64). Each is read back, and the
 * reference_id filter must list exactly its own interview, once. Through the study's link (when the target takes one) the encoded value must decode exactly once.
 */
import { propertySchema, stringDomain } from "./domain.ts";
import { firstDifference } from "../judge/same.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

/** 254 characters: with one more, the contract's longest reference id. */
const LONG_BASE = `ref_${"long".repeat(62)}_x`;

/** Class -> the reference ids planted for it (twins together, so one filter tells them apart). */
export const REFERENCE_CLASSES: Record<string, string[]> = {
  ascii: ["ref_plain_42"],
  "beyond the BMP": ["ref_😀_𝄞"],
  "combining marks": ["ref_e\u0301", "ref_\u00e9"],
  "case twins": ["ref_User_42", "ref_user_42"],
  "% and two hex digits": ["ref_%41", "ref_A", "ref_%2541"],
  "+ and space": ["ref_a+b", "ref_a b"],
  "& and =": ["ref_a&b=c"],
  "#, / and ?": ["ref_#frag/x?y"],
  // The contract's longest (255) twice, differing in the last character alone, and their first 64 characters: a column
  // or a comparison that keeps a prefix tells none of them apart.
  long: [`${LONG_BASE}a`, `${LONG_BASE}b`, LONG_BASE.slice(0, 64)],
  // A value is kept as given: never trimmed, in the read or in the filter; nor compared as a padded collation does,
  // which ignores trailing spaces alone.
  "spaces at the ends": [" ref_spaced ", "ref_spaced", "ref_spaced ", "ref_tab\t"],
};

/** The classes also opened through the study's link (where a second decoding or a `+` read as a space would show). */
const LINK_CLASSES = ["% and two hex digits", "+ and space", "& and =", "#, / and ?", "beyond the BMP"];

export const referenceIds: Unit = {
  name: "reference-ids",
  doc: "interviews tagged with a reference id of every class (ASCII, beyond the BMP, combining marks, case twins, %XX beside its decoding, + beside a space, &, =, #, /, spaces at the ends, long twins of 255 characters beside their first 64): read back exactly, and the filter lists exactly its own; the link's value decoded once",
  needs: ["plant-study", "plant-interview"],
  rules: [r["reference-exact"], r["link-reference"]],
  classes: (ctx) => [...Object.keys(REFERENCE_CLASSES), "drawn from the domain", ...(ctx.states.has("interview-link") ? LINK_CLASSES.map((c) => `link: ${c}`) : [])],
  async run(env) {
    const { ctx } = env;
    const study = await ctx.states.plantStudy({ name: "Reference ids", weekly_limit: null, monthly_limit: null }, env.project);
    const hold = ctx.states.has("hold");
    const planted: Array<{ cls: string; ref: string; id: string; link: boolean }> = [];
    const plant = async (cls: string, ref: string, link?: string) => {
      const i = await ctx.states.plantInterview({ study_id: study.id, ...(hold ? { hold: true } : {}), ...(link ? { interview_link: link } : { reference_id: ref }) }, env.project);
      planted.push({ cls, ref, id: i.id, link: !!link });
    };
    for (const [cls, refs] of Object.entries(REFERENCE_CLASSES)) for (const ref of refs) await plant(cls, ref);
    if (ctx.states.has("interview-link")) {
      const base = String((await env.req(`/v1/studies/${study.id}`)).body?.interview_link ?? "");
      for (const cls of LINK_CLASSES) {
        for (const ref of REFERENCE_CLASSES[cls]) {
          // A different value than the direct one, so each filter still names exactly one interview.
          const tagged = `${ref}_link`;
          await env.ctx.part(`an interview opened through the study's link tagged ${JSON.stringify(tagged)}`, () => plant(`link: ${cls}`, tagged, `${base}${base.includes("?") ? "&" : "?"}reference_id=${encodeURIComponent(tagged)}`));
        }
      }
    }
    const judged = new Set<string>();
    for (const p of planted) {
      const read = await env.req(`/v1/interviews/${p.id}`);
      const rule = p.link ? r["link-reference"] : r["reference-exact"];
      const readOk = env.expect(rule, read.status === 200 && read.body?.reference_id === p.ref, `interview ${p.id} tagged ${JSON.stringify(p.ref)}${p.link ? " through the study's link (encoded once)" : ""} reads reference_id ${JSON.stringify(read.body?.reference_id)} (${read.status})`, read);
      const query = `/v1/interviews?study_id=${study.id}&reference_id=${encodeURIComponent(p.ref)}&limit=100`;
      const list = await env.req(query);
      const got = (list.body?.data ?? []).map((i: any) => i.id);
      const listOk = env.expect(r["reference-exact"], list.status === 200 && got.length === 1 && got[0] === p.id && list.body?.has_more === false, `GET ${query} lists ${JSON.stringify(got)} (${list.status}), not exactly [${p.id}] tagged ${JSON.stringify(p.ref)}: the filter is exact (no case folding, no second decoding)`, list);
      // The listed item is the interview whole, as its retrieval shows it (list fields only).
      if (listOk && readOk) {
        const item = list.body.data[0];
        const fromRead = Object.fromEntries(Object.keys(item).map((k) => [k, read.body[k]]));
        const differs = firstDifference(item, fromRead);
        env.expect(r["reference-exact"], !differs, `the listed interview ${p.id} differs from its retrieval: ${differs}`, list);
      }
      judged.add(p.cls);
    }
    for (const cls of judged) env.reach(cls, cls.startsWith("link: ") ? r["link-reference"].cites : r["reference-exact"].cites);
    env.memo.set("study", study.id);
  },
  async explore(env) {
    const study = env.memo.get("study");
    if (typeof study === "string") await drawn(env, study);
  },
};

/**
 * Reference ids drawn from the contract's domain of `reference_id` (any text, URL-special runs, case twins, the
 * longest): each planted, read back exactly and found by the filter exactly once. Shrinks to the shortest id that fails.
 */
async function drawn(env: CoverEnv, studyId: string): Promise<void> {
  const { ctx } = env;
  const hold = ctx.states.has("hold");
  const seen = new Map<string, string>();
  await ctx.holds("reference ids drawn from the contract's domain", stringDomain(propertySchema(ctx.contract, "SimInterviewInput", "reference_id")), async (ref) => {
    // Each value once per project (a shrunk value may repeat an earlier one): its interview is reused.
    const id = seen.get(ref) ?? (await ctx.states.plantInterview({ study_id: studyId, ...(hold ? { hold: true } : {}), reference_id: ref }, env.project)).id;
    seen.set(ref, id);
    const read = await env.req(`/v1/interviews/${id}`);
    env.expect(r["reference-exact"], read.status === 200 && read.body?.reference_id === ref, `interview ${id} tagged ${JSON.stringify(ref)} reads reference_id ${JSON.stringify(read.body?.reference_id)} (${read.status})`, read);
    const query = `/v1/interviews?study_id=${studyId}&reference_id=${encodeURIComponent(ref)}&limit=100`;
    const list = await env.req(query);
    const got = (list.body?.data ?? []).map((i: any) => i.id);
    // Other drawn values may equal this one once case or decoding is ignored: exactly this one must be listed.
    env.expect(r["reference-exact"], list.status === 200 && got.length === 1 && got[0] === id, `GET ${query} lists ${JSON.stringify(got)} (${list.status}), not exactly [${id}] tagged ${JSON.stringify(ref)}`, list);
  }, ctx.options.runs);
  env.reach("drawn from the domain", r["reference-exact"].cites);
}
