/**
 * The terminal's side of redaction: whatever any module writes to stdout or stderr passes
 * through redactText first, so a secret cannot reach the screen (or a CI log) by a path nobody
 * thought to redact. Installed once by the CLI entry point.
 */
import { redactText } from './redact.js';

type Write = NodeJS.WriteStream['write'];

export function redactWrites(stream: NodeJS.WriteStream): void {
  const original = stream.write.bind(stream) as Write;
  if ((stream as { __rtcapRedacted?: boolean }).__rtcapRedacted) return;
  (stream as { __rtcapRedacted?: boolean }).__rtcapRedacted = true;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text =
      typeof chunk === 'string'
        ? chunk
        : Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
          ? Buffer.from(chunk).toString('utf8')
          : null;
    return (original as (c: unknown, ...r: unknown[]) => boolean)(
      text === null ? chunk : redactText(text),
      ...rest,
    );
  }) as Write;
}
