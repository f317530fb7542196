/**
 * The HTML report: one self-contained page (no external script, style or font) that an implementer reads first.
 * Every statement of the seed with its id, quote and verdict (passed, failed, not tested with the capability missing,
 * excused with the reason), the rules and model commands that reached it, and for a failure the reproducible
 * request or shortest sequence. Filters by verdict and a text search work offline.
 */
import type { Report } from "./run.ts";
import { verdictCounts, type StatementVerdict } from "./seed/verdicts.ts";

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const LABEL = { passed: "passed", failed: "failed", not_tested: "not tested", excused: "excused" } as const;

function evidence(s: StatementVerdict, seed: number): string {
  if (!s.failures.length) return "";
  const items = s.failures.map((f) => {
    const details = f.details === undefined ? "" : `<pre>${esc(JSON.stringify(f.details, null, 2).slice(0, 6000))}</pre>`;
    return `<li><code>${esc(f.rule)}</code>: ${esc(f.message)}${f.curl ? `<pre>${esc(f.curl)}</pre>` : ""}${details}</li>`;
  });
  return `<details open><summary>what failed (replay with --seed ${seed})</summary><ul>${items.join("")}</ul></details>`;
}

function row(s: StatementVerdict, seed: number): string {
  const rules = s.rules.map((r) => `<span class="rule ${r.outcome}">${esc(r.id)}</span>`).join(" ");
  const by = s.reachedBy.length ? `<div class="by">reached by: ${s.reachedBy.map((b) => `<code>${esc(b)}</code>`).join(", ")}</div>` : "";
  const why = s.reason ? `<div class="why">${esc(s.reason)}</div>` : "";
  return `<tr class="${s.verdict}" data-text="${esc(`${s.id} ${s.section} ${s.quote}`.toLowerCase())}"><td><code>${esc(s.id)}</code></td><td>${esc(s.section)}</td><td class="quote">${esc(s.quote)}</td><td><span class="badge ${s.verdict}">${LABEL[s.verdict]}</span>${why}</td><td>${rules}${by}${evidence(s, seed)}</td></tr>`;
}

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330}
h1{font-size:20px;margin:0 0 4px} .meta{color:#5a6270;margin-bottom:16px}
.counts span{display:inline-block;margin-right:12px;padding:4px 10px;border-radius:12px;background:#eef0f4;cursor:pointer}
.counts span.on{outline:2px solid #1d2330}
table{border-collapse:collapse;width:100%;margin-top:12px} th,td{border-bottom:1px solid #e3e6eb;padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f6f7f9;position:sticky;top:0} td.quote{max-width:460px}
.badge{padding:2px 8px;border-radius:10px;font-weight:600;white-space:nowrap}
.badge.passed{background:#dff5e3;color:#19692c}.badge.failed{background:#fde2e1;color:#a1160f}
.badge.not_tested{background:#fff2cc;color:#7a5b00}.badge.excused{background:#eceef2;color:#4a5160}
.rule{display:inline-block;font:12px monospace;padding:1px 5px;border-radius:4px;margin:1px;background:#eef0f4}
.rule.failed{background:#fde2e1}.rule.held{background:#dff5e3}.rule.not_reached{background:#fff2cc}
.why,.by{color:#5a6270;font-size:12px;margin-top:4px} pre{white-space:pre-wrap;word-break:break-all;background:#f6f7f9;padding:6px;font-size:12px}
input{padding:4px 8px;width:280px}`;

const SCRIPT = `
const rows=[...document.querySelectorAll('tbody tr')];let shown=null;
function apply(){const q=document.getElementById('q').value.toLowerCase();for(const r of rows){r.style.display=(!shown||r.classList.contains(shown))&&r.dataset.text.includes(q)?'':'none';}}
for(const b of document.querySelectorAll('.counts span')){b.onclick=()=>{shown=shown===b.dataset.v?null:b.dataset.v;for(const x of document.querySelectorAll('.counts span'))x.classList.toggle('on',x.dataset.v===shown);apply();};}
document.getElementById('q').oninput=apply;`;

export function html(report: Report): string {
  const c = verdictCounts(report.statements);
  // Failures first, then not tested, so the page opens on what needs work.
  const order = { failed: 0, not_tested: 1, passed: 2, excused: 3 } as const;
  const sorted = [...report.statements].sort((a, b) => order[a.verdict] - order[b.verdict]);
  const checks = report.results.map((r) => `<tr><td><code>${esc(r.name)}</code></td><td>${esc(r.status.replace("_", " "))}</td><td>${esc(r.reason ?? "")}</td><td>${r.failures.length}</td><td>${r.warnings.length}</td></tr>`).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Conformance: ${esc(report.baseUrl)}</title><meta name="viewport" content="width=device-width">
<style>${STYLE}</style></head><body>
<h1>Conformance of ${esc(report.baseUrl)} to the seed</h1>
<div class="meta">level ${report.level} · seed ${report.seed} · ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s · exit code ${report.exitCode}</div>
<div class="counts"><span data-v="failed">${c.failed} failed</span><span data-v="not_tested">${c.not_tested} not tested</span><span data-v="passed">${c.passed} passed</span><span data-v="excused">${c.excused} excused</span> of ${report.statements.length} statements · <input id="q" placeholder="search id, section or quote"></div>
<table><thead><tr><th>statement</th><th>section</th><th>the seed says</th><th>verdict</th><th>rules and evidence</th></tr></thead>
<tbody>${sorted.map((s) => row(s, report.seed)).join("\n")}</tbody></table>
<h2>Capabilities</h2><p>${esc(report.states.source)}</p><table><thead><tr><th>capability</th><th>offered</th><th>why not</th></tr></thead><tbody>${report.states.capabilities.map((c) => `<tr><td><code>${esc(c.capability)}</code></td><td>${c.settled === false ? "not settled" : c.offered ? "yes" : "no"}</td><td>${esc(c.why ?? (c.settled === false ? c.decided ?? "" : ""))}</td></tr>`).join("")}</tbody></table>
${report.cutShort.length ? `<h2>Cut short</h2><ul>${report.cutShort.map((c) => `<li>${esc(c)}</li>`).join("")}</ul>` : ""}
<h2>Created</h2><p>Everything this run (${esc(report.runId)}) created; the names it gave carry the run's id.</p><table><thead><tr><th>kind</th><th>id</th><th>name</th><th>removed</th></tr></thead><tbody>${report.created.map((c) => `<tr><td>${esc(c.kind)}</td><td><code>${esc(c.id)}</code></td><td>${esc(c.name ?? "")}</td><td>${c.removed ? "yes" : "no (the API cannot remove it)"}</td></tr>`).join("")}</tbody></table>
<h2>Checks</h2><table><thead><tr><th>check</th><th>status</th><th>why</th><th>failures</th><th>warnings</th></tr></thead><tbody>${checks}</tbody></table>
<script>${SCRIPT}</script></body></html>
`;
}
