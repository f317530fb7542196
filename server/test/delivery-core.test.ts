// The delivery core over the memory queue (memory and SQLite stores); the cases are delivery-core-cases.ts, run over
// PostgreSQL's queue by cluster/delivery-core-pg.test.ts.
import { MemoryBackend } from "../src/stores/memory/backend.ts";
import { MemoryDeliveries } from "../src/stores/memory/deliveries.ts";
import { deliveryCoreCases } from "./delivery-core-cases.ts";

deliveryCoreCases("the memory queue", async ({ caps, attemptsKept, eventsKept, cut }) => {
  const backend = new MemoryBackend();
  // What a data dir's backend reads back after a stop (SQLite's tables): the event and its attempt still in flight.
  if (cut) Object.assign(backend, { events: () => [cut.event], attempts: () => [{ project_id: cut.event.project_id, record: cut.record }] });
  const queue = new MemoryDeliveries({ backend, caps, eventsKeptPerTenant: eventsKept, attemptsKeptPerProject: attemptsKept });
  return { queue, backend, close: async () => {} };
});
