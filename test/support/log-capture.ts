import { Writable } from 'node:stream';

/** A pino destination that keeps every line written, to search the logs of a whole run. */
export class LogCapture extends Writable {
  private readonly chunks: string[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    done();
  }

  text(): string {
    return this.chunks.join('');
  }

  lines(): string[] {
    return this.text()
      .split('\n')
      .filter((line) => line !== '');
  }
}
