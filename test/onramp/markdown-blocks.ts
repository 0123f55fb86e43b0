// The code blocks of a Markdown file, as readme-blocks.int.test.ts runs them. A fenced block is run
// by its language (`sh`/`bash`, `ts`, `python`); the line just above its fence may hold a marker that
// says otherwise, with the reason in plain sight for whoever reads the Markdown:
//
//   <!-- doc-test: skip: why it cannot run as it is -->    not run (the service itself, an external Neo4j)
//   <!-- doc-test: bot: what the test does with it -->     a program that runs until stopped: the test
//                                                          starts it, writes to the bot, waits for its
//                                                          answer, and stops it with SIGTERM
import { readFileSync } from 'node:fs';

/** `sh`, `ts`, `python`, or another fence language (such as `text`), which needs a skip marker. */
export type BlockLanguage = string;

export interface MarkdownBlock {
  /** The Markdown file and the line of the opening fence (1-based), for messages. */
  where: string;
  line: number;
  language: BlockLanguage;
  code: string;
  /** The `## ` heading the block is under. */
  section: string;
  marker: { kind: 'skip' | 'bot'; reason: string } | undefined;
}

const MARKER = /^\s*<!-- doc-test: (skip|bot): (.+?) -->\s*$/;

export function markdownBlocks(file: string, label = file): MarkdownBlock[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks: MarkdownBlock[] = [];
  let section = '';
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (/^## /.test(line)) section = line.slice(3).trim();
    const fence = /^(\s*)```(\S*)\s*$/.exec(line);
    if (!fence) continue;
    const indent = fence[1]!.length;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j]!)) {
      body.push(lines[j]!.slice(Math.min(indent, lines[j]!.length - lines[j]!.trimStart().length)));
      j += 1;
    }
    const markerLine = MARKER.exec(lines[i - 1] ?? '');
    blocks.push({
      where: `${label}:${i + 1}`,
      line: i + 1,
      language: normalise(fence[2]!),
      code: `${body.join('\n')}\n`,
      section,
      marker: markerLine ? { kind: markerLine[1] as 'skip' | 'bot', reason: markerLine[2]! } : undefined,
    });
    i = j;
  }
  return blocks;
}

function normalise(language: string): BlockLanguage {
  if (language === 'bash' || language === 'shell' || language === 'sh') return 'sh';
  if (language === 'typescript' || language === 'ts') return 'ts';
  if (language === 'py' || language === 'python') return 'python';
  return language;
}
