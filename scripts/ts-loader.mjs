// Preloaded into every test process by .taprc (`node-arg`): runs the TypeScript of src/, test/, bench/
// and ui/ by stripping its types with esbuild (scripts/ts-hooks.mjs). Registered after tap's ts-node
// loader, so these hooks see every import first and ts-node never compiles a file.
import { register } from 'node:module'

register('./ts-hooks.mjs', import.meta.url)
