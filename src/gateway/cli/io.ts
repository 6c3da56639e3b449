/** What a CLI command may touch of the process; tests pass their own. */
export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  env: NodeJS.ProcessEnv;
  onSignal(signal: NodeJS.Signals, handler: () => void): void;
  readStdin?: () => Promise<string | null>;
}

export function processIo(): CliIo {
  return {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    onSignal: (signal, handler) => {
      process.on(signal, handler);
    },
    readStdin: async () => {
      if (process.stdin.isTTY) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
