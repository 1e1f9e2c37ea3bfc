/**
 * CIDv1 of a bundle's bytes (codec raw 0x55, multihash sha2-256), base32 lower-case with the multibase prefix
 * "b": what `ipfs add --cid-version 1 --raw-leaves` gives a file of one block (≤ 256 KiB with default chunking;
 * a larger file gets a UnixFS DAG with another CID). Computed locally: the daemon pins nothing, the operator can.
 */
import { createHash } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

function base32(bytes: Uint8Array): string {
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** `bafkrei…`: CIDv1, raw, sha2-256 of `data`. */
export function rawCidV1(data: string | Uint8Array): string {
  const digest = createHash("sha256").update(data).digest();
  // version 1, codec raw (0x55), multihash sha2-256 (0x12) of 32 bytes (0x20)
  return `b${base32(Uint8Array.from([0x01, 0x55, 0x12, 0x20, ...digest]))}`;
}
