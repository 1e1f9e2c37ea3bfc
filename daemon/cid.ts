/**
 * The IPFS CID of a bundle's bytes, as `ipfs add --cid-version 1` computes it (kubo's defaults for CIDv1: 256 KiB
 * fixed-size chunks, raw leaves, a balanced UnixFS DAG of at most 174 links per node): `bafkrei…` for a bundle of
 * one chunk, `bafybei…` (a dag-pb root) above 256 KiB. Computed by the maintained UnixFS importer, nothing stored:
 * the daemon pins nothing, the operator can (docs/DEPLOY.md), and the CID then resolves to these exact bytes.
 */
import { balanced } from "ipfs-unixfs-importer/layout";
import { fixedSize } from "ipfs-unixfs-importer/chunker";
import { importBytes } from "ipfs-unixfs-importer";

/** `ipfs add --cid-version 1`'s settings, spelled out so a library default change cannot move the CID. */
export const IPFS_ADD_V1 = {
  cidVersion: 1,
  rawLeaves: true,
  reduceSingleLeafToSelf: true,
  chunker: fixedSize({ chunkSize: 262_144 }),
  layout: balanced({ maxChildrenPerNode: 174 }),
} as const;

/** Blocks are hashed, not kept: the CID is all we need. */
const discard = { put: async <K>(key: K): Promise<K> => key };

/** The CIDv1 (base32) `ipfs add --cid-version 1` gives `data` (a string is taken as UTF-8). */
export async function ipfsCid(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const { cid } = await importBytes(bytes, discard, IPFS_ADD_V1);
  return cid.toString();
}
