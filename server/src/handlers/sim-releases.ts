/**
 * `POST /_sim/releases`: a merged pull request planted as a release of the caller's project, at chosen instants, so
 * the list's order (newest `merged_at` first), its status filter and every field can be probed. Its linked chat is
 * release-generated, which `/v1` never shows, so only its id is kept.
 */
import { randomUUID } from "node:crypto";
import type { StoredRelease } from "../../../fixtures/types.ts";
import { iso } from "../clock.ts";
import { invalidParameters, type ValidationIssue } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { releaseDetail } from "../views/releases.ts";
import type { HandlerDeps } from "./deps.ts";

export function simReleasesHandlers({ clock, quotas, releases }: HandlerDeps): HandlerGroup<"simCreateRelease"> {
  return {
    async simCreateRelease({ project, body }) {
      const now = clock.now();
      const mergedAt = body.merged_at === undefined ? now : Date.parse(body.merged_at);
      const analysedAt = body.last_analysis_at === undefined || body.last_analysis_at === null ? null : Date.parse(body.last_analysis_at);
      const wrong: ValidationIssue[] = [];
      if (mergedAt > now) wrong.push({ location: "body", field: "merged_at", message: "must not be in the future" });
      if (analysedAt !== null && (analysedAt < mergedAt || analysedAt > now)) wrong.push({ location: "body", field: "last_analysis_at", message: "must be between merged_at and now" });
      if (wrong.length) throw invalidParameters(wrong);
      const release: StoredRelease = {
        id: randomUUID(),
        object: "release",
        status: body.status ?? "active",
        chat_id: randomUUID(),
        vcs_pr_number: body.vcs_pr_number,
        vcs_pr_title: body.vcs_pr_title,
        vcs_pr_url: body.vcs_pr_url ?? `https://github.com/example/app/pull/${body.vcs_pr_number}`,
        vcs_pr_author: body.vcs_pr_author ?? "octocat",
        merged_at: iso(mergedAt),
        last_analysis_at: analysedAt === null ? null : iso(analysedAt),
        created_at: iso(now),
        vcs_pr_description: body.vcs_pr_description ?? "",
        project_id: project.id,
      };
      await quotas.plant(project, 1);
      await releases.plant(project, release);
      return { status: 201, body: releaseDetail(release) };
    },
  };
}
