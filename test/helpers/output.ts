/**
 * Everything written to stdout and stderr, for tests that prove a secret never reaches a log line.
 */
export interface CapturedOutput {
  /** The chunks written since capture began (also passed through to the real stream). */
  readonly chunks: string[];
  /** Puts the real `write` functions back. */
  restore(): void;
}

export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const restores: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      chunks.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
    restores.push(() => (stream.write = write));
  }
  return { chunks, restore: () => restores.splice(0).forEach((r) => r()) };
}
