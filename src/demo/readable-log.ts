import { Writable } from 'node:stream';
import type { DemoClock } from './clock.js';
import type { Print } from './progress.js';

/**
 * A log destination for the demo: each pino JSON line becomes one sentence a person reads, on the
 * demo's clock (`[+  0.1s] warn: …`). The api and the worker share one logger, so a message both
 * roles say is printed once.
 */
export function readableLog(clock: DemoClock, print: Print): Writable {
  const said = new Set<string>();
  return new Writable({
    write(chunk: Buffer | string, _encoding, done): void {
      for (const line of String(chunk).split('\n')) {
        const sentence = sentenceOf(line);
        if (sentence === undefined || said.has(sentence.text)) continue;
        said.add(sentence.text);
        print(`${clock.stamp(sentence.at)} ${sentence.text}`);
      }
      done();
    },
  });
}

function sentenceOf(line: string): { at: number | undefined; text: string } | undefined {
  if (line.trim() === '') return undefined;
  try {
    const entry = JSON.parse(line) as { level?: unknown; msg?: unknown; time?: unknown };
    const at = typeof entry.time === 'string' ? Date.parse(entry.time) : Number.NaN;
    const level = typeof entry.level === 'string' ? entry.level : 'log';
    const message = typeof entry.msg === 'string' ? entry.msg : '(no message)';
    return { at: Number.isNaN(at) ? undefined : at, text: `${level}: ${message}` };
  } catch {
    return { at: undefined, text: line };
  }
}
