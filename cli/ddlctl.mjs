#!/usr/bin/env node
// `npx ddlctl`: loads the TypeScript sources through tsx (already a dependency), no build step.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
