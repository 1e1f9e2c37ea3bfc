#!/usr/bin/env node
// Shim for the `cresolver` bin: registers tsx's ESM loader, then runs the TypeScript entry.
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
