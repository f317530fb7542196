/** `npx tsx scripts/docs/screenshot.ts`: docs/screenshot.png of the reference page as the server serves it at /docs. */
import { join } from "node:path";
import { startServer } from "../../server/src/testing.ts";
import { DOCS } from "./build.ts";
import { launchChromium } from "./browser.ts";

const server = await startServer();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${server.origin}/docs/`, { waitUntil: "networkidle" });
  // Open the simulation tag, so the picture shows how the reference-server-only surface is set apart.
  await page.locator('li[data-testid="menu-item-label"]', { hasText: "Simulation" }).first().click();
  await page.getByText("Simulate an interview").first().waitFor();
  await page.screenshot({ path: join(DOCS, "screenshot.png") });
  console.log("docs/screenshot.png written");
} finally {
  await browser.close();
  await server.close();
}
