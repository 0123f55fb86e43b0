// A `.env` file in the working directory, as `skein-sdk bot create` writes it: `KEY=value` lines,
// `#` comments, values optionally in single or double quotes. The bot reads it so that the three
// commands of the on-ramp need no `export`; variables already set in the environment win over it.
import { readFileSync, writeFileSync } from 'node:fs';

/** The variables of a `.env` file (nothing when it does not exist). */
export function readDotEnv(file = '.env'): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const variables: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    variables[match[1]!] = value;
  }
  return variables;
}

/** The process environment over the `.env` file's variables: what a bot's options default to. */
export function environment(file = '.env'): Record<string, string | undefined> {
  return { ...readDotEnv(file), ...process.env };
}

/**
 * Sets `values` in a `.env` file, keeping its other lines (and their order), adding what is new at
 * the end; the file is readable by its owner only, as it holds a secret.
 */
export function updateDotEnv(file: string, values: Record<string, string>): void {
  let existing: string[];
  try {
    existing = readFileSync(file, 'utf8').split(/\r?\n/);
    if (existing.at(-1) === '') existing.pop();
  } catch {
    existing = ['# Written by `skein-sdk bot create`; keep this file out of version control.'];
  }
  const pending = new Map(Object.entries(values));
  const lines = existing.map((line) => {
    const key = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (key === undefined || !pending.has(key)) return line;
    const value = pending.get(key)!;
    pending.delete(key);
    return `${key}=${value}`;
  });
  for (const [key, value] of pending) lines.push(`${key}=${value}`);
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}
