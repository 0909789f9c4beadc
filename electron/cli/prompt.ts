/** Questions to the person at the terminal: only when there is one (never in CI or pipes). */
import { createInterface } from 'node:readline';

/** True when stdin and stderr are a terminal a person can answer on. */
export function canPrompt(): boolean {
  return Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** Asks for a secret without echoing it. Resolves undefined when there is no terminal or on Ctrl-D. */
export function askSecret(question: string): Promise<string | undefined> {
  if (!canPrompt()) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    // Echo nothing of what is typed: readline writes through _writeToOutput.
    const quiet = rl as unknown as { _writeToOutput: (s: string) => void };
    process.stderr.write(question);
    quiet._writeToOutput = () => undefined;
    let answered = false;
    rl.question('', (answer) => {
      answered = true;
      process.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
    rl.on('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}

/** Asks a yes/no question; anything but y/yes is no. No terminal: no. */
export function confirm(question: string): Promise<boolean> {
  if (!canPrompt()) return Promise.resolve(false);
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    rl.question(`${question} [y/N] `, (answer) => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}
