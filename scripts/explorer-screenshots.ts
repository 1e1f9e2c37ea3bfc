/**
 * `npx tsx scripts/explorer-screenshots.ts`: runs the demo with the explorer kept up (CRESOLVER_DEMO_EXPLORE=1), then
 * screenshots the markets list, market 1's trace and agent 1's page in Debian's Chromium into docs/.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { chromium } from "playwright-core";

const root = resolve(import.meta.dirname, "..");
const demo = spawn(process.execPath, [resolve(root, "node_modules/.bin/hardhat"), "run", "scripts/demo.ts"], {
  cwd: root,
  env: { ...process.env, CRESOLVER_DEMO_EXPLORE: "1" },
  stdio: ["ignore", "pipe", "inherit"],
});

const url = await new Promise<string>((done, fail) => {
  let out = "";
  demo.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    const m = /Explorer of the demo's markets: (\S+)/.exec(out);
    if (m) done(m[1]);
  });
  demo.on("exit", (code) =>
    fail(new Error(`the demo exited (${code}) before serving the explorer:\n${out.slice(-2000)}`)),
  );
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const shots: [string, string, () => Promise<void>][] = [
    ["explorer-markets.png", url, async () => {}],
    ["explorer-market.png", `${url}/markets/1`, () => page.locator("#hash-check.verified").waitFor()],
    ["explorer-agent.png", `${url}/agents/1`, () => page.locator("#chart-accuracy").waitFor()],
  ];
  for (const [file, target, ready] of shots) {
    await page.goto(target);
    await ready();
    // The market page is long (five workers' traces): its shot stops after the workers table and the first seat.
    await page.setViewportSize({ width: 1280, height: file === "explorer-market.png" ? 2200 : 900 });
    await page.screenshot({ path: resolve(root, "docs", file), fullPage: file !== "explorer-market.png" });
    console.log(`docs/${file} ← ${target}`);
  }
} finally {
  await browser.close();
  demo.kill("SIGINT");
}
