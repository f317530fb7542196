/**
 * Seed violations planted in a copy of ../shared/foreign (an implementation written from the seed alone), one edit
 * each: the kinds an outside check found the random phase missing. Each names the rule that must catch it. The
 * covering phase must catch every one on every run, whatever the seed (test/conformance/cover.test.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FOREIGN_SERVER } from "../../support/foreign.ts";

export interface Violation {
  name: string;
  /** The seed statement it breaks, in words. */
  breaks: string;
  find: string;
  replace: string;
  /** The rule that must fail. */
  rule: string;
}

export const VIOLATIONS: Violation[] = [
  { name: "4xx answers not retried", breaks: "Events, delivery rule 2: a non-2xx answer is retried", rule: "cover.answer-retried",
    find: "settle(res.statusCode >= 200 && res.statusCode < 300,", replace: "settle(res.statusCode >= 200 && res.statusCode < 500,", },
  { name: "a signature over a non-ASCII body computed on other bytes", breaks: "Events: HMAC-SHA256 of the exact raw request body", rule: "cover.signature-text",
    find: "crypto.createHmac('sha256', event.secret).update(body).digest('hex')", replace: "crypto.createHmac('sha256', event.secret).update(body.toString('utf8'), 'latin1').digest('hex')" },
  { name: "used stops at 100", breaks: "Study: limits.*.used, interviews used in the period", rule: "cover.counts",
    find: "limits: { monthly: { limit: s.monthlyLimit, used: u.monthly }, weekly: { limit: s.weeklyLimit, used: u.weekly } },", replace: "limits: { monthly: { limit: s.monthlyLimit, used: Math.min(u.monthly, 100) }, weekly: { limit: s.weeklyLimit, used: Math.min(u.weekly, 100) } }," },
  { name: "message_count stops at 100", breaks: "Chat: message_count, visible messages only", rule: "cover.message-count",
    find: "out.message_count = visibleMessages(c).length;", replace: "out.message_count = Math.min(visibleMessages(c).length, 100);" },
  { name: "the reference id filter ignores case", breaks: "Endpoints: GET /v1/interviews reference_id", rule: "cover.reference-exact",
    find: "i.referenceId !== filters.reference_id", replace: "i.referenceId.toLowerCase() !== filters.reference_id.toLowerCase()" },
  { name: "the reference id filter decoded twice", breaks: "Endpoints: GET /v1/interviews reference_id", rule: "cover.reference-exact",
    find: "if (all.length) filters[name] = all[0];", replace: "if (all.length) { try { filters[name] = name === 'reference_id' ? decodeURIComponent(all[0]) : all[0]; } catch { filters[name] = all[0]; } }" },
  { name: "deliveries lost once a webhook was re-created", breaks: "Authentication 5; Events: sent to the URL set by PUT", rule: "cover.recreation",
    find: "if (project.webhookGen !== event.gen) return;", replace: "if (project.webhookGen !== event.gen || project.webhookGen > 0) return;" },
  { name: "raw tool transports not truncated", breaks: "All tool transports are normalized; Truncation", rule: "cover.transport-truncated",
    find: "if (jsonBytes(out.input) > PAYLOAD_CAP) { out.input = null; truncMarks(out); }", replace: "if (p.type === 'tool_use' && jsonBytes(out.input) > PAYLOAD_CAP) { out.input = null; truncMarks(out); }" },
  { name: "system messages served as assistant", breaks: "Message: role user, assistant, system", rule: "cover.message-whole",
    find: "id: m.id, object: 'message', chat_id: m.chatId, role: m.role,", replace: "id: m.id, object: 'message', chat_id: m.chatId, role: m.role === 'system' ? 'assistant' : m.role," },
  { name: "usage served on user messages", breaks: "Message: usage, assistant messages only", rule: "cover.message-whole",
    find: "usage: m.role === 'assistant' ? usageView(m.usage) : null,", replace: "usage: m.role !== 'system' ? usageView(m.usage) : null," },
  { name: "paused studies in the experiments report", breaks: "Endpoints: GET /v1/experiments, all active experiments", rule: "cover.experiments-current",
    find: "const experiments = [...studies.values()].filter((s) => s.projectId === project.id && s.status === 'active')", replace: "const experiments = [...studies.values()].filter((s) => s.projectId === project.id && s.status !== 'draft')" },
  { name: "the experiments report cached", breaks: "Endpoints: GET /v1/experiments, stats for all active experiments", rule: "cover.experiments-current",
    find: "function getExperiments(req, res, { project, headers }) {", replace: "const reportCache = new Map();\nfunction getExperiments(req, res, { project, headers }) {\n  if (reportCache.has(project.id)) return send(res, 200, reportCache.get(project.id), headers);\n  const realSend = send; const send_ = (r, s, body, h) => { reportCache.set(project.id, body); realSend(r, s, body, h); };\n  return getExperimentsFresh(req, res, { project, headers }, send_);\n}\nfunction getExperimentsFresh(req, res, { project, headers }, send) {" },
];

/** A copy of the foreign server with `v` planted; returns its path. The edit must apply exactly once. */
export function plant(v: Violation, dir = mkdtempSync(join(tmpdir(), "foreign-violation-"))): string {
  const source = readFileSync(FOREIGN_SERVER, "utf8");
  const at = source.indexOf(v.find);
  if (at < 0 || source.indexOf(v.find, at + 1) >= 0) throw new Error(`the violation "${v.name}" does not apply once to ${FOREIGN_SERVER}`);
  const file = join(dir, "server.mjs");
  writeFileSync(file, source.slice(0, at) + v.replace + source.slice(at + v.find.length));
  return file;
}
