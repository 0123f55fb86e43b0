// Progress of a long backup or restore on stderr: the phase, and every few seconds what has been
// counted so far, so that an operator sees a run over a large store move (its answer goes to stdout).
export interface Progress {
  phase(name: string): void;
  count(what: string, by?: number): void;
  done(): void;
}

const EVERY_MS = 5_000;

export function stderrProgress(
  command: string,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Progress {
  const started = Date.now();
  const counts = new Map<string, number>();
  let phase = '';
  let shownAt = Date.now();
  const show = () => {
    shownAt = Date.now();
    const seconds = Math.round((shownAt - started) / 1000);
    const counted = [...counts].map(([what, n]) => `${n.toLocaleString('en-US')} ${what}`).join(', ');
    write(`${command}: ${phase}${counted ? ` (${counted})` : ''}, ${seconds} s\n`);
  };
  return {
    phase(name) {
      phase = name;
      show();
    },
    count(what, by = 1) {
      counts.set(what, (counts.get(what) ?? 0) + by);
      if (Date.now() - shownAt >= EVERY_MS) show();
    },
    done() {
      phase = 'done';
      show();
    },
  };
}

/** No output (tests that call the use cases directly). */
export const silentProgress: Progress = {
  phase: () => undefined,
  count: () => undefined,
  done: () => undefined,
};
