/**
 * The listener side of the simulation surface: the secret `api-sandbox listen` signs with (and whether the project's
 * webhook already delivers to where it would forward), and the forwards listeners report, which `api-sandbox trigger`
 * reads to tell whether an event reached the user's endpoint.
 */
import { randomUUID } from "node:crypto";
import type { components } from "../../../generated/schema.d.ts";
import { iso } from "../clock.ts";
import { notFound } from "../http/errors.ts";
import type { HandlerGroup } from "../http/types.ts";
import { ascBy } from "../store/sorted.ts";
import { listenerSecret } from "../webhooks/listener.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

type Forward = components["schemas"]["SimForward"];
const forwardOrder = ascBy<Forward>((f) => f.forwarded_at);

export function simListenerHandlers(deps: HandlerDeps): HandlerGroup<"simGetListener" | "simRecordForward" | "simListForwards"> {
  const { streams, journal, clock } = deps;
  return {
    simGetListener({ project }) {
      return {
        status: 200,
        body: { object: "sim_listener", signing_secret: listenerSecret(project, journal), listeners: streams.listenersOf(project.id), webhook_url: project.webhook?.url ?? null },
      };
    },

    simRecordForward({ project, body }) {
      const event = streams.find(project.id, body.event_id);
      if (!event) throw notFound(`No such event on this project's stream: ${body.event_id}`);
      const forward: Forward = {
        id: randomUUID(),
        object: "sim_forward",
        event_id: body.event_id,
        interview_id: event.interview_id,
        url: body.url,
        status: body.status,
        error: body.error,
        forwarded_at: iso(clock.now()),
      };
      journal.append({ kind: "forward.recorded", project_id: project.id, forward });
      project.addForward(forward);
      return { status: 201, body: forward };
    },

    simListForwards({ project, query }) {
      const all = project.forwards;
      const interviewId = query.interview_id;
      const page = listPage({
        sorted: all,
        order: forwardOrder,
        limit: query.limit,
        startingAfter: query.starting_after,
        lookup: (id) => all.find((f) => f.id === id),
        filter: interviewId === undefined ? undefined : (f) => f.interview_id === interviewId,
        noun: "forward",
      });
      return { status: 200, body: envelope(page, (f) => f) };
    },
  };
}
