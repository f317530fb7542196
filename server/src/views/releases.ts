/** Release views: `vcs_pr_description` is detail-only. */
import type { components } from "../../../generated/schema.d.ts";
import type { StoredRelease } from "../../../fixtures/types.ts";
import { memo } from "./memo.ts";

type S = components["schemas"];

export const releaseSummary = (r: StoredRelease): S["ReleaseSummary"] => memo(r, "summary", buildSummary);

function buildSummary(r: StoredRelease): S["ReleaseSummary"] {
  return {
    id: r.id,
    object: "release",
    status: r.status,
    chat_id: r.chat_id,
    vcs_pr_number: r.vcs_pr_number,
    vcs_pr_title: r.vcs_pr_title,
    vcs_pr_url: r.vcs_pr_url,
    vcs_pr_author: r.vcs_pr_author,
    merged_at: r.merged_at,
    last_analysis_at: r.last_analysis_at,
    created_at: r.created_at,
  };
}

export const releaseDetail = (r: StoredRelease): S["Release"] => memo(r, "detail", (x) => ({ ...releaseSummary(x), vcs_pr_description: x.vcs_pr_description }));
