/**
 * `cresolver track-record export|verify` in-process against a real chain (Hardhat, RecordChainProbe emitting
 * `MarketRecorded`) and a real SQLite cache file: the exported document verifies; an altered one, one cut short of
 * the head it claims, or one from another contract is refused with a one-line error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../cli/program.js";
import { decodeRecordDocument, type RecordDocument } from "../../../workflow/core/record-document.js";
import { type LimitedRpc, startLimitedRpc } from "../chain/helpers/limited-rpc.js";
import { deployRecordChain, type RecordChain } from "../chain/helpers/record-chain.js";

let chain: RecordChain;
let rpc: LimitedRpc;
let dir: string;

beforeAll(async () => {
  chain = await deployRecordChain();
  await chain.record(40, { perTx: 10, seats: 7 });
  rpc = await startLimitedRpc(chain.provider);
  dir = mkdtempSync(join(tmpdir(), "cli-track-record-"));
}, 120_000);

afterAll(async () => {
  await rpc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(["--json", "--rpc-url", rpc.url, "--market", chain.probe, "track-record", ...args], {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: {},
    cwd: dir,
  });
  return { code, stdout, stderr };
}

const readDoc = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as RecordDocument;
const writeDoc = (name: string, doc: unknown) => writeFileSync(join(dir, name), JSON.stringify(doc));

describe("cresolver track-record", () => {
  it("exports the whole record from a cache file and verifies it against recordHead()", async () => {
    const out = await cli("export", "--cache", "index.sqlite", "--out", "all.json");
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ count: 40, from: 0, to: 40 });
    const { entries, head } = decodeRecordDocument(readFileSync(join(dir, "all.json"), "utf8"));
    expect(entries).toEqual(chain.recorded);
    expect(head).toBe((await chain.recordHead()).head);

    const ok = await cli("verify", "all.json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ verified: true, to: 40, against: "recordHead() (40 entries)" });

    // A second export reads only new blocks into the same cache.
    await chain.record(5, { perTx: 5, seats: 2 });
    rpc.reset();
    const again = await cli("export", "--cache", "index.sqlite", "--out", "all2.json");
    expect(again.code, again.stderr).toBe(0);
    expect(rpc.counts.get("eth_getLogs")).toBe(1);
    expect(rpc.getLogs[0]?.to).toBe(rpc.getLogs[0]?.from);
    expect(readDoc("all2.json").count).toBe(45);
  });

  it("verifies an earlier part of the record against the event of its last entry", async () => {
    const out = await cli("export", "--count", "20", "--from", "5");
    expect(out.code, out.stderr).toBe(0);
    writeFileSync(join(dir, "part.json"), out.stdout);
    expect(JSON.parse(out.stdout)).toMatchObject({ count: 20, from: 5, to: 20 });
    const ok = await cli("verify", "part.json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).against).toBe("the MarketRecorded event of entry 19");
  });

  it("refuses an altered document, a document for another record and one past the chain", async () => {
    const doc = readDoc("all2.json");
    // One entry's bytes changed, the head left as it was: decoding recomputes the heads.
    const bytes = Buffer.from(doc.entries, "base64");
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 1;
    writeDoc("altered.json", { ...doc, entries: bytes.toString("base64") });
    const altered = await cli("verify", "altered.json");
    expect(altered.code).toBe(2);
    expect(altered.stderr.trim().split("\n")).toHaveLength(1);
    expect(altered.stderr).toMatch(
      /altered\.json: (entries 0\.\.45 do not lead to the document's head|.*malformed|.*refused)/,
    );

    // A self-consistent record that is not this chain's: heads recomputed, then refused by the chain.
    const other = await deployRecordChain();
    await other.record(45, { perTx: 45, seats: 2, seed: 99 });
    const otherRpc = await startLimitedRpc(other.provider);
    let stdout = "";
    const code = await run(["--json", "--rpc-url", otherRpc.url, "--market", other.probe, "track-record", "export"], {
      stdout: (s) => (stdout += s),
      stderr: () => {},
      env: {},
      cwd: dir,
    });
    await otherRpc.close();
    expect(code).toBe(0);
    writeDoc("forged.json", { ...(JSON.parse(stdout) as RecordDocument), market: chain.probe.toLowerCase() });
    const forged = await cli("verify", "forged.json");
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/do not lead to recordHead\(\) \(45 entries\): not this chain's record/);

    writeDoc("elsewhere.json", { ...doc, market: "0x00000000000000000000000000000000000000aa" });
    expect((await cli("verify", "elsewhere.json")).stderr).toMatch(/is for market contract 0x0+aa, not/);

    const missing = await cli("verify", "nope.json");
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toMatch(/nope\.json: file not found/);

    const past = await cli("export", "--count", "999");
    expect(past.stderr).toMatch(/the record holds 45 entries, not 999/);
  }, 120_000);

  it("exports the estimator's window, which verifies against the head", async () => {
    const out = await cli("export", "--window", "--out", "window.json");
    expect(out.code, out.stderr).toBe(0);
    const ok = await cli("verify", "window.json");
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ verified: true, from: 0, to: 45 });
  });
});
