/**
 * The ceiling: Express 5 answering each benchmarked path with a precomputed body of the reference server's
 * size. No handler can beat it, so reference/ceiling says how much of Express's budget the real work costs.
 */
import express from "express";

const bodies = JSON.parse(process.env.BODIES ?? "{}") as Record<string, string>;
const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/api/ready", (_req, res) => void res.send("ok"));
for (const [path, body] of Object.entries(bodies)) {
  const buf = Buffer.from(body);
  app.get(`/api${path.split("?")[0]}`, (_req, res) => void res.type("application/json").send(buf));
}
app.listen(Number(process.env.PORT), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
