// The benchmark's one table: per workload and metric, Skein's number, the limit measured in the same
// run, their ratio, the bare HTTP server's number, and the issue's target with pass/fail. Printed,
// and written as JSON and Markdown under bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Metric =
  | 'msgs/s'
  | 'req/s'
  | 'deliveries/s'
  | 'p50 ms'
  | 'p99 ms'
  /** One request's time (the cold workload's first post). */
  | 'ms'
  | 'MiB'
  | 'CPU ms'
  /** Neo4j read transactions the service ran per second (its /metrics). */
  | 'reads/s'
  /** Neo4j write transactions the service ran (its /metrics), a count. */
  | 'writes'
  /** Memory per item (e.g. heap per open stream). */
  | 'KiB';

export interface Target {
  text: string;
  /** null: not judged in this run (e.g. a large-profile target on a smaller store). */
  pass: boolean | null;
}

export interface Row {
  workload: string;
  metric: Metric;
  skein: number | null;
  /**
   * The limit: the same Cypher through neo4j-driver, or the bare WebSocket server; for the scale-out
   * rows, the same load on one instance where Skein's column has it spread over two; for the
   * amplification rows, the run's other phase: without the profile edits, or with contexts off; for the
   * typing rows, the same posting without typing (see `limitOf`).
   */
  limit: number | null;
  limitOf:
    | 'neo4j-driver'
    | 'bare ws'
    | '1 instance'
    | 'no load'
    | 'no edits'
    | 'context off'
    | 'no typing'
    /** The completions rows: the same exchange as a post and the reply's frame on a socket. */
    | 'post + socket'
    /** The cold rows: the same load on the same restarted service four minutes later. */
    | 'at 5 min'
    | 'none';
  /** The bare node:http server with the same body sizes and connections. */
  http: number | null;
  target: Target | null;
  note?: string;
}

export const higherIsBetter = (metric: Metric): boolean =>
  metric === 'msgs/s' || metric === 'req/s' || metric === 'deliveries/s';

export function ratioOf(row: Row): number | null {
  if (row.skein === null || row.limit === null || !Number.isFinite(row.skein) || !Number.isFinite(row.limit))
    return null;
  if (row.limit === 0) return null;
  return row.skein / row.limit;
}

function fmt(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return '—';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function fmtRatio(row: Row): string {
  const ratio = ratioOf(row);
  if (ratio === null) return '—';
  return higherIsBetter(row.metric) ? `${(ratio * 100).toFixed(0)}%` : `×${ratio.toFixed(2)}`;
}

function fmtTarget(target: Target | null): string {
  if (!target) return '—';
  const verdict = target.pass === null ? 'not judged' : target.pass ? 'pass' : 'FAIL';
  return `${target.text}: ${verdict}`;
}

const HEADER = ['Workload', 'Metric', 'Skein', 'Limit', 'Ratio', 'Bare HTTP', 'Target'];

function cells(row: Row): string[] {
  const marked = row.limitOf !== 'neo4j-driver' && row.limitOf !== 'none';
  const limit = marked && row.limit !== null ? `${fmt(row.limit)} (${row.limitOf})` : fmt(row.limit);
  return [
    row.workload,
    row.metric,
    fmt(row.skein),
    limit,
    fmtRatio(row),
    fmt(row.http),
    fmtTarget(row.target),
  ];
}

export function markdownTable(rows: Row[]): string {
  const lines = [`| ${HEADER.join(' | ')} |`, `|${HEADER.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${cells(row).join(' | ')} |`);
  return lines.join('\n');
}

export function textTable(rows: Row[]): string {
  const all = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

export interface RunReport {
  profile: string;
  started_at: string;
  finished_at: string;
  seconds: number;
  machine: Record<string, unknown>;
  sizes: Record<string, unknown>;
  timings: Record<string, number>;
  rows: Row[];
  notes: string[];
}

export function renderMarkdown(report: RunReport): string {
  const machine = report.machine;
  const lines = [
    `# Benchmark: ${report.profile} profile, ${report.started_at}`,
    '',
    `Machine: ${String(machine.cpu_model)}, ${String(machine.cpus)} cores, ${String(machine.memory_gib)} GiB; ` +
      `Node ${String(machine.node)}; Neo4j ${String(machine.neo4j)}; load average ` +
      `${String(machine.load_start)} at start, ${String(machine.load_end)} at the end.`,
    '',
    `Store: ${Object.entries(report.sizes)
      .map(([k, v]) => `${k} ${String(v)}`)
      .join(', ')}.`,
    '',
    `Run time ${report.seconds.toFixed(0)} s (${Object.entries(report.timings)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')}).`,
    '',
    markdownTable(report.rows),
    '',
    'Limit: the same Cypher through neo4j-driver (throughput at the same concurrency, or latency one at a ' +
      'time), except where marked "bare ws" (a WebSocket server with no database), "1 instance" (scale-out: ' +
      "Skein's column is the load spread over two instances on one Neo4j, the limit column the same load on " +
      'one) or "no load", "no edits", "context off", "no typing", "at 5 min" (the same measurement in another phase ' +
      'of the run). ' +
      'Ratio: Skein ÷ limit, as a share for throughput and as a multiple for latency, memory and CPU ' +
      'time. Bare HTTP: a node:http server answering a body of the same size with the same connections. ' +
      'See docs/benchmarks.md.',
    '',
    ...report.rows.filter((r) => r.note).map((r) => `- ${r.workload} (${r.metric}): ${r.note}`),
    ...report.notes.map((n) => `- ${n}`),
    '',
  ];
  return lines.join('\n');
}

async function formatJson(text: string, file: string): Promise<string> {
  // Formatted as Prettier would, so that `prettier --check .` stays clean when a result is committed.
  try {
    const prettier = await import('prettier');
    const options = (await prettier.resolveConfig(file)) ?? {};
    return await prettier.format(text, { ...options, parser: 'json' });
  } catch {
    return `${text}\n`;
  }
}

export async function writeReport(report: RunReport, outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const stamp = report.started_at.replace(/[:.]/g, '-');
  const base = path.join(outDir, `${report.profile}-${stamp}`);
  const json = await formatJson(JSON.stringify(report, null, 2), `${base}.json`);
  const md = renderMarkdown(report);
  const files = [`${base}.json`, `${base}.md`, path.join(outDir, `latest-${report.profile}.md`)];
  writeFileSync(files[0]!, json);
  writeFileSync(files[1]!, md);
  writeFileSync(files[2]!, md);
  return files;
}
