/**
 * Bundle CIDs above one IPFS chunk (issue 23): the CID the daemon shows for a bundle must be the one IPFS gives the
 * same bytes, or `ipfs://` links to large bundles point nowhere. Checked against the UnixFS importer with its own
 * defaults (which are `ipfs add --cid-version 1`'s) and against the DAG's structure built from multiformats.
 */
import { importBytes } from "ipfs-unixfs-importer";
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { sha256 } from "multiformats/hashes/sha2";
import { describe, expect, it } from "vitest";
import { ipfsCid } from "../../../daemon/cid.js";

const CHUNK = 262_144;
const DAG_PB = 0x70;

/** Deterministic bytes that do not repeat per chunk (a repeated chunk would hide a chunking error). */
function bundleBytes(size: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = 0x2545f491;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Imports with the library's defaults and records every block it writes. */
async function libraryImport(bytes: Uint8Array): Promise<{ cid: CID; blocks: Map<string, Uint8Array> }> {
  const blocks = new Map<string, Uint8Array>();
  const store = {
    put: async (key: CID, value: Uint8Array): Promise<CID> => {
      blocks.set(key.toString(), value);
      return key;
    },
  };
  const { cid } = await importBytes(bytes, store);
  return { cid, blocks };
}

const contains = (hay: Uint8Array, needle: Uint8Array): boolean => Buffer.from(hay).includes(Buffer.from(needle));

describe("ipfsCid: bundles of every size", () => {
  it("a 1 MiB bundle: the importer's ipfs-add CID, a dag-pb root over four raw 256 KiB leaves", async () => {
    const bytes = bundleBytes(1024 * 1024);
    const ours = await ipfsCid(bytes);
    const lib = await libraryImport(bytes);
    expect(ours).toBe(lib.cid.toString());
    const root = CID.parse(ours);
    expect(root.version).toBe(1);
    expect(root.code).toBe(DAG_PB);
    expect(ours).toMatch(/^bafybei[a-z2-7]+$/);
    // The four leaves are the raw sha2-256 CIDs of the 256 KiB chunks, linked in order from the root block.
    const rootBlock = lib.blocks.get(ours);
    expect(rootBlock).toBeDefined();
    let last = -1;
    for (let i = 0; i < 4; i++) {
      const chunk = bytes.subarray(i * CHUNK, (i + 1) * CHUNK);
      const leaf = CID.create(1, raw.code, await sha256.digest(chunk));
      expect(lib.blocks.get(leaf.toString())).toEqual(chunk);
      const at = Buffer.from(rootBlock ?? new Uint8Array()).indexOf(Buffer.from(leaf.bytes));
      expect(at).toBeGreaterThan(last);
      last = at;
    }
    expect(lib.blocks.size).toBe(5);
  });

  it("at and around the chunk size: one chunk is a raw CID of the bytes' sha2-256, one byte more is a DAG", async () => {
    for (const size of [0, 1, CHUNK - 1, CHUNK]) {
      const bytes = bundleBytes(size);
      const direct = CID.create(1, raw.code, await sha256.digest(bytes)).toString();
      expect(await ipfsCid(bytes), `${size} bytes`).toBe(direct);
    }
    const over = bundleBytes(CHUNK + 1);
    const cid = await ipfsCid(over);
    expect(CID.parse(cid).code).toBe(DAG_PB);
    expect(cid).toBe((await libraryImport(over)).cid.toString());
    const block = (await libraryImport(over)).blocks.get(cid) ?? new Uint8Array();
    const tail = CID.create(1, raw.code, await sha256.digest(over.subarray(CHUNK)));
    expect(contains(block, tail.bytes)).toBe(true);
  });

  it("an 8 MiB bundle (the daemon's cap) matches the importer too", async () => {
    const bytes = bundleBytes(8 * 1024 * 1024);
    expect(await ipfsCid(bytes)).toBe((await libraryImport(bytes)).cid.toString());
  });

  it("a string is hashed as its UTF-8 bytes", async () => {
    const text = `{"question":"Café ☕ ${"x".repeat(300_000)}"}`;
    expect(await ipfsCid(text)).toBe(await ipfsCid(new TextEncoder().encode(text)));
  });
});
