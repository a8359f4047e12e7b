/**
 * A run's three files as the dashboard serves them: report.html, summary.md and result.json.
 * Read from the run directory as written; a directory whose report or summary is missing
 * (a run killed before its end, or a bare result file) gets them rendered in memory from its
 * result.json by the same renderers `rtcap report` uses. Nothing is written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import {
  readTimeseries,
  reportHtml,
  summaryMarkdown,
  type ResultFile,
} from '../artefacts/render.js';
import { readResultFile } from '../run/output.js';
import { redactText } from '../redact/redact.js';
import { send } from './server.js';

/**
 * The files a run, campaign or quota check writes that the page links to (nothing else is served).
 */
export const RUN_FILES = [
  'report.html',
  'summary.md',
  'result.json',
  'quotas.md',
  'quotas.json',
  'capacity.md',
  'capacity.json',
] as const;
export type RunFileName = (typeof RUN_FILES)[number];

export function isRunFileName(name: string): name is RunFileName {
  return (RUN_FILES as readonly string[]).includes(name);
}

const typeOf = (name: string) =>
  // Markdown as plain text, so the browser shows it instead of downloading it.
  name.endsWith('.html')
    ? 'text/html; charset=utf-8'
    : name.endsWith('.json')
      ? 'application/json; charset=utf-8'
      : 'text/plain; charset=utf-8';

/** The names of `RUN_FILES` a directory holds, in that order. */
export function filesIn(dir: string): RunFileName[] {
  return RUN_FILES.filter((n) => existsSync(join(dir, n)));
}

/**
 * `source` is a run directory or a result .json file. A directory's own file when it has
 * one, else the file rendered from the result; false when there is no result to render from.
 */
export function serveRunFile(res: ServerResponse, source: string, name: RunFileName): boolean {
  const isFile = source.endsWith('.json');
  const dir = isFile ? dirname(source) : source;
  const own = isFile ? (name === 'result.json' ? source : null) : join(dir, name);
  if (own && existsSync(own)) {
    send(res, 200, { type: typeOf(name), body: redactText(readFileSync(own, 'utf8')) });
    return true;
  }
  if (name !== 'report.html' && name !== 'summary.md' && name !== 'result.json') return false;
  const r = readResultFile<ResultFile>(source);
  if (typeof r === 'string') return false;
  const body =
    name === 'report.html'
      ? reportHtml(r, isFile ? [] : readTimeseries(dir))
      : name === 'summary.md'
        ? summaryMarkdown(r)
        : JSON.stringify(r, null, 2);
  send(res, 200, { type: typeOf(name), body: redactText(body) });
  return true;
}
