import readline from 'node:readline';

/** What a CLI command may touch of the process; tests pass their own. */
export interface CliIo {
  stdout(line: string): void;
  stderr(line: string): void;
  env: NodeJS.ProcessEnv;
  onSignal(signal: NodeJS.Signals, handler: () => void): void;
  /**
   * Ends the process at once with `code`, whatever is still running (a second Ctrl+C). Absent in
   * tests that run a command in their own process: the command's promise carries the code.
   */
  exitNow?: (code: number) => void;
  readStdin?: () => Promise<string | null>;
  /**
   * Calls `handler` on each line typed into the terminal the command runs in. Returns the
   * function that stops listening, or null when there is no one typing (stdin is not a TTY).
   */
  onTerminalLine?: (handler: (line: string) => void) => (() => void) | null;
}

export function processIo(): CliIo {
  return {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    onSignal: (signal, handler) => {
      process.on(signal, handler);
    },
    // In-flight requests, sockets and timers would keep the event loop alive past a returned code.
    exitNow: (code) => process.exit(code),
    readStdin: async () => {
      if (process.stdin.isTTY) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    onTerminalLine: (handler) => {
      if (!process.stdin.isTTY) return null;
      // terminal: false leaves the TTY in its normal mode, so Ctrl+C is still SIGINT.
      const lines = readline.createInterface({ input: process.stdin, terminal: false });
      lines.on('line', handler);
      // Closing pauses stdin, so the process can exit once the gateway has stopped.
      return () => lines.close();
    },
  };
}
