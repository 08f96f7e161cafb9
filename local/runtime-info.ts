/**
 * What a running `npm start` tells local tools (ddlctl) about itself: written to
 * `<data dir>/runtime.json` (mode 0600) on start, removed on exit. With --in-memory it goes to
 * the default data folder all the same, so tools find it without flags.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../shared/config';
import { defaultDataDir } from './emulators';

export interface LocalRuntimeInfo {
  readonly pid: number;
  readonly url: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly region: string;
  readonly config: Config;
  readonly secretsTable: string;
  readonly startedAt: string;
}

export function runtimeDir(dataDir: string | undefined): string {
  return dataDir ?? defaultDataDir();
}

export function runtimeFile(dataDir: string | undefined): string {
  return join(runtimeDir(dataDir), 'runtime.json');
}

/** The running local pipeline, if any (a stale file of a dead process counts as none). */
export function readRuntimeInfo(dataDir?: string): LocalRuntimeInfo | undefined {
  const file = runtimeFile(dataDir);
  if (!existsSync(file)) return undefined;
  const info = JSON.parse(readFileSync(file, 'utf8')) as LocalRuntimeInfo;
  try {
    process.kill(info.pid, 0);
  } catch {
    return undefined;
  }
  return info;
}
