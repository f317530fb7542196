/** Releases: newest `merged_at` first, optional status filter. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { releaseDetail, releaseSummary } from "../views/releases.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope } from "./pagination.ts";

export function releasesHandlers({ releases }: HandlerDeps): HandlerGroup<"listReleases" | "getRelease"> {
  return {
    async listReleases({ project, query }) {
      return { status: 200, body: envelope(await releases.list(project, query), releaseSummary) };
    },

    async getRelease({ project, path }) {
      const release = await releases.get(project, path.id);
      if (!release) throw notFound(`No such release: ${path.id}`);
      return { status: 200, body: releaseDetail(release) };
    },
  };
}
