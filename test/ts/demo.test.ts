/**
 * The README's main command must keep working: run the demo as a user would (a subprocess, after the
 * build `npm test` already did) and check it settles both markets through the daemon and exits 0.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { expect, it } from "vitest";
import { keccak256, toBytes } from "viem";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

it("npm run demo proposes and finalizes two markets with five protocols and prints a summary", () => {
  const hardhat = path.join(root, "node_modules/.bin/hardhat");
  const r = spawnSync(process.execPath, [hardhat, "run", "scripts/demo.ts"], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stdout.match(/daemon job (proposed|finalized)/g)).toHaveLength(2);
  // Past the dispute window both markets are final, and each worker's correctness and reward are printed.
  expect(r.stdout.match(/resolution: (YES|NO)\n/g)).toHaveLength(2);
  expect(r.stdout).toMatch(/RQ\/SQ\/AD +reward \+ stake back/);
  for (const protocol of ["cresolver", "factagora", "roundtable", "agora", "ai-olympics"])
    expect(r.stdout).toMatch(new RegExp(`#\\d+ ${protocol}-\\w+ +${protocol} +(YES|NO) @ \\d+% +\\d+ `));
  // The one command that opens the explorer of the demo's markets.
  expect(r.stdout).toMatch(/explorer \(the chain lives in this process\): npm run demo:explore\n/);
  const hashes = [...r.stdout.matchAll(/bundle: (0x[0-9a-f]{64})/g)].map((m) => m[1]);
  expect(hashes).toHaveLength(2);
  // The printed bundle files hash to the printed on-chain bundle hashes.
  for (const [i, hash] of hashes.entries()) {
    const file = path.join(root, "demo-output", `market-${i + 1}.bundle.json`);
    expect(existsSync(file)).toBe(true);
    expect(keccak256(toBytes(readFileSync(file, "utf8")))).toBe(hash);
  }
}, 150_000);
