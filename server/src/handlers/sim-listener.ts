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
import type { Project } from "../model/project.ts";
import { ascBy } from "../model/sorted.ts";
import type { HandlerDeps } from "./deps.ts";
import { envelope, listPage } from "./pagination.ts";

type Forward = components["schemas"]["SimForward"];
const forwardOrder = ascBy<Forward>((f) => f.forwarded_at);

type Ops = "simGetListener" | "simRecordForward" | "simListForwards" | "simGetForwardEvent" | "simResendForward";

export function simListenerHandlers(deps: HandlerDeps): HandlerGroup<Ops> {
  const { streams, listeners, webhookSettings, clock } = deps;
  /** The held stream event a forward carried; 404 when either is gone. */
  const eventOf = async (project: Project, id: string) => {
    const forward = (await listeners.forwards(project)).find((f) => f.id === id);
    if (!forward) throw notFound(`No such forward: ${id}`);
    const event = await streams.find(project.id, forward.event_id);
    if (!event) throw notFound(`The event of forward ${id} is no longer held (the stream keeps the last events of each project)`);
    return event;
  };
  return {
    async simGetListener({ project }) {
      const signing_secret = await listeners.secret(project);
      const webhook = await webhookSettings.get(project);
      return { status: 200, body: { object: "sim_listener", signing_secret, listeners: streams.listenersOf(project.id), webhook_url: webhook?.url ?? null } };
    },

    async simRecordForward({ project, body }) {
      const event = await streams.find(project.id, body.event_id);
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
      await listeners.addForward(project, forward);
      return { status: 201, body: forward };
    },

    async simListForwards({ project, query }) {
      const all = await listeners.forwards(project);
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

    async simGetForwardEvent({ project, path }) {
      return { status: 200, body: await eventOf(project, path.id) };
    },

    // Back on the stream with a new id, byte for byte: every listener forwards it again (the listener loop's resend).
    async simResendForward({ project, path }) {
      const { event_id, event, interview_id, headers, body } = await eventOf(project, path.id);
      return { status: 202, body: await streams.publish(project.id, { event_id, event, interview_id, reason: "resend", headers, body }) };
    },
  };
}
