/**
 * Which TCP ports a process tree listens on, and on which addresses: read from Linux's
 * /proc/net/tcp{,6} (the socket inodes) and /proc/<pid>/fd (which process holds them).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ListeningSocket {
  readonly pid: number;
  readonly address: string;
  readonly port: number;
  readonly loopback: boolean;
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name sits in parentheses and may contain spaces: fields count from the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const out: number[] = [];
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop()!;
    out.push(p);
    todo.push(...(children.get(p) ?? []));
  }
  return out;
}

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // Closed meanwhile.
    }
  }
  return inodes;
}

/** The bytes of an address as /proc/net prints it: 32-bit words, each in host (little-endian) order. */
function addressBytes(hex: string): number[] {
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(word.slice(b, b + 2), 16));
  }
  return bytes;
}

export function describeAddress(hex: string): { address: string; loopback: boolean } {
  const b = addressBytes(hex);
  if (b.length === 4) return { address: b.join('.'), loopback: b[0] === 127 };
  const mapped = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (mapped) return { address: `::ffff:${b.slice(12).join('.')}`, loopback: b[12] === 127 };
  const isV6Loopback = b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  const words = Array.from({ length: 8 }, (_, i) => ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16));
  return { address: words.join(':'), loopback: isV6Loopback };
}

/** Every listening TCP socket held by one of `pids`. */
export function listeningSockets(pids: readonly number[]): ListeningSocket[] {
  const owner = new Map<string, number>();
  for (const pid of pids) for (const inode of socketInodes(pid)) owner.set(inode, pid);
  const out: ListeningSocket[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || f[3] !== '0A') continue; // 0A: LISTEN
      const pid = owner.get(f[9]!);
      if (pid === undefined) continue;
      const [addrHex, portHex] = f[1]!.split(':') as [string, string];
      out.push({ pid, ...describeAddress(addrHex), port: parseInt(portHex, 16) });
    }
  }
  return out;
}
