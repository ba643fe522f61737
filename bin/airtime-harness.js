#!/usr/bin/env node
// The package ships TypeScript sources; tsx's loader runs them without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
