import fs from 'node:fs';
import path from 'node:path';
import type { DefinitionContent } from './definition-content.js';
import type { DefinitionParser } from './definition-parser.js';
import { LIMITS, MAX_PROBE_ID_LENGTH, PROBE_ID_PATTERN, kindOfProbeId } from './definition-rules.js';

/** How a definition file was found: symbolic links are never followed, neither for the file nor its folder. */
export type FoundFile =
  /** No regular file with that id (missing, a directory, a FIFO, or its folder is missing or a link). */
  | { kind: 'absent' }
  /** The file is a symbolic link. */
  | { kind: 'link' }
  /** A regular file; `identity` is device, inode, size and modification time. */
  | { kind: 'file'; file: string; size: number; identity: string };

/** A definition file read without following links: its text, or why it has none. */
export type ReadFile = { kind: 'absent' } | { kind: 'link' } | { kind: 'text'; text: string; identity: string } | { kind: 'unreadable'; error: string };

/** What the server knows of a stored definition. */
export type StoredDefinition = { kind: 'absent' } | { kind: 'present'; content: DefinitionContent };

/** O_NOFOLLOW: a link swapped in after the lstat fails to open; O_NONBLOCK: a FIFO swapped in does not hang. */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/** The file of `probeId` under `afsDir` (its folder by prefix), or null when the id breaks the pattern. */
export function definitionFile(afsDir: string, probeId: string): { folder: string; file: string } | null {
  const kind = kindOfProbeId(probeId);
  if (kind === undefined || probeId.length > MAX_PROBE_ID_LENGTH || !PROBE_ID_PATTERN.test(probeId)) return null;
  const folder = path.join(afsDir, kind.folder);
  return { folder, file: path.join(folder, `${probeId}.yaml`) };
}

/** Whether `folder` is a directory and not a symbolic link (a definitions folder that is a link is not read). */
export async function isRealFolder(folder: string): Promise<boolean> {
  try {
    return (await fs.promises.lstat(folder)).isDirectory();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

/** Looks at `file` without following a symbolic link (its folder is checked by the caller). */
async function findFile(file: string): Promise<FoundFile> {
  try {
    const stat = await fs.promises.lstat(file, { bigint: true });
    if (stat.isSymbolicLink()) return { kind: 'link' };
    if (!stat.isFile()) return { kind: 'absent' };
    return { kind: 'file', file, size: Number(stat.size), identity: identityOf(stat) };
  } catch (err) {
    if (isMissing(err)) return { kind: 'absent' };
    throw err;
  }
}

/** Reads a definition file of at most `maxBytes` bytes without following a symbolic link. */
export async function readFile(folder: string, file: string, maxBytes: number): Promise<ReadFile> {
  const found = await isRealFolder(folder)
    .then((real) => (real ? findFile(file) : ({ kind: 'absent' } as const)))
    .catch((err: NodeJS.ErrnoException) => err);
  if (found instanceof Error) return { kind: 'unreadable', error: `the file cannot be read: ${found.code ?? 'error'}` };
  if (found.kind !== 'file') return found;
  return readFound(found, maxBytes);
}

/**
 * Definition files as the server reads them: without following links, parsed in the definition parser's thread,
 * and remembered by file identity (device, inode, size, modification time), so that an unchanged file is parsed
 * once however often it is listed or looked up. Holds the contents of at most `maxEntries` files.
 */
export class StoredDefinitions {
  private readonly contents = new Map<string, Promise<DefinitionContent>>();

  constructor(
    readonly parser: DefinitionParser,
    private readonly maxEntries = 1024,
  ) {}

  /** The content of definition `probeId` in `afsDir`; absent for a malformed id, a folder that is a link, or no regular file. */
  async read(afsDir: string, probeId: string): Promise<StoredDefinition> {
    const where = definitionFile(afsDir, probeId);
    if (where === null || !(await isRealFolder(where.folder).catch(() => false))) return { kind: 'absent' };
    const content = await this.readContent(where.file);
    return content === null ? { kind: 'absent' } : { kind: 'present', content };
  }

  /**
   * The content of `file`, whose folder the caller has found to be a real folder: null when there is no regular
   * file; a link or an unreadable file carries `error`.
   */
  async readContent(file: string): Promise<DefinitionContent | null> {
    let found: FoundFile;
    try {
      found = await findFile(file);
    } catch (err) {
      return { ok: false, error: `the file cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
    }
    if (found.kind === 'absent') return null;
    if (found.kind === 'link') return { ok: false, error: 'the file is a symbolic link, which the server does not follow' };
    const known = this.contents.get(found.identity);
    if (known !== undefined) {
      // most recently used last: the first entry is the one to drop
      this.contents.delete(found.identity);
      this.contents.set(found.identity, known);
      return known;
    }
    const read = await readFound(found, LIMITS.yamlBytes);
    if (read.kind === 'absent') return null;
    if (read.kind === 'link') return { ok: false, error: 'the file is a symbolic link, which the server does not follow' };
    if (read.kind === 'unreadable') return { ok: false, error: read.error };
    return this.parsed(read.identity, read.text);
  }

  /** Number of file contents remembered (tests). */
  get size(): number {
    return this.contents.size;
  }

  private parsed(identity: string, text: string): Promise<DefinitionContent> {
    const known = this.contents.get(identity);
    if (known !== undefined) return known;
    const content = this.parser.parse(text);
    this.contents.set(identity, content);
    // a parser that cannot start is not an answer about this file
    content.catch(() => this.contents.get(identity) === content && this.contents.delete(identity));
    for (const oldest of this.contents.keys()) {
      if (this.contents.size <= this.maxEntries) break;
      this.contents.delete(oldest);
    }
    return content;
  }
}

async function readFound(found: Extract<FoundFile, { kind: 'file' }>, maxBytes: number): Promise<ReadFile> {
  if (found.size > maxBytes) return { kind: 'unreadable', error: `the file is larger than ${maxBytes} bytes` };
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(found.file, OPEN_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return { kind: 'link' };
    if (isMissing(err)) return { kind: 'absent' };
    return { kind: 'unreadable', error: `the file cannot be read: ${code ?? 'error'}` };
  }
  try {
    // the file may have been replaced since it was found: what counts is what was opened
    const stat = await handle.stat({ bigint: true });
    if (!stat.isFile()) return { kind: 'absent' };
    if (stat.size > BigInt(maxBytes)) return { kind: 'unreadable', error: `the file is larger than ${maxBytes} bytes` };
    const bytes = Buffer.alloc(Number(stat.size));
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { kind: 'text', text: bytes.subarray(0, filled).toString('utf8'), identity: identityOf(stat) };
  } catch (err) {
    return { kind: 'unreadable', error: `the file cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
  } finally {
    await handle.close();
  }
}

function identityOf(stat: fs.BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}`;
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
