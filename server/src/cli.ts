/**
 * `api-sandbox`: the command of the sandbox package. `api-sandbox` (or `api-sandbox start`) runs the reference server
 * on the embedded fixtures, as `npm start` does in the repository; every setting is also an environment variable
 * (README, "Configuration"), and an option given here wins over it.
 */
import { Command, InvalidArgumentError } from "commander";

const port = (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new InvalidArgumentError("must be a port number (0-65535)");
  return v;
};

const program = new Command("api-sandbox")
  .description("The Project Data API sandbox: the reference server over embedded fixtures, with the simulation surface under /api/_sim")
  .showHelpAfterError();

program
  .command("start", { isDefault: true })
  .description("run the reference server (base URL http://HOST:PORT/api)")
  .option("--port <port>", "port to listen on (env PORT, default 4010)", port)
  .option("--host <host>", "address to listen on (env HOST, default 127.0.0.1)")
  .action(async (o: { port?: string; host?: string }) => {
    if (o.port !== undefined) process.env.PORT = o.port;
    if (o.host !== undefined) process.env.HOST = o.host;
    await import("./main.ts");
  });

await program.parseAsync();
