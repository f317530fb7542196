/** Releases: newest `merged_at` first, optional status filter. */
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { releaseOrder } from "../model/project.ts";
import { releaseDetail, releaseSummary } from "../views/releases.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

export function releasesHandlers(_deps: HandlerDeps): HandlerGroup<"listReleases" | "getRelease"> {
  return {
    listReleases({ project, query }) {
      const status = query.status;
      const page = listPage({
        sorted: project.releaseList,
        order: releaseOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => project.releases.get(id),
        filter: status === undefined ? undefined : (r) => r.status === status,
        noun: "release",
      });
      return { status: 200, body: envelope(page, releaseSummary) };
    },

    getRelease({ project, path }) {
      const release = project.releases.get(path.id);
      if (!release) throw notFound(`No such release: ${path.id}`);
      return { status: 200, body: releaseDetail(release) };
    },
  };
}
