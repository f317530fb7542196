/**
 * Bytes a decoder throws on, every run. `decodeURIComponent` throws on a `%` not followed by two hex digits and on an
 * escaped byte sequence that is not UTF-8 (a lone surrogate `%ED%A0%80`, `%FF`); a strict UTF-8 decoder throws on a
 * body holding such bytes; `crypto.timingSafeEqual` throws on buffers of two lengths, which a key of the right number
 * of characters gives once one of them is beyond ASCII (two bytes in UTF-8). A service that lets any of them escape
 * answers 500 (or falls over). The seed answers bad parameters and bodies 400, a bad key 401, a path id of nothing
 * 404: never a 5xx. The suite's own requests carry none of these (its values are encoded, its bodies JSON it wrote).
 */
import { NEVER_ID } from "../data.ts";
import type { Reply } from "../http.ts";
import type { CoverEnv, Unit } from "./unit.ts";
import { r } from "./rules.ts";

/** Escapes `decodeURIComponent` throws on, written into a URL as they are. */
export const MALFORMED_ESCAPES = ["%", "%E0%A4%A", "%G1", "%ED%A0%80", "%FF"];

/** Request bodies that are not UTF-8 (a byte no sequence starts with, a sequence cut short, an overlong "/"), and one after a byte order mark. */
function badBodies(url: string): Array<[string, Uint8Array<ArrayBuffer>]> {
  const json = (middle: number[]) => new Uint8Array([...Buffer.from(`{"url":"${url}`), ...middle, ...Buffer.from(`","events":["interview.completed"]}`)]);
  return [
    ["0xFF 0xFE", json([0xff, 0xfe])],
    ["a sequence cut short (0xC3 0x28)", json([0xc3, 0x28])],
    ["an overlong '/' (0xC0 0xAF)", json([0xc0, 0xaf])],
    ["a byte order mark first", new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(JSON.stringify({ url, events: ["interview.completed"] }))])],
  ];
}

/** The key with its last character replaced by one beyond ASCII: as many characters, more bytes. */
const beyondAscii = (key: string, c: string) => `${key.slice(0, -1)}${c}`;

export const decoders: Unit = {
  name: "decoders",
  doc: "bytes a decoder throws on: query values with a malformed escape (%, %E0%A4%A, %G1, an escaped lone surrogate, %FF) on three lists, path ids with one, webhook bodies that are not UTF-8 (and one after a byte order mark), and keys of the right length with a character beyond ASCII: each answered 200 or a 4xx, never a 5xx, and the service answers after them",
  needs: [],
  rules: [r.decoders],
  classes: (ctx) => ["a query value with a malformed escape", "a path id with a malformed escape", "a body that is not UTF-8", "a key beyond ASCII", ...(ctx.options.publicKey ? ["a public key beyond ASCII"] : [])],
  async run(env) {
    // `wanted` names the answers `allowed` takes, for the failure message.
    const judge = (cls: string, what: string, reply: Reply, allowed: (status: number) => boolean, wanted: string) =>
      env.expect(r.decoders, reply.status < 500 && allowed(reply.status), `${cls}: ${what} answered ${reply.status}${reply.status >= 500 ? " (a server error)" : ""}, not ${wanted}`, reply);
    const clientError = (s: number) => s >= 400 && s < 500;
    const answered = (s: number) => s === 200 || clientError(s);

    for (const v of MALFORMED_ESCAPES) {
      for (const path of [`/v1/studies?starting_after=${v}`, `/v1/interviews?study_id=${NEVER_ID}&reference_id=${v}`, `/v1/chats/${NEVER_ID}/messages?starting_after=${v}`]) {
        judge("a query value with a malformed escape", `GET ${path}`, await env.req(path), answered, "200 or a 4xx");
      }
    }
    await stillUp(env, "the query values");
    env.reach("a query value with a malformed escape", r.decoders.cites);

    for (const v of MALFORMED_ESCAPES.slice(0, 4)) {
      for (const path of [`/v1/studies/${v}`, `/v1/interviews/${v}`, `/v1/chats/${v}/messages`]) judge("a path id with a malformed escape", `GET ${path}`, await env.req(path), clientError, "a 4xx");
    }
    await stillUp(env, "the path ids");
    env.reach("a path id with a malformed escape", r.decoders.cites);

    // Refused (400) or read leniently and taken; either way a webhook the unit may have set is deleted after.
    let taken = false;
    for (const [what, bytes] of badBodies("https://hooks.example.com/cover/decoders/")) {
      const reply = await env.req("/v1/webhooks", { method: "PUT", rawBytes: bytes, headers: { "content-type": "application/json" } });
      taken ||= reply.status < 300;
      judge("a body that is not UTF-8", `PUT /v1/webhooks with a body holding ${what}`, reply, (s) => s === 200 || s === 201 || clientError(s), "200, 201 or a 4xx");
    }
    await stillUp(env, "the bodies");
    if (taken) await env.req("/v1/webhooks", { method: "DELETE" });
    env.reach("a body that is not UTF-8", r.decoders.cites);

    const key = env.project.apiKey;
    for (const c of ["é", "ÿ"]) {
      const reply = await env.req("/v1/studies?limit=1", { key: null, headers: { authorization: `Bearer ${beyondAscii(key, c)}` } });
      judge("a key beyond ASCII", `GET /v1/studies with the key's last character replaced by ${JSON.stringify(c)} (as many characters, more bytes)`, reply, (s) => s === 401, "401");
    }
    await stillUp(env, "the keys");
    env.reach("a key beyond ASCII", r.decoders.cites);

    if (env.ctx.options.publicKey) {
      const publicKey = env.publicKey ?? env.ctx.options.publicKey;
      for (const c of ["é", "ÿ"]) {
        const reply = await env.req("/v1/interview-participant/config", { key: null, headers: { "x-public-key": beyondAscii(publicKey, c) } });
        judge("a public key beyond ASCII", `GET /v1/interview-participant/config with the public key's last character replaced by ${JSON.stringify(c)}`, reply, (s) => s === 401, "401");
      }
      await stillUp(env, "the public keys");
      env.reach("a public key beyond ASCII", r.decoders.cites);
    }
  },
};

/** The service answers a plain read after what came before: one that fell over on a request shows here. */
async function stillUp(env: CoverEnv, after: string): Promise<void> {
  try {
    const reply = await env.req("/v1/studies?limit=1");
    env.expect(r.decoders, reply.status === 200, `after ${after}, GET /v1/studies?limit=1 answered ${reply.status}, not 200`, reply);
  } catch (err) {
    env.expect(r.decoders, false, `after ${after}, GET /v1/studies?limit=1 got no answer (${(err as Error).message}): the service no longer answers`);
  }
}
